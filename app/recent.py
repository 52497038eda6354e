"""The Recent Sessions menu, remembered once the session opened is on screen.

Setting a value makes QSettings write its file in the next turn of the event loop, with two
``fdatasync`` calls: 1–5 ms on a quiet disk, 50 ms on a busy one. Qt handles that turn before
the window's paint (a paint request is a low-priority event), so recording the session when it
opened held its first frame back by that much.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer

from app.settings import AppSettings
from ui.after_paint import AfterPaint
from ui.main_window import MainWindow

# When the window does not paint after an open (nothing on it changed), the list is written
# anyway, this long after.
LATEST_MS = 2000


class RecentSessions(QObject):
    """Adds opened sessions to the settings' list and the window's menu after its next paint."""

    def __init__(self, settings: AppSettings, window: MainWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.window = window
        self._opened: list[Path] = []  # oldest first, not recorded yet
        self._after = AfterPaint(window, self)
        self._latest = QTimer(self)
        self._latest.setSingleShot(True)
        self._latest.setInterval(LATEST_MS)
        self._latest.timeout.connect(self.flush)
        window.menus.set_recent(settings.recent_sessions())

    def add(self, folder: Path) -> None:
        """Record ``folder`` as the most recent session: at once when no window shows it."""
        self._opened.append(folder)
        if not self.window.isVisible():
            self.flush()
            return
        self._after.arm(self._record)
        self._latest.start()

    def flush(self) -> None:
        """Record what is waiting now (the window did not paint, or a test needs it)."""
        self._after.cancel()
        self._latest.stop()
        self._record()

    def close(self) -> None:
        """Record what is waiting and write it: the app is quitting, past its last event."""
        if self._opened:
            self.flush()
            self.settings.sync()

    def _record(self) -> None:
        opened, self._opened = self._opened, []
        if not opened:
            return
        self._latest.stop()
        for folder in opened:
            self.settings.add_recent(folder)
        self.window.menus.set_recent(self.settings.recent_sessions())
