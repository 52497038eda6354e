"""Work put off until a widget has painted: what lies below the fold of a large session.

Opening a 20,000-line GC rendered 20,000 characters of preview and laid out 2,000 expanded
tree rows before the first frame, though a screen shows a few dozen lines of each. A view
shows the part on screen, arms an ``AfterPaint`` with the rest, and the rest runs a moment
after the view's next paint: the frame with the session in it goes out first.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

# A moment after the paint: by then the frame has gone to the screen (a paint and its flush
# happen together, before any timer fires). Short enough that nobody scrolls to the part still
# missing.
AFTER_PAINT_MS = 20


class AfterPaint(QObject):
    """Runs one piece of put-off work after ``widget``'s next paint (or at once on ``flush``).

    A widget out of sight paints when it comes into sight: its work waits until then, and
    ``flush`` runs it earlier for anything that needs the whole (a copy, a test). Work too long
    for one piece hands its next step to ``then``, which runs a moment later without waiting
    for a paint: input is handled in between.
    """

    def __init__(self, widget: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent or widget)
        self._work: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(AFTER_PAINT_MS)
        self._timer.timeout.connect(self._run)
        widget.installEventFilter(self)

    @property
    def pending(self) -> bool:
        """Whether work waits for a paint or for its timer."""
        return self._work is not None

    def arm(self, work: Callable[[], None]) -> None:
        """Run ``work`` after the next paint, in place of any work still waiting."""
        self._timer.stop()
        self._work = work

    def then(self, work: Callable[[], None]) -> None:
        """Run ``work`` a moment from now, paint or not: the next step of the work running."""
        self._work = work
        self._timer.start()

    def cancel(self) -> None:
        """Drop the waiting work: what it would finish is no longer shown."""
        self._timer.stop()
        self._work = None

    def flush(self) -> None:
        """Run the waiting work now, if any, with every step it hands on."""
        while self._work is not None:
            self._run()

    def _run(self) -> None:
        """Run one piece of the waiting work (the timer's; it may hand on a next step)."""
        work, self._work = self._work, None
        self._timer.stop()
        if work is not None:
            work()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Start the timer when the widget paints with work waiting; the paint goes on."""
        if event.type() == QEvent.Type.Paint and self._work is not None and not self._timer.isActive():
            self._timer.start()
        return False
