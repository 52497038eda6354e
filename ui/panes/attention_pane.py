"""Needs you: one list of what the Lead has to do, most urgent first, each row answered by its
own action (Return, a double-click, or the button).

The list is ``models.actions.attention.needs_lead``'s; this pane shows it and asks for the
row's action (``actionRequested``), which the controller does.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QWidget

from models.actions.attention import Attention
from ui.item_models import DISPLAY, TOOLTIP
from ui.row_detail import RowDetail
from ui.widgets import button, button_bar, short_time, stack, table_view

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Teammate", "Since", "Action", "What")  # what stretches: it is the long one


class AttentionModel(QAbstractTableModel):
    """A thin table over the list: one row per item."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: tuple[Attention, ...] = ()

    def set_items(self, items: list[Attention]) -> None:
        """A new list (the model is reset around the change, not after it)."""
        self.beginResetModel()
        self.items = tuple(items)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        """Rows: one per item (a table has no children)."""
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        """What, teammate, since, action."""
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> object:
        """The column titles."""
        if orientation == Qt.Orientation.Horizontal and role == DISPLAY and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = DISPLAY) -> object:
        """Each item's cells; the tooltip says the whole line."""
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return None
        item = self.items[index.row()]
        if role == DISPLAY:
            return (item.role or "—", short_time(item.since), item.action_label, item.what)[index.column()]
        if role == TOOLTIP:
            return f"{item.what}\n{item.action_label}" if item.action else item.what
        return None

    def describe(self, index: QModelIndex) -> str:
        """The current item whole: who, since when and what (its action is in its row); with
        none current, nothing (the header counts the list)."""
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return ""
        item = self.items[index.row()]
        since = f" since {short_time(item.since)}" if item.since else ""
        answer = "" if item.action else " (only you can answer it)"
        return f"{item.role or 'The session'}{since}: {item.what}{answer}"


class AttentionPane(QWidget):
    """What needs the Lead, with its one action per row."""

    actionRequested = Signal(object)  # the Attention whose action the Lead asked for

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = AttentionModel(self)
        self.view = table_view(self.model)
        self.view.setAccessibleName("What needs you")
        header = self.view.horizontalHeader()
        for column in range(len(HEADERS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.header = QLabel("Nothing needs you")
        self.do_button = button(
            "Do it", self.act, None, self, "Do the selected row's action (Return, or a double-click)"
        )
        self.view.activated.connect(lambda _: self.act())
        self.detail = RowDetail(self.view, self.model.describe, lines=2, placeholder="The selected item, whole")
        stack(self, self.header, self.view, self.detail, button_bar(self.do_button))

    def show_items(self, items: list[Attention]) -> None:
        """The list as it is now; the selection stays on the same thing when it is still there.
        The same list again (each read of a working team asks) changes nothing on screen."""
        if tuple(items) == self.model.items:
            return
        current = self.current()
        self.model.set_items(items)
        count = len(items)
        self.header.setText(f"{count} thing{'s' if count != 1 else ''} need{'s' if count == 1 else ''} you"
                            if count else "Nothing needs you")  # fmt: skip
        row = next((n for n, i in enumerate(items) if i == current), 0 if items else None)
        if row is not None:
            self.view.setCurrentIndex(self.model.index(row, 0))
        self.do_button.setEnabled(bool(items) and items[row or 0].action is not None)

    def current(self) -> Attention | None:
        index = self.view.currentIndex()
        return self.model.items[index.row()] if index.isValid() and index.row() < len(self.model.items) else None

    def act(self) -> None:
        """Ask for the selected row's action."""
        item = self.current()
        if item is not None and item.action is not None:
            self.actionRequested.emit(item)
