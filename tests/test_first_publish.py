"""The first publish of a session with no gc-history snapshot (every real session before it):
the Message tab shows what Publish writes. Before, the tab showed the GC's own version as a
full GC while Publish sent the next version's deltas to the teammates that confirmed it."""

from __future__ import annotations

from pathlib import Path

from composer_steps import composer_modes, select_section, type_into_section
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import CH006, actions_done, copy_session

ADDED = "- Phase 4: PENDING\n"


def test_the_message_shown_is_the_message_written(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    copy = copy_session(CH006, tmp_path)
    assert controller.open(copy)
    pane = controller.window.composer
    controller.window.central_tabs.setCurrentWidget(pane)
    # Read from the files: the GC says GC-v2, and the plan's table has architect-1 at GC-v2.
    assert "GC-v2 on disk is taken as the version teammates hold" in pane.header.text()
    assert not pane.publish_button.isEnabled()  # nothing edited: nothing to publish

    select_section(controller, "Phase Pipeline Status")
    type_into_section(qtbot, pane, "- Phase 3: IN_PROGRESS\n", "- Phase 3: IN_PROGRESS\n" + ADDED)
    shown = pane.message.toPlainText()
    assert shown.startswith("[CONTEXT-UPDATE] GC-v2 → GC-v3\n\n## Delta\n")
    assert "- ADDED §Phase Pipeline Status: Phase 4: PENDING\n" in shown
    assert composer_modes(pane)["architect-1"] == "delta"

    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    (written,) = (copy / "messages" / "outbox").glob("GC-v3-architect-1-*.md")
    assert written.read_text(encoding="utf-8") == shown
    assert (copy / "gc-history" / "GC-v3.md").read_bytes() == (copy / "global-context.md").read_bytes()
