"""Offline token counts with OpenAI's o200k_base encoding.

tiktoken downloads o200k_base at run time, which fails offline; bpe-openai ships the same
vocabulary inside its wheel and its counts match tiktoken's (see tests/recorder/test_tokens.py).
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

ENCODING = "o200k_base"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    with warnings.catch_warnings():
        # bpe-openai 0.1.4 reads its vocabularies (at import) with a deprecated importlib.resources call.
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        encoding = bpe_openai.get_encoding(ENCODING)
        encoding.encode("")  # the vocabulary loads on first use
        return encoding


def count_tokens(text: str) -> int:
    """The number of o200k_base tokens in text."""
    return len(_encoding().encode(text))
