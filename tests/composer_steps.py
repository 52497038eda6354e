"""Steps the composer's tests take in the window, as the Lead would."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.controller import Controller
from ui.composer.pane import ComposerPane
from ui.node_model import PAYLOAD_ROLE

Q2_END = "(owner: Lead)\n"  # the end of the last item of §Open Questions
NOW_ROW = "| D-9 | Snapshots compressed with zstd | halves storage | P6 |\n"


def composer_pane(ctl: Controller) -> ComposerPane:
    return ctl.window.composer


def select_section(ctl: Controller, title: str) -> None:
    w = ctl.window
    w.sections_pane.gc_view.setCurrentIndex(w.sections_pane.gc_model.find(lambda s: s is not None and s.title == title))


def type_into_section(qtbot: QtBot, pane: ComposerPane, old: str, new: str) -> None:
    """Edit the section in the editor the way a user does, and wait for the edit to settle."""
    assert pane.composer is not None and pane.section_ref is not None
    text = pane.composer.section_text(pane.section_ref) or ""  # as the file has it: its last newline too
    assert old in text
    with qtbot.waitSignal(pane.changed, timeout=3000):
        pane.editor.setPlainText(text.replace(old, new))


def composer_items(pane: ComposerPane) -> list[tuple[str, str, str | None]]:
    model = pane.items_model
    return [(i.op, i.ref, i.key) for i, _ in (model.index(r, 0).data(PAYLOAD_ROLE) for r in range(model.rowCount()))]


def composer_modes(pane: ComposerPane) -> dict[str, str]:
    model = pane.decisions_model
    return {d.role: d.mode for d in (model.index(r, 0).data(PAYLOAD_ROLE) for r in range(model.rowCount()))}


def type_a_question(qtbot: QtBot, ctl: Controller) -> ComposerPane:
    """In the composer, at the end of the demo's Open Questions, type a new question by keys,
    as the Lead does, and wait until it can be published."""
    from PySide6.QtCore import Qt

    pane = composer_pane(ctl)
    ctl.window.central_tabs.setCurrentWidget(pane)
    select_section(ctl, "Open Questions")
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(pane.changed, timeout=5000):
        qtbot.keyClicks(pane.editor, "- Q-9: who signs the ledger export?")
    qtbot.waitUntil(pane.publish_button.isEnabled)
    return pane
