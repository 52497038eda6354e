"""How the app's Python process collects garbage.

A reload of a large session allocates a few hundred thousand small objects (sections,
entries, view nodes). With CPython's default thresholds a young collection runs every 700
allocations and, every so often, a full one walks the whole heap: measured on the
benchmark's session, an outside one-line append reached the view in 85 ms, or in 170 ms when
a full collection fell inside it. Young collections now run every 50,000 allocations and full
ones only when the app is idle and there is cause (``IdleCollector``), so garbage is still
freed, just not while the Lead waits for a view.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import time

from PySide6.QtCore import QObject, QTimer

YOUNG_THRESHOLD = 50_000
IDLE_MS = 2_000  # quiet this long after a change: collect everything once, if there is cause
MAX_WAIT_S = 30.0  # a session that never goes quiet is still collected this often
# A change that leaves no reference cycles behind is collected in full only once the blocks
# Python holds have grown by this share since the last full collection (CPython's own rule
# for its full collections is a quarter more long-lived objects).
GROWTH = 0.25


def tune_gc() -> None:
    """Fewer young collections, and no full one in the middle of the app's work."""
    gc.set_threshold(YOUNG_THRESHOLD, 50, 1_000_000)


# glibc's mallopt parameters (malloc.h) and the values the app sets.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
TRIM_THRESHOLD_BYTES = 128 << 20  # freed memory kept at the top of the heap, at most
MMAP_THRESHOLD_BYTES = 32 << 20  # blocks this large or larger are mapped on their own


def tune_malloc() -> bool:
    """Let glibc keep freed memory for the next allocation; whether the C library took it.

    A follow-up reads the changed file whole into a new block. glibc gave the last one back to
    the system when it was freed, and the next read faulted every page in again: on a 14 MB
    TEAM-MEMORY, 6 ms of a 10 ms follow-up, every other time. Blocks under 32 MB now come
    from the heap (glibc's own limit for the threshold it adjusts by itself), and up to
    128 MB freed at its top stay there. The memory kept is memory the process used a moment
    before: the benchmark measures its peak.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (or no mallopt to ask)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    )


class IdleCollector(QObject):
    """Runs a full collection once the session has been quiet for ``IDLE_MS``, when there is
    cause: a change said it may have left reference cycles (a left session, a GC read whole,
    whose sections point at their parents), or Python's blocks grew by ``GROWTH`` since the
    last one. The objects of a replaced GC or a left session are freed then, not during the
    next update.

    A follow-up leaves no cycles (five TEAM-MEMORY appends left none, five GC edits 52
    objects), but a full collection walks every live object: on the ten-times session 575,000,
    for 155 ms, 2 s after each burst of appends, into whatever the Lead was doing.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(IDLE_MS)
        self.timer.timeout.connect(self.collect)
        self.collected = 0  # full collections run (for tests)
        self.skipped = 0  # quiet spells with no cause to collect (for tests)
        self.waiting_since: float | None = None  # the first change not yet followed by a collection
        self._cycles = True  # a change since the last collection may have left cycles
        self._blocks = sys.getallocatedblocks()  # Python's blocks after the last collection

    def poke(self, cycles: bool = True) -> None:
        """Something changed (``cycles``: in a way that may leave reference cycles behind):
        look once it has been quiet for a while, or now when agents have kept the session busy
        for ``MAX_WAIT_S`` (the quiet spell would never come)."""
        self._cycles = self._cycles or cycles
        now = time.monotonic()
        if self.waiting_since is None:
            self.waiting_since = now
        if now - self.waiting_since > MAX_WAIT_S:
            self.collect()
        else:
            self.timer.start()

    def collect(self) -> None:
        """The full collection the thresholds no longer run on their own, when there is cause."""
        self.timer.stop()
        self.waiting_since = None
        if not self._cycles and sys.getallocatedblocks() < self._blocks * (1 + GROWTH):
            self.skipped += 1
            return
        gc.collect()
        self.collected += 1
        self._cycles = False
        self._blocks = sys.getallocatedblocks()
