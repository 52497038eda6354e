"""View ▸ Wrap Long Lines in the Editor (Alt+Z): the composer's section editor wraps prose at
its edge, on a laptop's narrow column, and keeps the choice for the next run."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from tests.conftest import REAL_SESSIONS, activate, copy_session, shown_controller

COW = REAL_SESSIONS / "cow-pipeline-redesign"
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


def _longest_line_lines(editor: QPlainTextEdit) -> int:
    """How many lines on screen the section's longest line takes."""
    document = editor.document()
    block = max((document.findBlockByNumber(n) for n in range(document.blockCount())), key=lambda b: b.length())
    return block.layout().lineCount()


def test_the_section_editor_wraps_and_alt_z_choice_is_kept_for_the_next_run(qtbot: QtBot, tmp_path: Path) -> None:
    """Issue 42.9: at 1366×768 the editor's column is narrow, and unwrapped lines ran off its
    edge: it wraps from the first run; Alt+Z (from any pane) turns that off, and the next run
    keeps the Lead's choice."""
    folder = copy_session(COW, tmp_path / "session")
    controller = shown_controller(qtbot, tmp_path)  # 1366×768
    assert controller.open(folder)
    window = controller.window
    activate(qtbot, window)
    window.central_tabs.setCurrentWidget(window.composer)
    window.sections_pane.gc_view.setCurrentIndex(
        window.sections_pane.gc_model.index(0, 0)
    )  # Scope: lines of 100+ characters
    editor = window.composer.editor
    qtbot.waitUntil(lambda: editor.toPlainText().startswith("## Scope"))
    assert editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    qtbot.waitUntil(lambda: _longest_line_lines(editor) > 1)  # once laid out
    assert editor.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways to
    window.teammates_pane.teammate_view.setFocus()
    qtbot.keyClick(
        window.teammates_pane.teammate_view, Qt.Key.Key_Z, Qt.KeyboardModifier.AltModifier
    )  # from another pane
    qtbot.waitUntil(lambda: _longest_line_lines(editor) == 1)
    assert editor.horizontalScrollBar().maximum() > 0
    controller.close()
    window.close()

    again = shown_controller(qtbot, tmp_path)  # the same settings file
    assert again.window.composer.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap
    activate(qtbot, again.window)
    qtbot.keyClick(again.window, Qt.Key.Key_Z, Qt.KeyboardModifier.AltModifier)
    assert again.window.composer.editor.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    again.close()
