"""Adding or editing one delta item by hand."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QPlainTextEdit, QWidget

from models.delta.items import OPS, DeltaItem


class ItemDialog(QDialog):
    """Add or edit one delta item by hand."""

    def __init__(self, parent: QWidget, item: DeltaItem | None, refs: list[str]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Delta item")
        self.op = QComboBox()
        self.op.addItems(OPS)
        self.ref = QComboBox()
        self.ref.setEditable(True)
        self.ref.addItems(refs)
        self.key = QLineEdit()
        self.old = QLineEdit()
        self.new = QPlainTextEdit()
        form = QFormLayout(self)
        for name, widget in (("Operation", self.op), ("§ Section", self.ref), ("Key", self.key)):
            form.addRow(name, widget)
        form.addRow("Old value", self.old)
        form.addRow("New value / content", self.new)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        if item is not None:
            self.op.setCurrentText(item.op)
            self.ref.setCurrentText(item.ref)
            self.key.setText(item.key or "")
            self.old.setText(item.old or "")
            self.new.setPlainText((item.new if item.key is not None else item.content) or "")
            self._position = item.position
        else:
            self._position = None

    def item(self) -> DeltaItem:
        key = self.key.text().strip() or None
        text = self.new.toPlainText()
        op = self.op.currentText()
        if key is None:
            return DeltaItem(op, self.ref.currentText().strip(), content=text, position=self._position)  # type: ignore[arg-type]
        return DeltaItem(op, self.ref.currentText().strip(), key, self.old.text() or None, text or None)  # type: ignore[arg-type]
