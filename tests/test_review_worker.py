"""Issue 16: the Inbox pass (inboxes, ledger, team replies, reviews) runs off the GUI thread,
a burst of requests runs at most once more, and a pass over a session the Lead left is dropped."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QTimer

import app.controller as controller_module
from conftest import COW, settle_reviews
from models.claude.reviews import Gathered, gather_reviews
from models.claude.transcript_read import TranscriptFollower
from models.session.folder import Session

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

    from app.controller import Controller


class _Gate:
    """Stands in for ``gather_reviews``: each pass waits until the test lets it through."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started: list[tuple[str, str]] = []  # (session id, thread name)

    def __call__(
        self, session: Session, now: datetime, timeout_min: int, follower: TranscriptFollower | None = None
    ) -> Gathered:
        self.started.append((session.id, threading.current_thread().name))
        assert self.release.wait(10), "the test never let the pass through"
        return gather_reviews(session, now, timeout_min, follower=follower)


ACK = (
    "[ACK-UPDATE] GC-v6 received.\n- Delta items applied: 1/1\n- Impact on my work: NONE\n"
    "- Action taken: CONTINUE\n- Unclear items: none\n"
)


def _write_ack(session: Path) -> None:
    inbox = session / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-1-ack.md").write_text(ACK, encoding="utf-8")


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> _Gate:
    g = _Gate()
    monkeypatch.setattr(controller_module, "gather_reviews", g)
    return g


def test_a_slow_inbox_pass_leaves_the_window_answering(
    qtbot: QtBot, controller: Controller, gate: _Gate, demo_copy: Path
) -> None:
    _write_ack(demo_copy)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    controller.refresh_reviews()  # only asks the worker: the event loop runs meanwhile
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=3000)  # the event loop runs meanwhile
    assert controller.reviewer.busy and gate.started
    assert gate.started[0][1] != threading.current_thread().name  # not the GUI thread
    with qtbot.waitSignal(controller.reviewsShown, timeout=5000):
        gate.release.set()
    timer.stop()
    (ack,) = [r for r in controller.reviews if r.message.source == "inbox/implementer-1-ack.md"]
    assert ack.message.sender == "implementer-1" and ack.ack is not None
    assert (ack.ack.applied, ack.ack.total) == (1, 1)  # what the message above says
    assert controller.window.review_pane.header.text().startswith("1 message")


def test_a_burst_of_requests_runs_at_most_once_more(qtbot: QtBot, controller: Controller, gate: _Gate) -> None:
    for _ in range(10):
        controller.refresh_reviews()
    gate.release.set()
    settle_reviews(qtbot, controller)
    assert len(gate.started) == 2  # the one running when the burst came, and the last of the burst


def test_a_pass_over_a_session_the_lead_left_is_dropped(
    qtbot: QtBot, controller: Controller, gate: _Gate, demo_copy: Path, tmp_path: Path
) -> None:
    import shutil

    _write_ack(demo_copy)
    controller.refresh_reviews()  # over the demo, held at the gate
    qtbot.waitUntil(lambda: bool(gate.started), timeout=3000)
    cow = tmp_path / "cow" / ".agent" / "teams" / COW.name
    shutil.copytree(COW, cow)
    assert controller.open(cow)
    shown: list[int] = []
    controller.reviewsShown.connect(lambda: shown.append(1))
    gate.release.set()
    settle_reviews(qtbot, controller)
    assert gate.started[0][0] == "payments-ledger-v2"
    assert gate.started[-1][0] == COW.name
    assert len(shown) == 1  # the cow pass only; the demo's result was dropped
    # The cow session has no messages/ folder: nothing of the demo's inbox may show.
    assert controller.reviews == [] and controller.window.review_pane.model.rowCount() == 0


def test_a_finished_job_holds_nothing_it_ran(qtbot: QtBot) -> None:
    """The pool deletes a finished runnable after ``waitForDone`` may have returned (under load,
    7 of 300 jobs were still held then): a job that kept its work until its deletion kept what
    the work captured, a session the Lead had left (tests/test_session_switch.py). Once run,
    the job itself, still alive, holds none of it."""
    import weakref

    from ui.workers import Job

    class Captured:
        pass

    captured = Captured()
    ref = weakref.ref(captured)
    results: list[object] = []
    job = Job(lambda captured=captured: None, results.append)
    del captured
    job.run()  # as the pool calls it
    assert results == [None]
    assert ref() is None and job is not None
