"""The window's one way to do a Lead action: a reviewed preview committed off the GUI thread.

Panes and dialogs only gather a request and show its preview (``models.actions``); what the
Lead confirmed comes here as the preview itself and is written exactly, in a pool thread (an
fsync on a slow disk must not freeze the window), one action at a time. The result comes back
as a typed signal on the GUI thread.
"""

from __future__ import annotations

import threading
from collections import deque

from PySide6.QtCore import QObject, QThreadPool, Signal

from models.actions.commit import commit
from models.actions.preview import Outcome, Preview
from models.text.transaction import WriteRefused
from ui.workers import Job


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
        self._results: deque[tuple[Preview, object]] = deque()
        self._lock = threading.Lock()
        self._ready.connect(self._drain)

    def commit(self, preview: Preview) -> None:
        """Write ``preview`` in the pool; ``committed`` or ``refused`` follows."""
        self.running += 1
        self.pool.start(Job(lambda: commit(preview), lambda result: self._arrived(preview, result)))

    def _arrived(self, preview: Preview, result: object) -> None:
        """In the pool thread: keep the result, and have the GUI thread say it."""
        with self._lock:
            self._results.append((preview, result))
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
                preview, result = self._results.popleft()
            self._finish(preview, result)

    def _finish(self, preview: Preview, result: object) -> None:
        """Say how the action ended; ``busy`` stays until every slot of the signal has run, so
        that a script (or a test) waiting for it finds the window showing the result."""
        try:
            if isinstance(result, Outcome):
                self.committed.emit(result)
            elif isinstance(result, WriteRefused):
                self.refused.emit(preview, "\n".join(result.reasons))
            elif isinstance(result, OSError):
                where = f"{result.filename}: " if result.filename else ""
                self.refused.emit(preview, f"{where}{result.strerror or result}; nothing was written")
            else:  # a bug of ours: said in one line, never raised into the event loop
                self.refused.emit(preview, f"the action stopped: {result!r}")
        finally:
            self.running -= 1

    @property
    def busy(self) -> bool:
        return self.running > 0

    def stop(self, timeout_ms: int = 10_000) -> None:
        """Let a write under way finish (the window is closing): it is never cut half-way."""
        self.pool.waitForDone(timeout_ms)
