"""How the app's Python process collects garbage.

A reload of a large session allocates a few hundred thousand small objects (sections,
entries, view nodes). With CPython's default thresholds a young collection runs every 700
allocations and, every so often, a full one walks the whole heap: measured on the
benchmark's session, an outside one-line append reached the view in 85 ms, or in 170 ms when
a full collection fell inside it. Young collections now run every 50,000 allocations and full
ones only when the app is idle (``IdleCollector``), so garbage is still freed, just not while
the Lead waits for a view.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

YOUNG_THRESHOLD = 50_000
IDLE_MS = 2_000  # quiet this long after a change: collect everything once
MAX_WAIT_S = 30.0  # a session that never goes quiet is still collected this often


def tune_gc() -> None:
    """Fewer young collections, and no full one in the middle of the app's work."""
    gc.set_threshold(YOUNG_THRESHOLD, 50, 1_000_000)


class IdleCollector(QObject):
    """Runs a full collection once the session has been quiet for ``IDLE_MS``: the objects of a
    replaced GC or a left session are freed then, not during the next update."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(IDLE_MS)
        self.timer.timeout.connect(self.collect)
        self.collected = 0  # full collections run (for tests)
        self.waiting_since: float | None = None  # the first change not yet followed by a collection

    def poke(self) -> None:
        """Something changed: collect once it has been quiet for a while, or now when agents
        have kept the session busy for ``MAX_WAIT_S`` (the quiet spell would never come)."""
        now = time.monotonic()
        if self.waiting_since is None:
            self.waiting_since = now
        if now - self.waiting_since > MAX_WAIT_S:
            self.collect()
        else:
            self.timer.start()

    def collect(self) -> None:
        """The full collection the thresholds no longer run on their own."""
        self.timer.stop()
        self.waiting_since = None
        gc.collect()
        self.collected += 1
