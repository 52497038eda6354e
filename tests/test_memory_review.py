"""Issue 42 (points 7 and 10): a TEAM-MEMORY entry is asked for in one dialog, not three question
boxes, and its write is reviewed as every other is: wide, the diff shown, each file listed.

Driven as the Lead does it: Ctrl+Shift+A, the section picked, the words typed, Review…, then
the review's own button."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import activate, when_modal
from ui.memory_entry_dialog import MemoryEntryDialog
from ui.review_dialog import ReviewDialog


def test_an_entry_is_asked_in_one_dialog_and_its_write_reviewed(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    w = controller.window
    activate(qtbot, w)
    reviewed: list[tuple[list[str], str]] = []

    def review(dialog: ReviewDialog) -> None:
        files = [dialog.files.item(n).text().split("\n")[0].split()[-1] for n in range(dialog.files.count())]
        reviewed.append((files, dialog.change.toPlainText()))
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    def fill(dialog: MemoryEntryDialog) -> None:
        assert not dialog.ok_button.isEnabled()  # no words yet
        dialog.role_box.setFocus()
        qtbot.keyClicks(dialog.role_box, "researcher-1")  # a combo box picks by typing
        dialog.tag_box.setFocus()
        qtbot.keyClicks(dialog.tag_box, "Warning")
        qtbot.keyClicks(dialog.text_box, "Adyen sandbox lags 2 s")
        when_modal(ReviewDialog, review)
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    when_modal(MemoryEntryDialog, fill)
    qtbot.keyClick(w, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    ((files, change),) = reviewed
    assert files == ["TEAM-MEMORY.md", ".lead-console/memory-journal.jsonl"]
    added = [line for line in change.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert len(added) == 1 and re.fullmatch(
        r"\+- \[Warning\] \d{4}-\d\d-\d\dT\d\d:\d\dZ \(relayed by Lead\) Adyen sandbox lags 2 s", added[0]
    ), added
    text = (demo_copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    assert added[0][1:] + "\n" in text
    section = text.split("## researcher-1\n", 1)[1].split("\n## ", 1)[0]
    assert added[0][1:] in section
