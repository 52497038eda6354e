"""Choosing, section by section, between the Lead's draft and what an agent wrote meanwhile."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from models.publish.merge import Conflict

MINE, THEIRS = "Keep my draft", "Take the agent's version"


def _side(title: str, text: str | None) -> QGroupBox:
    box = QGroupBox(title)
    view = QPlainTextEdit(text if text is not None else "(removed)")
    view.setReadOnly(True)
    view.setFont(QFont("Monospace"))
    QVBoxLayout(box).addWidget(view)
    return box


class MergeDialog(QDialog):
    """Both versions of every section both sides changed, and a choice for each."""

    def __init__(self, parent: QWidget, conflicts: list[Conflict]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Merge your draft with the GC on disk")
        self.choices: dict[str, QComboBox] = {}
        inner = QWidget()
        rows = QVBoxLayout(inner)
        for conflict in conflicts:
            group = QGroupBox(f"§{conflict.key}: changed in your draft and on disk")
            layout = QVBoxLayout(group)
            sides = QHBoxLayout()
            sides.addWidget(_side("Your draft", conflict.mine))
            sides.addWidget(_side("On disk (the agent's)", conflict.theirs))
            layout.addLayout(sides)
            combo = QComboBox()
            combo.addItems([MINE, THEIRS])
            layout.addWidget(combo)
            self.choices[conflict.key] = combo
            rows.addWidget(group)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        self.resize(900, 600)

    def chosen(self) -> dict[str, str]:
        return {key: "theirs" if combo.currentText() == THEIRS else "mine" for key, combo in self.choices.items()}
