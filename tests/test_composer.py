"""The composer in the window: edit, preview, force full, undo, publish, and refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from composer_steps import (
    NOW_ROW,
    Q2_END,
    composer_items,
    composer_modes,
    composer_pane,
    select_section,
    type_into_section,
)
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import actions_done, activate
from models.delta.apply import set_version
from models.text.frontmatter import split_front_matter


def test_opens_on_the_published_version_with_nothing_to_send(controller: Controller) -> None:
    pane = composer_pane(controller)
    assert "GC-v6 is published" in pane.header.text()
    assert composer_items(pane) == []
    assert not pane.publish_button.isEnabled()
    assert controller.window.central_tabs.count() == 2


def test_whole_flow_edit_preview_force_full_undo_publish(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Architecture Decisions")
    assert pane.editor_label.text() == "Editing §Architecture Decisions"
    before_gc = (demo_copy / "global-context.md").read_bytes()

    type_into_section(qtbot, pane, "| P6 |\n", "| P6 |\n" + NOW_ROW)
    assert composer_items(pane) == [("ADDED", "Architecture Decisions", "D-9")]
    assert "- ADDED §Architecture Decisions: D-9: Snapshots compressed with zstd" in pane.message.toPlainText()
    assert "composing GC-v7 · 1 item ·" in pane.header.text() and "% saved" in pane.header.text()
    assert composer_modes(pane) == {
        "implementer-1": "delta",
        "implementer-2": "delta",
        "implementer-3": "full",
        "implementer-4": "full",
        "researcher-1": "inactive",  # COMPLETE in the plan's table: not sent unless the Lead says so
    }
    assert (demo_copy / "global-context.md").read_bytes() == before_gc  # nothing on disk before Publish

    pane.item_actions.force_full_for("implementer-2", "rejoined after a long break")
    assert composer_modes(pane)["implementer-2"] == "full"
    pane.undo_stack.undo()
    assert composer_modes(pane)["implementer-2"] == "delta"
    pane.undo_stack.redo()
    assert composer_modes(pane)["implementer-2"] == "full"
    assert pane.publish_button.isEnabled()

    expected_gc = set_version(pane.composer.working_text, 7)  # type: ignore[union-attr]
    delta_message = pane.composer.message_for("implementer-1")  # type: ignore[union-attr]
    plan_before = split_front_matter((demo_copy / "orchestration-plan.md").read_text(encoding="utf-8"), "p")[0].data
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    with qtbot.waitSignal(pane.published, timeout=5000) as published:
        pane.session_actions.publish()
    written = {p.relative_to(demo_copy).as_posix() for p in published.args[0].written}

    assert (demo_copy / "global-context.md").read_text(encoding="utf-8") == expected_gc
    assert (demo_copy / "gc-history" / "GC-v7.md").read_text(encoding="utf-8") == expected_gc
    plan = split_front_matter((demo_copy / "orchestration-plan.md").read_text(encoding="utf-8"), "p")[0].data
    assert plan["gc_version"] == "GC-v7"
    assert plan["teammate_gc_versions"] == plan_before["teammate_gc_versions"]  # confirmed only by ACKs
    assert {role: entry["sent_version"] for role, entry in plan["teammate_gc_last_delta"].items()} == {
        "implementer-1": 7,
        "implementer-2": 7,
        "implementer-3": 7,
        "implementer-4": 7,
    }
    assert "- GC Version: GC-v7" in (demo_copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    outbox = {p.name.split("-2026")[0].split("-20")[0]: p for p in (demo_copy / "messages" / "outbox").iterdir()}
    assert len(outbox) == 4
    one = next(p for p in (demo_copy / "messages" / "outbox").iterdir() if "implementer-1" in p.name)
    assert one.read_text(encoding="utf-8") == delta_message
    two = next(p for p in (demo_copy / "messages" / "outbox").iterdir() if "implementer-2" in p.name)
    assert two.read_text(encoding="utf-8").startswith("[CONTEXT-UPDATE] GC-v7 (full injection)\n\n---\nversion: GC-v7")
    ledger = [json.loads(line) for line in (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()]
    assert {e["to"]: e["mode"] for e in ledger} == {
        "implementer-1": "delta",
        "implementer-2": "full",
        "implementer-3": "full",
        "implementer-4": "full",
    }
    assert next(e for e in ledger if e["to"] == "implementer-2")["forced_reason"] == "rejoined after a long break"
    assert {"global-context.md", "gc-history/GC-v7.md", "orchestration-plan.md", "TEAM-MEMORY.md"} <= written

    assert "GC-v7 is published" in pane.header.text()  # the composer starts over on the new version
    assert pane.undo_stack.count() == 0 and not pane.composer.dirty  # type: ignore[union-attr]
    assert controller.window.status_line.version.text() == "GC-v7"


def test_gate_evaluation_freezes_publishing(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: new\n")
    assert pane.publish_button.isEnabled()
    assert pane.session_actions.start_gate(6)
    actions_done(qtbot, controller)
    assert not pane.publish_button.isEnabled()
    assert "publishing is frozen until the gate concludes" in pane.banner.text()
    assert pane.gate_button.text() == "Conclude gate"
    assert set(composer_modes(pane).values()) == {"frozen", "inactive"}  # researcher-1 is finished
    text = (demo_copy / "orchestration-plan.md").read_text(encoding="utf-8")
    assert re.search(r"gate_evaluation: \{phase: 6, started: 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\}", text)
    assert pane.session_actions.conclude_gate("APPROVED")
    actions_done(qtbot, controller)
    assert (
        pane.publish_button.isEnabled() and "gate_evaluation" not in (demo_copy / "orchestration-plan.md").read_text()
    )


def test_item_edits_flags_and_undo(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Architecture Decisions")
    type_into_section(qtbot, pane, "| P6 |\n", "| P6 |\n" + NOW_ROW)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: new\n")
    assert len(composer_items(pane)) == 2
    pane.items_view.setCurrentIndex(pane.items_model.index(0, 0))
    pane.item_actions.replace_section()
    assert composer_items(pane)[0] == ("REPLACED", "Architecture Decisions", None)
    assert pane.composer.exact  # type: ignore[union-attr]
    pane.items_view.setCurrentIndex(pane.items_model.index(1, 0))
    pane.item_actions.remove_item()
    assert composer_items(pane) == [("REPLACED", "Architecture Decisions", None)]
    assert not pane.composer.exact  # type: ignore[union-attr]  # Q-3 is in the GC but not in the delta
    assert "do not reproduce the working GC" in pane.banner.text()
    assert composer_modes(pane)["implementer-1"] == "full"  # an unproven delta is never sent
    pane.undo_stack.undo()
    pane.undo_stack.undo()
    assert composer_items(pane) == [("ADDED", "Architecture Decisions", "D-9"), ("ADDED", "Open Questions", "Q-3")]
    pane.undo_stack.undo()
    pane.undo_stack.undo()
    assert composer_items(pane) == [] and not pane.composer.dirty  # type: ignore[union-attr]


def test_typing_pauses_merge_into_one_undo_step(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: a\n")
    type_into_section(qtbot, pane, "- Q-3: a", "- Q-3: ab")
    assert pane.undo_stack.count() == 1
    pane.undo_stack.undo()
    assert "Q-3" not in pane.editor.toPlainText()


def test_copy_message_and_close_prompt(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: new\n")
    text = pane.copy_message("implementer-1")
    assert text is not None and text.startswith("[CONTEXT-UPDATE] GC-v6 → GC-v7")
    assert QGuiApplication.clipboard().text() == text
    assert pane.copy_message("implementer-9") is None
    asked: list[bool] = []
    controller.window.confirm_discard = lambda: asked.append(True) or False  # type: ignore[method-assign]
    controller.window.show()
    controller.window.close()
    assert asked == [True] and controller.window.isVisible()
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]
    controller.window.close()
    assert not controller.window.isVisible()


def test_composer_models_pass_the_model_tester(
    qtbot: QtBot, controller: Controller, qtmodeltester: ModelTester
) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: new\n")
    qtmodeltester.check(pane.items_model, force_py=True)
    qtmodeltester.check(pane.decisions_model, force_py=True)


def test_every_composer_action_has_a_shortcut(controller: Controller) -> None:
    shortcuts = {a.shortcut().toString() for a in composer_pane(controller).actions()}
    for keys in (
        "Ctrl+I",
        "Ctrl+Shift+E",
        "Del",
        "Ctrl+R",
        "Ctrl+Shift+R",
        "Ctrl+Shift+F",
        "Ctrl+Shift+C",
    ):
        assert keys in shortcuts, keys
    assert composer_pane(controller).undo_action.shortcut().toString() == "Ctrl+Z"


def test_plan_front_matter_stays_parseable_after_publish(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: new\n")
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    pane.session_actions.publish()
    actions_done(qtbot, controller)
    text = (demo_copy / "orchestration-plan.md").read_text(encoding="utf-8")
    data = yaml.safe_load(text.split("---")[1])
    assert data["teammate_status"] == {"implementer-4": "CONTEXT_LOST"}
    assert (
        text.split("---", 2)[2]
        == (
            (
                Path(__file__).parent.parent
                / "resources/demo-project/.agent/teams/payments-ledger-v2/orchestration-plan.md"
            )
            .read_text(encoding="utf-8")
            .split("---", 2)[2]
        )
    )  # the Markdown body is untouched


def test_copy_message_by_its_button_and_its_key_copies_the_selected_teammates(
    qtbot: QtBot, controller: Controller
) -> None:
    """The Teammates tab's row chosen, Copy message clicked, then Ctrl+Shift+C typed: both put
    that teammate's [CONTEXT-UPDATE] on the clipboard (the button passed Qt's ``checked`` as the
    role, and copied nothing)."""
    pane = composer_pane(controller)
    activate(qtbot, controller.window)
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: copied\n")
    pane.preview_tabs.setCurrentIndex(1)  # the Teammates tab
    model = pane.decisions_model
    # implementer-2 follows Open Questions (the demo's subscriptions.yaml); implementer-1 does not.
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-2")
    pane.decisions_view.setCurrentIndex(model.index(row, 0))
    QGuiApplication.clipboard().setText("before")
    button = next(b for b in pane.findChildren(QPushButton) if b.text() == "Copy message")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("[CONTEXT-UPDATE] GC-v6 → GC-v7\n") and "- ADDED §Open Questions: Q-3: copied" in copied
    QGuiApplication.clipboard().setText("before")
    pane.decisions_view.setFocus()
    qtbot.keyClick(
        pane.decisions_view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert QGuiApplication.clipboard().text() == copied


def test_tab_in_the_section_editor_moves_on_and_leaves_the_gc_as_it_was(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    activate(qtbot, controller.window)
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    working = pane.composer.working_text  # type: ignore[union-attr]
    pane.editor.setFocus()
    qtbot.waitUntil(pane.editor.hasFocus)
    qtbot.keyClick(pane.editor, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: not pane.editor.hasFocus())
    assert "\t" not in pane.editor.toPlainText()
    assert pane.composer.working_text == working  # type: ignore[union-attr]


def test_rendered_preview_and_copy_from_the_teammate_table(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: rendered <b>safely</b>\n")
    rendered = pane.rendered.toPlainText()
    assert "Q-3: rendered <b>safely</b>" in rendered  # raw HTML shown as text
    w = controller.window
    row = next(
        r
        for r in range(w.teammates_pane.teammate_model.rowCount())
        if w.teammates_pane.teammate_model.index(r, 0).data() == "implementer-1"
    )
    w.teammates_pane.teammate_view.setCurrentIndex(w.teammates_pane.teammate_model.index(row, 0))
    text = w._copy_teammate_message()
    # implementer-1 does not follow Open Questions (the demo's subscriptions.yaml): a bump.
    assert text == "[CONTEXT-UPDATE] GC-v6 → GC-v7 | Delta: nothing in your sections | Impact: NONE\n"
    assert QGuiApplication.clipboard().text() == text
    row = next(
        r
        for r in range(w.teammates_pane.teammate_model.rowCount())
        if w.teammates_pane.teammate_model.index(r, 0).data() == "researcher-1"
    )
    w.teammates_pane.teammate_view.setCurrentIndex(w.teammates_pane.teammate_model.index(row, 0))
    assert w._copy_teammate_message() is None  # finished (COMPLETE): no update is due


def test_focus_shortcuts_for_keyboard_only_use(controller: Controller) -> None:
    pane_keys = {a.shortcut().toString() for a in composer_pane(controller).actions()}
    assert {"Ctrl+E", "Ctrl+L"} <= pane_keys
    window_keys = {
        a.shortcut().toString() for m in controller.window.menuBar().actions() if m.menu() for a in m.menu().actions()
    }
    assert {"Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+Shift+U", "Ctrl+Z", "Ctrl+O", "F5"} <= window_keys
    assert {"Ctrl+G", "Ctrl+Shift+P", "Ctrl+Shift+V", "Ctrl+Return"} <= window_keys  # the Session menu


def test_session_keys_work_from_any_pane(qtbot: QtBot, controller: Controller) -> None:
    """Issue 13.5: Ctrl+Shift+P, Ctrl+G, Ctrl+Shift+V and Ctrl+Return act wherever the focus is,
    and bring the composer or the Inbox forward."""
    w = controller.window
    activate(qtbot, w)  # keys go to the active window
    done: list[str] = []
    w.composer.session_actions.publish = lambda: done.append("publish")  # type: ignore[method-assign]
    w.composer.session_actions.toggle_gate = lambda: done.append("gate")  # type: ignore[method-assign]
    w.review_pane._paste = lambda: done.append("paste")  # type: ignore[method-assign]
    w.review_pane._carry = lambda: done.append("carry")  # type: ignore[method-assign]
    w.central_tabs.setCurrentIndex(0)  # the Section tab: the composer is hidden
    w.memory_pane.memory_view.setFocus()
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(w.memory_pane.memory_view, Qt.Key.Key_P, ctrl | shift)
    assert done == ["publish"] and w.central_tabs.currentWidget() is w.composer
    w.sections_pane.gc_view.setFocus()
    qtbot.keyClick(w.sections_pane.gc_view, Qt.Key.Key_G, ctrl)
    w.gates_dock.raise_()  # the Inbox behind the Gates tab
    qtbot.keyClick(w.sections_pane.gc_view, Qt.Key.Key_V, ctrl | shift)
    qtbot.keyClick(w.sections_pane.gc_view, Qt.Key.Key_Return, ctrl)
    assert done == ["publish", "gate", "paste", "carry"]
    assert not w.inbox_dock.visibleRegion().isEmpty()


def test_with_nothing_to_publish_the_message_tab_holds_no_message(controller: Controller) -> None:
    """No "[CONTEXT-UPDATE] GC-v6 → GC-v6 (no change)" that nobody will be sent: the header
    says that GC-v6 is published and what editing it composes."""
    pane = controller.window.composer
    assert pane.composer is not None and not pane.composer.has_update
    assert pane.message.toPlainText() == ""
    assert pane.header.text() == "GC-v6 is published; edit the GC to compose GC-v7"


def test_a_row_typed_after_the_editors_last_line_stays_in_its_section(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 13.1 and 42.10: Ctrl+End, Return and a table row change this section only, as an
    added row. The editor showed the section's closing newline as an empty last line, where a
    row typed glued the next heading to it (REMOVED §Interface Contracts), and Return there put
    a blank line in that turned an added item into the whole section REPLACED."""
    pane = composer_pane(controller)
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Architecture Decisions")
    editor = pane.editor
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert not editor.toPlainText().endswith("\n")  # no empty line below the last row
    row = "| D-9 | Snapshots compressed with zstd | Halves snapshot storage | P6 |"
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    with qtbot.waitSignal(pane.changed, timeout=3000):
        qtbot.keyClicks(editor, row)
    assert composer_items(pane) == [("ADDED", "Architecture Decisions", "D-9")]
    working = pane.composer.working_text  # type: ignore[union-attr]
    disk = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    before, after = disk.split("## Architecture Decisions", 1)[0], disk.split("## Interface Contracts", 1)[1]
    assert working.startswith(before) and working.endswith("## Interface Contracts" + after)
    own = working.split("## Architecture Decisions", 1)[1].split("## Interface Contracts", 1)[0]
    old_own = disk.split("## Architecture Decisions", 1)[1].split("## Interface Contracts", 1)[0]
    assert own == old_own.rstrip("\n") + "\n" + row + old_own[len(old_own.rstrip("\n")) :]


