"""Add entry…: a TEAM-MEMORY entry in one dialog (its section, its tag, its words), reviewed
next as every write is. It took three question boxes in a row before the review."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QWidget

from models.session.memory_entries import TAGS


class MemoryEntryDialog(QDialog):
    """The section picked from the session's (relay roles are written as relayed), one of
    ADR-001's tags, and the entry's text; OK only once there is text."""

    def __init__(self, roles: list[str], current: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add entry")
        self.role_box = QComboBox()
        self.role_box.addItems(roles)
        if current in roles:
            self.role_box.setCurrentText(current)
        self.tag_box = QComboBox()
        self.tag_box.addItems(list(TAGS))
        self.text_box = QLineEdit()
        self.text_box.setPlaceholderText("what the team should remember")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Review…")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.text_box.textChanged.connect(lambda text: self.ok_button.setEnabled(bool(text.strip())))
        self.ok_button.setEnabled(False)
        form = QFormLayout(self)
        form.addRow("Section (relay roles are marked relayed):", self.role_box)
        form.addRow("Tag:", self.tag_box)
        form.addRow("Entry:", self.text_box)
        form.addRow(self.buttons)
        self.resize(640, self.sizeHint().height())
        self.text_box.setFocus()

    def request(self) -> tuple[str, str, str]:
        """(section, tag, text) as chosen."""
        return self.role_box.currentText(), self.tag_box.currentText(), self.text_box.text().strip()
