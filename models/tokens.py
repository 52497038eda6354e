"""Token counts: exact offline BPE (o200k_base, cl100k_base) and the seeds' 4-chars estimate.

The exact counts use ``bpe-openai`` (GitHub's ``bpe`` crate), which ships the encodings'
rank files inside the wheel, so nothing is downloaded at run time. Counts are cached by text,
because a live session recounts the same unchanged sections on every edit.
"""

from __future__ import annotations

import functools
import math
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

EXACT_ENCODINGS = ("o200k_base", "cl100k_base")
ESTIMATE = "estimate"
DEFAULT_TOKENIZER = "o200k_base"
TOKENIZER_NAMES = (*EXACT_ENCODINGS, ESTIMATE)

# bpe-openai refuses single inputs of a million characters; long texts are counted in chunks.
_CHUNK_CHARS = 256_000
# In the o200k and cl100k split patterns a newline only ever joins other whitespace (or
# trails punctuation before it), so cutting right after a newline that is followed by a
# non-space character keeps every pre-token intact: chunked counts are exact.
_SAFE_CUT = re.compile(r"\n(?=\S)")


class Tokenizer(Protocol):
    """Counts tokens of a text; ``name`` is what the UI and the JSON output show."""

    name: str

    def count(self, text: str) -> int: ...


@dataclass
class EstimateTokenizer:
    """The seeds' rule of thumb: about four characters a token (ADR-002: 130 lines ≈ 2,600)."""

    name: str = ESTIMATE
    chars_per_token: float = 4.0

    def count(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token) if text else 0


class BpeTokenizer:
    """Exact counts for an OpenAI encoding, computed offline, memoised per text."""

    def __init__(self, encoding: str, cache_size: int = 20_000) -> None:
        if encoding not in EXACT_ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; choose one of {TOKENIZER_NAMES}")
        import bpe_openai  # imported late: loading the rank tables takes ~100 ms

        self.name = encoding
        self._encode: Callable[[str], list[int]] = bpe_openai.get_encoding(encoding).encode_ordinary
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size

    def count(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        n = sum(len(self._encode(chunk)) for chunk in chunks(text))
        self._cache[text] = n
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return n


def chunks(text: str, size: int = _CHUNK_CHARS) -> list[str]:
    """Split long text only at cuts that do not change the token count (see _SAFE_CUT)."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    start = 0
    while len(text) - start > size:
        cut = None
        for m in _SAFE_CUT.finditer(text, start + size // 2, start + size):
            cut = m.end()
        if cut is None:  # one gigantic line: cut anywhere; the count may be off by one
            cut = start + size
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


@functools.cache
def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """Shared tokenizer by name (``o200k_base``, ``cl100k_base`` or ``estimate``).

    Shared so that its count cache serves the window, the CLI and the benchmark alike.
    """
    if name == ESTIMATE:
        return EstimateTokenizer()
    return BpeTokenizer(name)