def test_a_heading_that_would_split_the_section_is_refused(qtbot: QtBot, controller: Controller) -> None:
    pane = composer_pane(controller)
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    working = pane.composer.working_text  # type: ignore[union-attr]
    editor = pane.editor
    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "## Sneaky Neighbour")
    qtbot.waitUntil(lambda: pane.last_error is not None, timeout=3000)
    assert "would start a section next to §Open Questions" in (pane.last_error or "")
    assert pane.composer.working_text == working  # type: ignore[union-attr]
    qtbot.keyClicks(editor, "x")  # a subsection is fine: make it ### instead
    text = editor.toPlainText().replace("## Sneaky Neighbourx", "### Sneaky Subsection")
    with qtbot.waitSignal(pane.changed, timeout=3000):
        editor.setPlainText(text)
    assert "### Sneaky Subsection\n" in pane.composer.working_text  # type: ignore[union-attr]


def test_a_very_long_message_is_shown_cut_and_copied_whole() -> None:
    """The Message tab shows at most ``MESSAGE_SHOWN`` characters, cut at a line end, and says
    how many lines are left out (counted here from the message's own lines); a short message
    is shown as it is."""
    from ui.composer.header import MESSAGE_SHOWN, shown_message

    short = "[CONTEXT-UPDATE] GC-v6 → GC-v7\n\n## Delta\n- (no change)\n"
    assert shown_message(short) == short
    lines = [f"- item-{n}: a line of the full GC — {n}\n" for n in range(20_000)]
    message = "".join(lines)
    assert len(message) > MESSAGE_SHOWN
    shown = shown_message(message)
    kept = shown.splitlines(keepends=True)[:-1]
    assert kept == lines[: len(kept)] and len("".join(kept)) <= MESSAGE_SHOWN
    assert shown.splitlines()[-1] == f"… {len(lines) - len(kept):,} more lines: Copy message copies the whole message"


