"""Work off the GUI thread, with results that come back as queued signals.

Reading inboxes, ledgers and transcripts can take seconds on a large session or a slow disk;
the window must keep answering keys meanwhile. A job runs in a pool the owner holds; its
result (or the exception that stopped it) is emitted from the pool thread and so delivered
to the owner's thread by Qt's queued connection.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from models.actions.preview import Preview

S = TypeVar("S")


class StillPreparing(Exception):
    """Another action's preview is being worked out: one action at a time."""

    def __init__(self) -> None:
        super().__init__("another action is still being prepared; nothing was done, try it again")


def said(exc: Exception, *expected: type[Exception]) -> str:
    """What stopped a prepare, in one line: the action's own refusal (``expected``, or a file
    that could not be read) as it words it; anything else is a bug of ours, said as one (its
    traceback goes to stderr, never into the event loop)."""
    if isinstance(exc, (*expected, OSError, StillPreparing)):
        return str(exc)
    traceback.print_exception(exc, file=sys.stderr)
    return f"the action stopped: {exc!r}"


class Preparer(Protocol):
    """How a pane has a Lead action prepared: ``take`` a snapshot on the GUI thread (once the
    last action's writes landed), ``work`` out its preview from it, then ``then`` (or
    ``failed``, with what stopped it) on the GUI thread. False when it cannot be asked now
    (another action is being prepared). The window's is its runner's (off the GUI thread)."""

    def __call__(
        self,
        take: Callable[[], S],
        work: Callable[[S], Preview],
        then: Callable[[Preview], None],
        failed: Callable[[Exception], None],
    ) -> bool: ...


def prepare_here(
    take: Callable[[], S],
    work: Callable[[S], Preview],
    then: Callable[[Preview], None],
    failed: Callable[[Exception], None],
) -> bool:
    """A ``Preparer`` on the caller's thread, for a pane that stands alone (no window)."""
    try:
        preview = work(take())
    except Exception as exc:
        failed(exc)
    else:
        then(preview)
    return True


class Job(QRunnable):
    """One call of ``work`` in a pool thread; ``done`` gets its result or its exception."""

    def __init__(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        super().__init__()
        self.work, self.done = work, done

    def run(self) -> None:
        """Called by the pool: a worker must report, never die silently.

        The job lets go of ``work`` and ``done`` first: the pool deletes a finished runnable
        after ``waitForDone`` may already have returned, and until then it held whatever the
        work captured (a session the Lead has left: tests/test_session_switch.py)."""
        work, done = self.work, self.done
        del self.work, self.done
        try:
            result: Any = work()
        except Exception as exc:
            result = exc
        done(result)


class LatestWork(QObject):
    """Runs one job at a time; a request made while one runs waits, replacing any waiting one.

    Inbox refreshes come in bursts (a watcher event, a team view, a Carry out); only the last
    request of a burst matters, so at most one job runs and one waits. ``drop`` (a session
    switch) forgets the waiting job and discards the running one's result.
    """

    finished = Signal(object)  # the job's result, or the exception that stopped it
    _done = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.generation = 0
        self.busy = False
        self.waiting: Callable[[], Any] | None = None
        self._done.connect(self._on_done)

    def request(self, work: Callable[[], Any]) -> None:
        """Run ``work`` now, or after the job that is running (replacing one already waiting)."""
        if self.busy:
            self.waiting = work
            return
        self._run(work)

    def _run(self, work: Callable[[], Any]) -> None:
        self.busy = True
        generation = self.generation
        self.pool.start(Job(work, lambda result: self._done.emit(generation, result)))

    def _on_done(self, generation: int, result: Any) -> None:
        self.busy = False
        waiting, self.waiting = self.waiting, None
        if waiting is not None:
            self._run(waiting)
        if generation == self.generation:
            self.finished.emit(result)

    def drop(self) -> None:
        """Forget what waits and ignore what runs: its session is gone."""
        self.generation += 1
        self.waiting = None

    def wait(self, timeout_ms: int = 10_000) -> None:
        """Wait for the running job to end (its result still arrives through ``finished``)."""
        self.pool.waitForDone(timeout_ms)

    def stop(self, timeout_ms: int = 5000) -> None:
        """Drop everything and wait for the pool: nothing of ours runs after the window closes."""
        self.drop()
        self.pool.waitForDone(timeout_ms)
