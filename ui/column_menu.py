"""A table's columns, shown or hidden from its header's right-click menu and kept between runs.

The teammate table has twelve columns; on a laptop the pane shows about eight, and what the
Lead owes a teammate was past its edge. A Lead who never links a Claude Code team has four
columns that stay empty, and one who reads versions off the Inbox has no use for Sources:
each hides what they do not read, once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from PySide6.QtCore import QObject, QPoint, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTableView

from ui.column_fit import ColumnFit


class ColumnMenu(QObject):
    """The header's menu of ``view``'s columns (all but ``fixed``, always shown), the choice
    kept in ``settings`` under ``key`` by column title. A column for which ``idle`` gives a
    reason (the team columns with no team linked) is hidden whatever the choice, and the menu
    says the reason."""

    def __init__(
        self,
        view: QTableView,
        settings: QSettings,
        key: str,
        fit: ColumnFit | None = None,
        fixed: Collection[int] = (0,),
        idle: Callable[[int], str | None] = lambda _: None,
        default_hidden: Collection[str] = (),
    ) -> None:
        super().__init__(view)
        self.view, self.settings, self.key, self.fit = view, settings, key, fit
        self.default_hidden = frozenset(default_hidden)  # until the Lead chooses, these are hidden
        self.fixed, self.idle = fixed, idle
        header = view.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._show_menu)
        self.apply()

    def titles(self) -> list[str]:
        model = self.view.model()
        return [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]

    @property
    def hidden(self) -> set[str]:
        """The titles of the columns the Lead hid (a title no longer in the table is kept)."""
        value = self.settings.value(self.key, None)
        if value is None:  # never chosen: the defaults
            return set(self.default_hidden)
        if isinstance(value, str):  # QSettings gives a one-item list back as a string
            value = [value]
        return {str(v) for v in value} if isinstance(value, list) else set()

    def set_shown(self, column: int, shown: bool) -> None:
        """Show or hide ``column`` by the Lead's choice, kept for the next run."""
        title, hidden = self.titles()[column], self.hidden
        self.settings.setValue(self.key, sorted(hidden - {title} if shown else hidden | {title}))
        self.apply()

    def apply(self) -> None:
        """Each column shown or hidden as chosen and as its data allows; the columns shown
        again are fitted to their text."""
        hidden, header = self.hidden, self.view.horizontalHeader()
        appeared = False
        for column, title in enumerate(self.titles()):
            hide = column not in self.fixed and (title in hidden or self.idle(column) is not None)
            if hide != header.isSectionHidden(column):
                header.setSectionHidden(column, hide)
                appeared = appeared or not hide
        if appeared and self.fit is not None:
            self.fit.fit_soon()

    def menu(self) -> QMenu:
        """The header's menu, made as it opens."""
        menu = QMenu(self.view)
        self.fill(menu)
        return menu

    def fill(self, menu: QMenu) -> None:
        """``menu`` emptied, then a check per column and the fitting of every column again
        (the header's menu, and View ▸ Teammate Columns for the keyboard)."""
        menu.clear()
        hidden = self.hidden
        for column, title in enumerate(self.titles()):
            if column in self.fixed:
                continue
            why = self.idle(column)
            action = QAction(title if why is None else f"{title} ({why})", menu)
            action.setCheckable(True)
            action.setChecked(title not in hidden)
            action.setEnabled(why is None)
            action.toggled.connect(lambda shown, c=column: self.set_shown(c, shown))
            menu.addAction(action)
        if self.fit is not None:
            menu.addSeparator()
            menu.addAction("Fit Columns to Their Text", self.fit.fit_all)

    def _show_menu(self, at: QPoint) -> None:
        self.menu().popup(self.view.horizontalHeader().mapToGlobal(at))
