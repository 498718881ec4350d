"""Offline token counts with OpenAI's o200k_base encoding.

tiktoken downloads o200k_base at run time, which fails offline; bpe-openai ships the same
vocabulary inside its wheel and its counts match tiktoken's (see tests/recorder/test_tokens.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ENCODING = "o200k_base"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """The number of o200k_base tokens in text."""
    return len(_encoding().encode(text))
