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

from PySide6.QtCore import QObject, QTimer

YOUNG_THRESHOLD = 50_000
IDLE_MS = 2_000  # quiet this long after a change: collect everything once


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

    def poke(self) -> None:
        """Something changed: collect once it has been quiet for a while."""
        self.timer.start()

    def collect(self) -> None:
        """The full collection the thresholds no longer run on their own."""
        gc.collect()
        self.collected += 1
