"""Issue 42.7: every write is reviewed before it happens, as a git GUI reviews a commit: Carry out
(which wrote the plan, the outbox and the ledger on one key with no question) and Publish show
one wide dialog listing every file and inbox entry with its change; Cancel writes nothing.
Driven as a person would: the real buttons clicked, the dialog's own OK and Cancel pressed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from composer_steps import type_a_question
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import report_lost_context, session_files, settle_reviews
from ui.review_dialog import ReviewDialog


def answer_review(qtbot: QtBot, accept: bool, seen: list[ReviewDialog], look: Callable[[ReviewDialog], None]) -> None:
    """Once the review is up (it blocks in exec), look at it and press its OK or Cancel."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ReviewDialog):
            QTimer.singleShot(20, poll)
            return
        seen.append(dialog)
        look(dialog)
        which = QDialogButtonBox.StandardButton.Ok if accept else QDialogButtonBox.StandardButton.Cancel
        qtbot.mouseClick(dialog.buttons.button(which), Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, poll)


def _lost_context_row(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    report_lost_context(qtbot, controller, demo_copy)
    pane = controller.window.review_pane
    row = next(r for r in range(pane.model.rowCount()) if pane.model.index(r, 0).data() == "implementer-3")
    pane.view.setCurrentIndex(pane.model.index(row, 0))


def _listed(dialog: ReviewDialog) -> list[str]:
    return [dialog.files.item(n).text().split("\n")[0].split()[-1] for n in range(dialog.files.count())]


def test_carry_out_shows_every_file_it_writes_and_cancel_writes_nothing(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    del controller.inbox.review_write  # the fixture's yes: the real dialog here
    _lost_context_row(qtbot, controller, demo_copy)
    before = session_files(demo_copy)
    seen: list[ReviewDialog] = []
    looked: dict[str, object] = {}

    def look(dialog: ReviewDialog) -> None:
        looked["files"] = _listed(dialog)
        dialog.files.setCurrentRow(1)  # the plan: its change as a diff
        looked["change"] = dialog.change.toPlainText()
        looked["size"] = (dialog.width(), dialog.height())

    answer_review(qtbot, False, seen, look)
    qtbot.mouseClick(controller.window.review_pane.carry_button, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    assert seen, "no review was shown"
    files = looked["files"]
    assert isinstance(files, list) and files[0].startswith("messages/outbox/GC-v6-implementer-3-full-")
    assert files[1:] == ["orchestration-plan.md", "messages/ledger.jsonl"]
    change = str(looked["change"])
    assert change.startswith("--- a/orchestration-plan.md\n+++ b/orchestration-plan.md\n@@")
    width, height = looked["size"]  # type: ignore[misc]
    assert width <= 1366 - 60 and height <= 768 - 60
    assert session_files(demo_copy) == before  # cancelled: nothing written

    answer_review(qtbot, True, seen, lambda dialog: None)
    qtbot.mouseClick(controller.window.review_pane.carry_button, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    assert len(seen) == 2
    assert list((demo_copy / "messages" / "outbox").glob("GC-v6-implementer-3-full-*.md"))


def test_publish_lists_each_write_with_its_diff_and_cancel_writes_nothing(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    pane = type_a_question(qtbot, controller)
    before = session_files(demo_copy)
    seen: list[ReviewDialog] = []
    looked: dict[str, str] = {}

    def look(dialog: ReviewDialog) -> None:
        looked["files"] = "\n".join(_listed(dialog))
        row = next(
            n for n in range(dialog.files.count()) if dialog.files.item(n).text().split()[1] == "global-context.md"
        )
        dialog.files.setCurrentRow(row)
        looked["gc"] = dialog.change.toPlainText()
        looked["notes"] = dialog.notes.text()

    answer_review(qtbot, False, seen, look)
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(seen))  # its preview is worked out off the GUI thread
    listed = looked["files"].splitlines()
    assert "global-context.md" in listed and "orchestration-plan.md" in listed and "messages/ledger.jsonl" in listed
    assert any(name.startswith("gc-history/GC-v7") for name in listed)
    assert looked["gc"].startswith("--- a/global-context.md\n+++ b/global-context.md\n@@")
    assert "-version: GC-v6" in looked["gc"] and "+version: GC-v7" in looked["gc"]
    assert "implementer-3: full (FC-1" in looked["notes"]
    assert session_files(demo_copy) == before