def test_a_message_shown_from_its_header_and_the_gc_is_the_joined_message_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The full GC is shown from its header and its text without joining them; what is shown
    is what the joined message shows, for every split, length and line end (a short limit, so
    that the cut falls in the header, in the GC, at a line end and inside a line)."""
    import random

    import ui.composer.header as header

    monkeypatch.setattr(header, "MESSAGE_SHOWN", 40)
    rng = random.Random(18)
    for _ in range(400):
        whole = "".join(rng.choice(["ab", "\n", "— ", "x" * rng.randrange(30)]) for _ in range(rng.randrange(40)))
        at = rng.randrange(len(whole) + 1)
        assert header.shown_message(whole[:at], whole[at:]) == header.shown_message(whole), (whole, at)


def test_the_affected_list_shows_its_first_names_in_a_narrow_column(qtbot: QtBot, tmp_path: Path) -> None:
    """At 1366×768 the Affected box is about 150 pixels wide: after an edit it showed the end
    of the list ("…menter-3, implementer-4"), the cursor left where setting the text puts it."""
    from conftest import DEMO, copy_session, shown_controller

    controller = shown_controller(qtbot, tmp_path)
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    window = controller.window
    window.central_tabs.setCurrentWidget(window.composer)
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: who signs off the cut-over? (owner: Lead)\n")
    names = pane.affected.text()
    assert (
        names.startswith("implementer-1, ")
        and pane.affected.fontMetrics().horizontalAdvance(names) > pane.affected.width()
    )
    assert pane.affected.cursorPosition() == 0  # the start in sight
    controller.close()


def test_return_or_a_double_click_on_a_teammate_shows_what_it_is_sent_and_why(
    qtbot: QtBot, controller: Controller
) -> None:
    """In the teammate table, Return (or a double-click) on implementer-3 brings the composer
    forward on its Teammates tab, implementer-3's row current: the full GC, for FC-1 (it
    confirmed GC-v5, two versions behind the GC-v7 being composed: the demo's plan)."""
    from conftest import activate

    pane = composer_pane(controller)
    select_section(controller, "Architecture Decisions")
    type_into_section(qtbot, pane, "| P6 |\n", "| P6 |\n" + NOW_ROW)
    w = controller.window
    w.central_tabs.setCurrentIndex(0)  # the Section preview in front
    activate(qtbot, w)
    table = w.teammates_pane.teammate_view
    model = w.teammates_pane.teammate_model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-3")
    table.setFocus()
    table.setCurrentIndex(model.index(row, 0))
    qtbot.keyClick(table, Qt.Key.Key_Return)
    assert w.central_tabs.currentWidget() is pane
    assert pane.preview_tabs.tabText(pane.preview_tabs.currentIndex()) == "Teammates"
    current = pane.decisions_view.currentIndex()
    assert current.siblingAtColumn(0).data() == "implementer-3"
    assert current.siblingAtColumn(1).data() == "full, 9 §"  # the nine sections it follows, in full
    assert current.siblingAtColumn(3).data().startswith("FC-1")
    # A double-click on another row does the same for it.
    w.central_tabs.setCurrentIndex(0)
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-1")
    rect = table.visualRect(model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert w.central_tabs.currentWidget() is pane
    assert pane.decisions_view.currentIndex().siblingAtColumn(0).data() == "implementer-1"
    assert pane.decisions_view.currentIndex().siblingAtColumn(1).data() == "delta"
