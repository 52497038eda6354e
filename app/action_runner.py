"""The window's one way to do a Lead action: prepared and committed off the GUI thread.

Panes and dialogs only gather a request and show its preview (``models.actions``). The
preview is prepared here, from a snapshot the caller took, and handed back to the caller on
the GUI thread (a 10 MB GC's diff must not freeze the window); what the Lead confirmed comes
back as the preview itself and is written exactly (an fsync on a slow disk must not freeze it
either). One pool thread does both, in the order asked, so a preview asked for after a commit
is worked out after that commit landed. A commit's result comes back as a typed signal.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject, QThreadPool, Signal

from models.actions.commit import commit
from models.actions.preview import Outcome, Preview
from models.text.transaction import WriteRefused
from ui.workers import Job, StillPreparing

S = TypeVar("S")


class ActionRunner(QObject):
    """Commits previews in order, one at a time; says how each ended."""

    committed = Signal(object)  # the Outcome: every file written, as previewed
    refused = Signal(object, str)  # the Preview, and why nothing of it was written (one line each)
    _ready = Signal()  # a result waits in ``_results``

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # two actions never write at once, and land in order
        self.running = 0
        self.preparing = 0  # previews asked for and not yet handed back: one action at a time
        self._results: deque[Callable[[], None]] = deque()  # what the GUI thread says next
        self._lock = threading.Lock()
        self._ready.connect(self._drain)

    def prepare(
        self,
        take: Callable[[], S],
        work: Callable[[S], Preview],
        then: Callable[[Preview], None],
        failed: Callable[[Exception], None],
    ) -> bool:
        """Work out a preview in the pool (``ui.workers.Preparer``): ``take`` runs here, once
        the writes asked for have landed (the next action is prepared from the files as they
        left them), and ``work`` reads what it took, never the live session. ``then`` gets the
        preview on the GUI thread, or ``failed`` what stopped it (a carry out done before, a
        gate that cannot start): the caller says why in its own words. One action at a time:
        False (and ``failed`` with ``StillPreparing``) while another is being prepared."""
        if self.preparing:
            failed(StillPreparing())
            return False
        self.settle()
        taken = take()

        def arrived(result: object) -> None:
            self.preparing -= 1
            if isinstance(result, Preview):
                then(result)
            elif isinstance(result, Exception):
                failed(result)
            else:  # a bug of ours, said as one
                failed(TypeError(f"a prepare returned {result!r}"))

        self.preparing += 1
        self._start(lambda: work(taken), arrived)
        return True

    def commit(self, preview: Preview) -> None:
        """Write ``preview`` in the pool; ``committed`` or ``refused`` follows."""
        self._start(lambda: commit(preview), lambda result: self._finish(preview, result))

    def _start(self, work: Callable[[], object], said: Callable[[object], None]) -> None:
        self.running += 1
        self.pool.start(Job(work, lambda result: self._arrived(lambda: said(result))))

    def _arrived(self, say: Callable[[], None]) -> None:
        """In the pool thread: keep what to say, and have the GUI thread say it."""
        with self._lock:
            self._results.append(say)
        self._ready.emit()

    def settle(self, timeout_ms: int = 10_000) -> None:
        """Let the writes asked for end and say how, now: the next action is prepared from the
        files as they left them (two Carry outs in a row edit the plan one after the other)."""
        if self.running:
            self.pool.waitForDone(timeout_ms)
            self._drain()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._results:
                    return
                say = self._results.popleft()
            try:
                say()
            finally:
                self.running -= 1

    def _finish(self, preview: Preview, result: object) -> None:
        """Say how the action ended; ``busy`` stays until every slot of the signal has run, so
        that a script (or a test) waiting for it finds the window showing the result."""
        if isinstance(result, Outcome):
            self.committed.emit(result)
        elif isinstance(result, WriteRefused):
            self.refused.emit(preview, "\n".join(result.reasons))
        elif isinstance(result, OSError):
            where = f"{result.filename}: " if result.filename else ""
            self.refused.emit(preview, f"{where}{result.strerror or result}; nothing was written")
        else:  # a bug of ours: said in one line, never raised into the event loop
            self.refused.emit(preview, f"the action stopped: {result!r}")

    @property
    def busy(self) -> bool:
        return self.running > 0

    def stop(self, timeout_ms: int = 10_000) -> None:
        """Let a write under way finish (the window is closing): it is never cut half-way."""
        self.pool.waitForDone(timeout_ms)
