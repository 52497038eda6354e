"""Sizes measured from a widget's font, measured again when the font changes (View ▸ Larger
Text): a row height or a column width taken once would keep the old font's."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import QDockWidget, QWidget


class _FontFollower(QObject):
    """Calls ``react`` after each change of ``widget``'s font (View ▸ Larger Text)."""

    def __init__(self, widget: QWidget, react: Callable[[], None]) -> None:
        super().__init__(widget)
        self._react = react
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """React to the font's change; every event goes on."""
        if event.type() == QEvent.Type.FontChange:
            self._react()
        return False


def follow_font(widget: QWidget, react: Callable[[], None]) -> None:
    """Run ``react`` now and whenever ``widget``'s font changes: sizes measured from a font
    (row heights, columns sized from sample text) would keep the old font's otherwise."""
    _FontFollower(widget, react)
    react()


class _DockTitleFonts(QObject):
    """Gives the docks of ``window`` the application's new font on each change of it.

    Qt takes a dock's title font once, when the dock is made, and draws the title with it for
    as long as the dock's font is the application's: a size chosen in View ▸ Larger Text
    reached the title bars only at the next start. A font of the dock's own is drawn; it is
    the application's, told apart from it by a style strategy that draws the same.
    """

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            # Queued: once Qt has told the windows. A font set while it does kept the
            # window's other widgets (its menus, status bar, tabs) in the old size.
            app.fontChanged.connect(self._follow, Qt.ConnectionType.QueuedConnection)

    def _follow(self) -> None:
        font = QFont(QGuiApplication.font())
        font.setStyleStrategy(QFont.StyleStrategy.PreferQuality)
        for dock in self._window.findChildren(QDockWidget):
            dock.setFont(font)


def follow_dock_titles(window: QWidget) -> None:
    """Keep the title bars of ``window``'s docks in the application's font as it changes."""
    _DockTitleFonts(window)
