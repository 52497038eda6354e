"""Merge with disk: the Lead's draft and what an agent wrote meanwhile, chosen section by
section, the merge reviewed as a diff before it becomes the draft."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from models.publish.merge import Conflict
from ui.review_dialog import DiffHighlighter

if TYPE_CHECKING:
    from ui.composer.pane import ComposerPane

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


class MergeReview(QDialog):
    """What the merge takes into the draft, as a diff of the draft, before it is taken: the
    agents' changes and the Lead's choices. Nothing is written: the draft changes, and only a
    publish writes it."""

    def __init__(self, parent: QWidget, diff: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Merge your draft with the GC on disk")
        heading = QLabel("Take these changes into your draft? Nothing is written until you publish.")
        heading.setWordWrap(True)
        self.change = QPlainTextEdit(diff or "(your draft already holds what is on disk)")
        self.change.setReadOnly(True)
        self.change.setFont(QFont("DejaVu Sans Mono"))
        self.highlighter = DiffHighlighter(self.change.document())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Take into the draft")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.change)
        layout.addWidget(self.buttons)
        screen = self.screen().availableGeometry()
        self.resize(min(1100, screen.width() - 60), min(640, screen.height() - 60))


class DiskMerge:
    """The composer pane's Merge with disk…: what agents wrote into the GC since the draft was
    taken, brought into the draft."""

    def __init__(self, pane: ComposerPane) -> None:
        self.pane = pane

    def run(self) -> bool:
        """Take the agent's changes into the draft: a section only one side changed takes that
        side; for each section both changed, the Lead chooses, seeing both."""
        c = self.pane.composer
        if c is None:
            return False
        self.pane.commit_section_edit()
        merged, conflicts = c.merged_with_disk()
        choices: dict[str, str] | None = None
        if conflicts:
            choices = self.choose_conflicts(conflicts)
            if choices is None:
                return False
            merged, conflicts = c.merged_with_disk(choices)
            if conflicts:
                return False
        before = c.working_text
        diff = "".join(
            difflib.unified_diff(
                before.splitlines(True), merged.splitlines(True), "your draft", "merged with disk", n=2
            )
        )
        if not self.confirm_merge(diff) or c.merge_with_disk(choices):
            return False
        # The undo steps were drafts of the old base: undoing into them would drop the agent's change.
        self.pane.undo_stack.clear()
        self.pane.refresh()
        return True

    def confirm_merge(self, diff: str) -> bool:
        """The Lead's word on what the merge takes into the draft (tests replace this)."""
        return MergeReview(self.pane, diff).exec() == QDialog.DialogCode.Accepted.value

    def choose_conflicts(self, conflicts: list[Conflict]) -> dict[str, str] | None:
        """The Lead's choice per conflicting section (tests replace this); None: cancelled."""
        dialog = MergeDialog(self.pane, conflicts)
        return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else None
