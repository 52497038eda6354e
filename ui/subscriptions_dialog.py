"""The Lead's matrix of what each role follows: the GC's top-level sections down the side, the
roles across, a check where a role follows a section (Space toggles the current cell).

The dialog only gathers the matrix; OK hands it to the controller, which prepares its write,
shows the review and commits it like every other action. **Propose** fills the matrix from the
session (each proposed cell says why in its tooltip); **Every Section** checks a role's column.
A column with every section checked is written as ``all``: the role also follows sections that
later versions add.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QVBoxLayout, QWidget

from ui.widgets import table_view

Matrix = dict[str, tuple[str, ...] | None]
Reasons = Mapping[str, Mapping[str, str]]
_Index = QModelIndex | QPersistentModelIndex


class MatrixModel(QAbstractTableModel):
    """A thin table over the matrix: a row per section, a column per role, checkable cells."""

    def __init__(self, sections: Sequence[str], roles: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sections, self.roles = list(sections), list(roles)
        self._checked: dict[str, set[str]] = {role: set(sections) for role in roles}
        self._reasons: Reasons = {}

    def set_matrix(self, matrix: Mapping[str, tuple[str, ...] | None], reasons: Reasons | None = None) -> None:
        """Show ``matrix`` (None: every section), and the reasons a proposal gave."""
        for role in self.roles:
            follows = matrix.get(role)
            self._checked[role] = set(self.sections) if follows is None else set(follows) & set(self.sections)
        self._reasons = reasons or {}
        self._changed_all()

    def follow_all(self, role: str) -> None:
        self._checked[role] = set(self.sections)
        self._changed_all()

    def matrix(self) -> Matrix:
        """Role → the sections it follows, in the GC's order; None where it follows them all."""
        out: Matrix = {}
        for role in self.roles:
            checked = self._checked[role]
            out[role] = None if checked >= set(self.sections) else tuple(s for s in self.sections if s in checked)
        return out

    def _changed_all(self) -> None:
        if self.sections and self.roles:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.sections) - 1, len(self.roles) - 1))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        """One row per top-level section (none under a section: a table)."""
        return 0 if parent.isValid() else len(self.sections)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        """One column per role."""
        return 0 if parent.isValid() else len(self.roles)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """A check where the column's role follows the row's section; the proposal's reason."""
        if not index.isValid():
            return None
        section, who = self.sections[index.row()], self.roles[index.column()]
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if section in self._checked[who] else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            why = self._reasons.get(who, {}).get(section)
            follows = "follows" if section in self._checked[who] else "does not follow"
            return f"{who} {follows} §{section}" + (f"\nProposed: {why}" if why else "")
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{who}, §{section}"
        return None

    def setData(self, index: _Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """A cell checked or cleared (a click, or Space on the current cell)."""
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole:
            return False
        section, who = self.sections[index.row()], self.roles[index.column()]
        checked = value == Qt.CheckState.Checked or value == Qt.CheckState.Checked.value
        (self._checked[who].add if checked else self._checked[who].discard)(section)
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        """Cells are checked, not edited or selected as text."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """Roles across the top, § sections down the side."""
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.roles[section] if 0 <= section < len(self.roles) else None
        return f"§{self.sections[section]}" if 0 <= section < len(self.sections) else None


class SubscriptionsDialog(QDialog):
    """The matrix, Propose, Every Section, and OK to review its write."""

    def __init__(
        self,
        sections: Sequence[str],
        current: Mapping[str, tuple[str, ...] | None],
        propose: Callable[[], tuple[Mapping[str, tuple[str, ...] | None], Reasons]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("What each role follows")
        self._propose = propose
        self.model = MatrixModel(sections, list(current), self)
        self.model.set_matrix(current)
        intro = QLabel(
            "A [CONTEXT-UPDATE] to a role carries the changes in the sections it follows; a role with "
            "nothing changed there gets a one-line version bump to ACK. A column checked whole follows "
            "every section, also those later versions add."
        )
        intro.setWordWrap(True)
        self.table = table_view(self.model)
        self.table.setAccessibleName("Sections each role follows")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)  # a cell, not a row
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(True)
        self.buttons_box = buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.propose_button = buttons.addButton("&Propose", QDialogButtonBox.ButtonRole.ActionRole)
        self.propose_button.setToolTip("Check what the session says each role needs (the reasons are in the tooltips)")
        self.propose_button.clicked.connect(self._proposed)
        self.every_button = buttons.addButton("&Every Section", QDialogButtonBox.ButtonRole.ActionRole)
        self.every_button.setToolTip("The current cell's role follows every section")
        self.every_button.clicked.connect(self._every)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Review…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(900, 560)  # within a 1366×768 laptop's screen
        if self.model.rowCount() and self.model.columnCount():
            self.table.setCurrentIndex(self.model.index(0, 0))

    def _proposed(self) -> None:
        matrix, reasons = self._propose()
        self.model.set_matrix(matrix, reasons)

    def _every(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            self.model.follow_all(self.model.roles[index.column()])

    def matrix(self) -> Matrix:
        return self.model.matrix()
