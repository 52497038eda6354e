"""The caches that the window's workers and the GUI thread share, hammered from several threads.

Before the token cache had a lock, four threads counting with a small cache died with
``KeyError`` in 3 of 4 runs: one thread evicted a text between another's count and its look-up.
Expected counts come from ``bpe-openai``, an implementation independent of the app's counter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import bpe_openai

from models.review.ledger import read_ledger
from models.text.tokens import ExactTokenizer

THREADS = 4
ROUNDS = 300


def _hammer(work: Callable[[int], object]) -> list[object]:
    """Run ``work(i)`` for ROUNDS values of i on THREADS threads that start together."""
    start = threading.Barrier(THREADS)

    def worker(offset: int) -> list[object]:
        start.wait()
        return [work(offset + i * THREADS) for i in range(ROUNDS)]

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(worker, range(THREADS)))
    return [r for rs in results for r in rs]


def test_a_small_token_cache_counted_from_four_threads_answers_every_count_right() -> None:
    texts = [f"- D-{n}: decision {n} about module_{n % 7} and 한국어 {n * 37}\n" * (1 + n % 3) for n in range(40)]
    reference = bpe_openai.get_encoding("o200k_base")
    expected = {t: len(reference.encode_ordinary(t)) for t in texts}
    tokenizer = ExactTokenizer("o200k_base", cache_size=4)  # evicts all the time

    def count(i: int) -> bool:
        batch = [texts[(i + k) % len(texts)] for k in range(5)] + ["", texts[i % len(texts)]]
        got = tokenizer.count_many(batch)
        return got == [expected[t] if t else 0 for t in batch]

    answers = _hammer(count)
    assert len(answers) == THREADS * ROUNDS
    assert all(answers)
    assert len(tokenizer._cache) <= 4


def test_the_ledger_read_while_another_thread_appends_is_always_whole_lines(tmp_path: Path) -> None:
    """Each read is a prefix of what was appended, in order, with no line torn or repeated."""
    ledger = tmp_path / "messages" / "ledger.jsonl"
    ledger.parent.mkdir()
    ledger.write_bytes(b"")
    done = threading.Event()

    def append() -> None:
        for n in range(400):
            with open(ledger, "ab") as fh:
                fh.write(b'{"direction": "sent", "n": %d}\n' % n)
        done.set()

    writer = threading.Thread(target=append)
    writer.start()
    seen: list[list[int]] = []

    def read(_: int) -> None:
        if not done.is_set():
            seen.append([e["n"] for e in read_ledger(tmp_path)])

    _hammer(read)
    writer.join()
    final = [e["n"] for e in read_ledger(tmp_path)]
    assert final == list(range(400))
    assert all(s == list(range(len(s))) for s in seen)
