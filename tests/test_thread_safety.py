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

import pytest

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
    import bpe_openai  # a second or more to import: not in every worker's collection

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


def test_a_snapshot_cannot_be_changed(demo_copy: Path) -> None:
    """What a worker is handed is frozen: fields, their mappings and the teammates raise."""
    import dataclasses

    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    snapshot = open_session(demo_copy, get_tokenizer("estimate")).snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.gc = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        snapshot.stamps["global-context.md"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        snapshot.phase_roles["implementer-1"] = (1,)  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.mates[0].confirmed = 99  # type: ignore[misc]
    assert isinstance(snapshot.gates, tuple) and isinstance(snapshot.mates, tuple)


def test_the_inbox_pass_reads_its_snapshot_while_the_session_reloads(demo_copy: Path) -> None:
    """The Inbox pass runs in a worker while the GUI thread reloads the session as agents write
    the plan. On a snapshot, every pass sees one version: implementer-2's NEED_CLARIFICATION
    ACK of GC-v6 and implementer-4's DELTA report (drop_two_replies), and the plan as it was,
    where implementer-2 confirmed GC-v6 (the demo plan's teammate_gc_versions)."""
    from datetime import UTC, datetime

    from conftest import drop_two_replies
    from models.claude.reviews import gather_reviews
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    drop_two_replies(demo_copy / "messages" / "inbox")
    session = open_session(demo_copy, get_tokenizer("estimate"))
    snapshot = session.snapshot()
    plan = demo_copy / "orchestration-plan.md"
    text = plan.read_text(encoding="utf-8")
    assert "  implementer-2: 6\n" in text
    stop = threading.Event()

    def agents_and_reloads() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            plan.write_text(text.replace("  implementer-2: 6\n", f"  implementer-2: {n % 2 + 6}\n"), encoding="utf-8")
            session.reload({"plan"})

    writer = threading.Thread(target=agents_and_reloads)
    writer.start()
    try:

        def one_pass(_: int) -> tuple[tuple[str | None, str, str], ...]:
            gathered = gather_reviews(snapshot, datetime.now(UTC), 10, record=False)
            return tuple((r.message.sender, r.message.kind, r.action) for r in gathered.reviews)

        seen = set(_hammer_few(one_pass))
    finally:
        stop.set()
        writer.join()
    # 0 of 1 item applied: more than half unclear, the full GC (ADR-002 §8); a high risk that
    # asks to consult needs the Lead's attention (seed 004).
    assert seen == {(("implementer-2", "ack", "full"), ("implementer-4", "delta_report", "attention"))}
    assert snapshot.plan is not None and snapshot.plan.teammate_gc_versions["implementer-2"] == 6


def _hammer_few(work: Callable[[int], object]) -> list[object]:
    """``work`` twenty times on each of two threads (a pass reads every inbox file)."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(work, range(40)))
