"""Offline token counts with OpenAI's o200k_base encoding.

tiktoken downloads o200k_base at run time, which fails offline; bpe-openai ships the same
vocabulary inside its wheel and its counts match tiktoken's (see tests/recorder/test_scorer.py).
Loading it takes about a second, and only the scripted policy needs it: nothing loads it at import,
and the policy starts loading it in a background thread when it is created (start_loading), so a
run's start-up (servers, comparison) does not wait for it; record waits for it (vocabulary_ready)
before the first conversation starts its clock.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from concurrent.futures import Future
from typing import Any

ENCODING = "o200k_base"

_lock = threading.Lock()
_loading: Future[Any] | None = None


def _load(into: Future[Any]) -> None:
    try:
        import bpe_openai

        encoding = bpe_openai.get_encoding(ENCODING)
        encoding.encode("")  # the vocabulary loads on first use
    except BaseException as exc:  # reported to whoever counts tokens first
        into.set_exception(exc)
    else:
        into.set_result(encoding)


def start_loading() -> Future[Any]:
    """Start loading the vocabulary in a background thread (once per process); the future holds the encoding."""
    global _loading
    with _lock:
        if _loading is None:
            # bpe-openai 0.1.4 reads its vocabularies (at import) with a deprecated importlib.resources call;
            # a filter for that one warning, as catch_warnings() would change every thread's filters.
            warnings.filterwarnings("ignore", message="open_binary is deprecated", category=DeprecationWarning,
                                    module="bpe_openai")
            _loading = Future()
            threading.Thread(target=_load, args=(_loading,), name="o200k-vocabulary", daemon=True).start()
        return _loading


async def vocabulary_ready() -> None:
    """Wait, without blocking the event loop, until a vocabulary that is loading has loaded (no-op otherwise)."""
    if _loading is not None and not _loading.done():
        await asyncio.wrap_future(_loading)


def vocabulary_requested() -> bool:
    """True once something in this process has asked for the vocabulary."""
    return _loading is not None


def _encoding() -> Any:
    return start_loading().result()


# bpe-openai refuses one input of more than 200,000 tokens (TokenLimitError) or of several megabytes
# ("Input too long to encode safely"); a request carrying a large tool result can hold that many.
# Longer text is counted in pieces of this many characters: a token split at a piece's edge may count
# twice, so a long text's estimate can be a few tokens high; text up to one piece counts exactly.
COUNTED_PIECE_CHARS = 100_000


def count_tokens(text: str) -> int:
    """The number of o200k_base tokens in text (waits for the vocabulary the first time)."""
    encoding = _encoding()
    return sum(len(encoding.encode(text[start:start + COUNTED_PIECE_CHARS]))
               for start in range(0, len(text), COUNTED_PIECE_CHARS))
