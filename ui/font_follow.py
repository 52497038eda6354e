"""Sizes measured from a widget's font, measured again when the font changes (View ▸ Larger
Text): a row height or a column width taken once would keep the old font's."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


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
