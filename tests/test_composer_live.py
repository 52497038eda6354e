"""The composer while agents write: a publish refused when the GC changed on disk, re-plans
that follow agents' edits, and undo that keeps what an agent wrote meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest
from composer_steps import NOW_ROW, Q2_END, composer_pane, select_section, type_into_section
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import actions_done, activate
from models.publish.composer import Composer


def test_publishing_is_refused_when_the_gc_changed_on_disk(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    pane = composer_pane(controller)
    select_section(controller, "Architecture Decisions")
    type_into_section(qtbot, pane, "| P6 |\n", "| P6 |\n" + NOW_ROW)
    working = pane.composer.working_text  # type: ignore[union-attr]

    gc = demo_copy / "global-context.md"
    agent_text = gc.read_text(encoding="utf-8").replace("- Q-2:", "- Q-3: added by an agent\n- Q-2:")
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda parts: "gc" in parts):
        gc.write_text(agent_text, encoding="utf-8")
    assert "changed on disk while you were editing" in pane.banner.text()
    assert pane.composer.working_text == working  # type: ignore[union-attr]  # the Lead's edit is kept

    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    pane.session_actions.publish()
    actions_done(qtbot, controller)
    assert pane.last_error is not None and "Nothing was published" in pane.last_error
    assert "global-context.md changed on disk since the preview" in pane.last_error
    assert gc.read_text(encoding="utf-8") == agent_text  # the agent's change is not overwritten
    assert not (demo_copy / "gc-history" / "GC-v7.md").exists()
    assert not (demo_copy / "messages").exists()


def test_a_team_memory_write_does_not_replan(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan reads the GC, plan, gates and snapshots only; a memory line must not re-plan."""
    composer = controller.window.composer.composer
    assert composer is not None
    calls: list[str] = []
    original = composer.plan
    monkeypatch.setattr(composer, "plan", lambda *a, **k: calls.append("plan") or original(*a, **k))
    live = controller.live
    assert live is not None
    memory = demo_copy / "TEAM-MEMORY.md"
    with qtbot.waitSignal(live.changed, timeout=5000) as seen:
        memory.write_bytes(memory.read_bytes() + b"- [Finding] implementer-1: a line from outside\n")
    assert seen.args == [{"memory"}]
    assert calls == []
    with qtbot.waitSignal(live.changed, timeout=5000) as seen:
        plan = demo_copy / "orchestration-plan.md"
        plan.write_text(plan.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert "plan" in seen.args[0]
    assert calls == ["plan"]


def test_undoing_every_edit_takes_what_an_agent_wrote_meanwhile(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 13.2, in part: with an edit pending and an agent's change on disk, Publish is
    disabled (the tab says it would refuse); undoing the edit takes the disk's GC at once."""
    pane = composer_pane(controller)
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + "- Q-3: ours\n")
    gc = demo_copy / "global-context.md"
    theirs = gc.read_text(encoding="utf-8").replace("## Risks\n", "## Risks\n- R-new: an agent's risk\n", 1)
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda p: "gc" in p):
        gc.write_text(theirs, encoding="utf-8")
    assert "changed on disk while you were editing" in pane.banner.text()
    assert not pane.publish_button.isEnabled()
    w = controller.window
    activate(qtbot, w)
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the Lead's undo
    assert pane.composer is not None and pane.composer.working_text == theirs
    assert "changed on disk" not in pane.banner.text()
    assert pane.publish_button.isEnabled()  # the agent's change is an update to publish


def test_an_agents_gc_edit_replans_without_reading_the_whole_gc_again(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: an agent's edit inside one section re-plans from the last parses (the working
    GC's version read from its front matter, each text the diff compares read from the one
    it was made from): no full parse of the GC after the first edit. The message has the
    agent's item, and the plan and delta are those a fresh composer makes."""
    import models.session.gc_parse as gc_parse

    pane = composer_pane(controller)  # the window is not shown: the pane re-plans as when in front
    full: list[str] = []
    real = gc_parse._parse_gc
    monkeypatch.setattr(gc_parse, "_parse_gc", lambda text, *a: full.append(text[:40]) or real(text, *a))
    gc_file = demo_copy / "global-context.md"
    for n in range(3):
        full.clear()
        text = gc_file.read_text(encoding="utf-8")
        with qtbot.waitSignal(pane.changed, timeout=5000):
            gc_file.write_text(
                text.replace(Q2_END, f"{Q2_END}- **Q-{9 + n}**: asked by an agent\n", 1), encoding="utf-8"
            )
    assert full == []
    assert "- **Q-11**: asked by an agent" in pane.message.toPlainText()
    assert pane.composer is not None and pane.plan is not None and controller.live is not None
    fresh = Composer.open(controller.live.session)
    assert [(d.role, d.mode) for d in fresh.plan().decisions] == [(d.role, d.mode) for d in pane.plan.decisions]
    assert fresh.delta() == pane.composer.delta()
