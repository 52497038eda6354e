"""A table's reading pane: the current row written out in full, wrapped to the pane's width.

A narrow table cuts its widest columns (an FC condition's reason, a delta item's content) at a
laptop's width; under it, this pane shows the row the Lead is on, wrapped, so that nothing
needed is read by scrolling sideways or by hovering for a tooltip.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QFrame, QPlainTextEdit, QWidget

# Describes the current row, given its first cell; an invalid index when no row is current
# (a summary of the table, or "").
Describe = Callable[[QModelIndex], str]


def every_cell(index: QModelIndex) -> str:
    """A row's cells with their columns' titles, one after the other: for a table whose
    columns each say something short (a narrow dock cuts the last ones)."""
    if not index.isValid():
        return ""
    model, row = index.model(), index.row()
    cells = []
    for column in range(model.columnCount(index.parent())):
        value = model.index(row, column, index.parent()).data()
        if value not in (None, ""):
            title = model.headerData(column, Qt.Orientation.Horizontal)
            cells.append(f"{title}: {value}" if column else str(value))
    return " · ".join(cells)


class RowDetail(QPlainTextEdit):
    """Read-only, wrapping text that follows ``view``'s current row."""

    def __init__(
        self,
        view: QAbstractItemView,
        describe: Describe,
        lines: int = 4,
        placeholder: str = "The selected row, whole",
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setPlaceholderText(placeholder)  # an empty pane says what it is for
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setTabChangesFocus(True)
        self._view, self._describe, self._lines = view, describe, lines
        self.setMaximumHeight(self._height())
        model = view.model()
        model.dataChanged.connect(lambda *_: self.refresh())
        model.rowsInserted.connect(lambda *_: self.refresh())
        model.rowsRemoved.connect(lambda *_: self.refresh())
        model.modelReset.connect(self.refresh)
        selection = view.selectionModel()
        selection.currentChanged.connect(lambda *_: self.refresh())
        self.refresh()

    def _height(self) -> int:
        line = QFontMetrics(self.font()).lineSpacing()
        margins = self.contentsMargins()
        return line * self._lines + margins.top() + margins.bottom() + 2 * int(self.document().documentMargin())

    def refresh(self) -> None:
        """Show the current row's description (the summary when no row is current)."""
        index: QModelIndex = self._view.currentIndex()
        text = self._describe(index.siblingAtColumn(0) if index.isValid() else QModelIndex())
        if text != self.toPlainText():
            self.setPlainText(text)

    def changeEvent(self, event: QEvent) -> None:
        """A new font changes how tall the pane's lines are."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.setMaximumHeight(self._height())
