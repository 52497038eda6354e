"""Token counts: exact offline BPE (o200k_base, cl100k_base) and the seeds' 4-chars estimate.

Exact counts come from ``toktok-rs``: a Rust BPE counter whose wheel embeds the encodings'
rank tables, so nothing is downloaded at run time, it imports in milliseconds and counts
tens of millions of tokens a second with no limit on input size. The test suite checks its
counts against a second, independent implementation (``bpe-openai``) on every real file.
Counts are cached by text, because a live session recounts unchanged sections on every edit.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

EXACT_ENCODINGS = ("o200k_base", "cl100k_base")
ESTIMATE = "estimate"
DEFAULT_TOKENIZER = "o200k_base"
TOKENIZER_NAMES = (*EXACT_ENCODINGS, ESTIMATE)


class Tokenizer(Protocol):
    """Counts tokens of a text; ``name`` is what the UI and the JSON output show."""

    name: str

    def count(self, text: str) -> int: ...

    def count_many(self, texts: list[str]) -> list[int]: ...


@dataclass
class EstimateTokenizer:
    """The seeds' rule of thumb: about four characters a token (ADR-002: 130 lines ≈ 2,600)."""

    name: str = ESTIMATE
    chars_per_token: float = 4.0

    def count(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token) if text else 0

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]


#: Longest text the exact tokenizer remembers (a large section is about 10,000 characters).
CACHE_MAX_CHARS = 32_768


class ExactTokenizer:
    """Exact counts for an OpenAI encoding, computed offline, memoised per text."""

    def __init__(self, encoding: str, cache_size: int = 20_000) -> None:
        if encoding not in EXACT_ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r}; choose one of {TOKENIZER_NAMES}")
        import toktok

        self.name = encoding
        self._count_batch = toktok.batch_count
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._count_batch(["load the rank tables"], encoding)  # one text: counted on this thread
        # The counter shares a batch of several texts out to worker threads, which it starts
        # on the first such batch: 7–9 ms, taken from the first parse of a session's GC. They
        # start now, beside the parse's reading and scanning of the file, which come first.
        threading.Thread(target=self._count_batch, args=(["start", "the threads"], encoding), daemon=True).start()

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_many(self, texts: list[str]) -> list[int]:
        """Counts for many texts with one call into the counter for those not cached.

        Only texts up to ``CACHE_MAX_CHARS`` are kept: sections repeat between parses, while
        a whole GC or a full-injection message is new after every edit, and keeping those
        grew the process by a megabyte or more per GC write.

        The window's workers and the GUI thread count at once, so the cache is read and
        written under a lock, and the answer is built from the counts this call looked up or
        made (another thread may evict them meanwhile). The counter itself runs outside the
        lock: two threads counting new texts do not wait for each other.
        """
        cache = self._cache
        known: dict[str, int] = {}
        with self._lock:
            for text in texts:
                if text and text not in known and text in cache:
                    cache.move_to_end(text)
                    known[text] = cache[text]
        missing = list({t for t in texts if t and t not in known})
        if missing:
            counts = self._count_batch(missing, self.name)
            known.update(zip(missing, counts, strict=True))
            with self._lock:
                for text in missing:
                    if len(text) <= CACHE_MAX_CHARS:
                        cache[text] = known[text]
                while len(cache) > self._cache_size:
                    cache.popitem(last=False)
        return [known[t] if t else 0 for t in texts]


# The tokenizers made so far, by name: one per process and encoding.
_SHARED: dict[str, Tokenizer] = {}
_SHARED_LOCK = threading.Lock()  # two threads asking at once load one vocabulary, not two


def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """Shared tokenizer by name (``o200k_base``, ``cl100k_base`` or ``estimate``).

    Shared so that its count cache serves the window, the CLI and the benchmark alike, and
    its vocabulary is loaded once (``tokenizer_ready``).
    """
    shared = _SHARED.get(name)
    if shared is None:
        with _SHARED_LOCK:
            shared = _SHARED.get(name)
            if shared is None:
                shared = EstimateTokenizer() if name == ESTIMATE else ExactTokenizer(name)
                _SHARED[name] = shared
    return shared


def tokenizer_ready(name: str) -> bool:
    """Whether ``get_tokenizer(name)`` answers at once: an exact encoding's vocabulary takes
    0.3–0.7 s to load, once per process, holding the interpreter, which the window says."""
    return name == ESTIMATE or name in _SHARED
