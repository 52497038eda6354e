"""Issue 11 in the window: the Lead sets a teammate's state from the teammate table and the
composer's recipients follow; Start gate proposes the plan's phase, Conclude asks the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from models.session.folder import open_session
from models.session.memory_parse import parse_memory
from models.text.frontmatter import split_front_matter
from models.text.tokens import EstimateTokenizer
from ui.node_model import PAYLOAD_ROLE
from ui.widgets import is_shown


def _row_of(controller: Controller, role: str) -> int:
    model = controller.window.teammates_pane.teammate_model
    return next(r for r in range(model.rowCount()) if model.index(r, 0).data() == role)


def _modes(controller: Controller) -> dict[str, str]:
    model = controller.window.composer.decisions_model
    return {d.role: d.mode for d in (model.index(r, 0).data(PAYLOAD_ROLE) for r in range(model.rowCount()))}


def test_setting_a_state_from_the_table_changes_the_recipients(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    w = controller.window
    row = _row_of(controller, "researcher-1")
    state_column = w.teammates_pane.teammate_model.headers.index("State")
    assert w.teammates_pane.teammate_model.index(row, state_column).data() == "finished (not sent)"
    composer = w.composer.composer
    assert composer is not None and "researcher-1" not in composer.default_impact().affected
    tip = w.teammates_pane.teammate_model.index(row, state_column).data(Qt.ItemDataRole.ToolTipRole)
    assert "orchestration-plan.md line 35" in tip  # the table row that says COMPLETE
    view = w.teammates_pane.teammate_view
    rect = view.visualRect(w.teammates_pane.teammate_model.index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    action = next(a for a in view.actions() if a.text() == "Set state: active")
    asked: list[tuple[str, str]] = []

    def answer(box: QMessageBox) -> QMessageBox.StandardButton:
        asked.append((box.text(), box.informativeText()))
        return QMessageBox.StandardButton.Ok

    w.teammates_pane.confirm = answer  # type: ignore[method-assign]
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "plan" in parts):
        action.trigger()  # what the context menu's item does
    assert asked == [
        (
            "researcher-1: finished → active",
            "researcher-1 will be sent context updates again.\n\n"
            "Written to orchestration-plan.md's front matter: teammate_status: researcher-1: ACTIVE",
        )
    ]
    plan = split_front_matter((demo_copy / "orchestration-plan.md").read_text(encoding="utf-8"), "p")[0].data
    assert plan["teammate_status"]["researcher-1"] == "ACTIVE"
    assert w.teammates_pane.teammate_model.index(_row_of(controller, "researcher-1"), state_column).data() == "active"
    assert _modes(controller)["researcher-1"] == "full"  # FC-1: two versions behind, now a recipient


def test_start_gate_proposes_the_plans_phase_and_conclude_asks_the_verdict(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, object]] = []

    def get_int(parent: object, title: str, label: str, value: int, *rest: object) -> tuple[int, bool]:
        asked.append((title, value))
        return value, True

    def get_item(parent: object, title: str, label: str, items: list[str], *rest: object) -> tuple[str, bool]:
        asked.append((title, tuple(items)))
        return "CONDITIONAL_PASS", True

    def get_notes(parent: object, title: str, label: str, *rest: object) -> tuple[str, bool]:
        asked.append((title, label))
        return "  Replay must finish under 2 h before phase 7  \n", True

    monkeypatch.setattr(QInputDialog, "getInt", get_int)
    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    monkeypatch.setattr(QInputDialog, "getMultiLineText", get_notes)
    pane = controller.window.composer
    reviewed: list[str] = []
    pane.confirm = lambda box: reviewed.append(box.text()) or QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    current = open_session(demo_copy, EstimateTokenizer()).current_phase
    assert current is not None
    qtbot.mouseClick(pane.gate_button, Qt.MouseButton.LeftButton)
    assert asked == [("Start gate", current)]
    qtbot.waitUntil(lambda: bool(reviewed))  # its preview is worked out off the GUI thread
    # Start gate says what it does: the plan's change, and that updates freeze (issue 42.7).
    assert reviewed == [f"Start the gate of phase {current}? Updates freeze until it concludes."]
    qtbot.waitUntil(lambda: pane.gate_button.text() == "Conclude gate")
    with qtbot.waitSignal(pane.gateConcluded, timeout=5000) as concluded:
        qtbot.mouseClick(pane.gate_button, Qt.MouseButton.LeftButton)
    assert asked[1] == ("Conclude gate", ("APPROVED", "CONDITIONAL_PASS", "ITERATE", "REJECTED"))
    assert asked[2] == ("Conclude gate", f"Conditions or notes for phase {current}'s record (optional):")
    record = Path(concluded.args[0])
    assert record.parent.name == f"phase-{current}"
    text = record.read_text(encoding="utf-8")
    assert "result: CONDITIONAL_PASS" in text
    assert "notes: Replay must finish under 2 h before phase 7\n" in text  # the conditions kept (issue 42.3)
    assert pane.gate_button.text() == "Start gate…"


def test_the_first_entry_creates_team_memory_after_showing_it(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    memory = demo_copy / "TEAM-MEMORY.md"
    memory.unlink()
    controller.reload()
    actions = controller.window.memory_pane.memory_actions
    shown: list[str] = []
    actions.confirm = lambda title, diff: shown.append(diff) or True  # type: ignore[method-assign]
    assert actions.create_with(controller.live.session, "Lead", "Decision", "adopt this session")  # type: ignore[union-attr]
    created = parse_memory(memory.read_text(encoding="utf-8"))
    assert [s.header for s in created.sections][:2] == ["Meta", "Lead"]
    assert "implementer-3" in [s.header for s in created.sections]  # active teammates get a section
    assert "researcher-1" not in [s.header for s in created.sections]  # finished: none
    assert shown and "+## Meta" in shown[0] and "adopt this session" in shown[0]


def test_a_baseline_from_the_composer(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    import shutil

    from PySide6.QtWidgets import QMessageBox

    from conftest import CH006, actions_done

    copy = tmp_path / "ch006"
    shutil.copytree(CH006, copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert controller.open(copy)
    pane = controller.window.composer
    assert is_shown(pane.baseline_button)
    shown: list[str] = []

    def confirm(box: QMessageBox) -> QMessageBox.StandardButton:
        shown.append(box.detailedText())
        return QMessageBox.StandardButton.Ok

    pane.confirm = confirm  # type: ignore[method-assign]
    qtbot.mouseClick(pane.baseline_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    assert shown == [
        "Baseline GC-v2 writes 2 files:\n"
        "  create  gc-history/GC-v2.md  — the GC as it is, GC-v2\n"
        "  replace orchestration-plan.md  — teammate_gc_versions: architect-1 GC-v2"
    ]
    assert (copy / "gc-history" / "GC-v2.md").read_bytes() == (copy / "global-context.md").read_bytes()
    assert not is_shown(pane.baseline_button)


def test_a_state_the_lead_cancels_writes_nothing_and_says_what_it_would_have_stopped(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Finishing a teammate by a slip of the right-click menu would stop its updates: the
    Lead is told so first, and Cancel leaves the plan's bytes as they were."""
    w = controller.window
    plan = demo_copy / "orchestration-plan.md"
    before = plan.read_bytes()
    w.teammates_pane.teammate_view.setCurrentIndex(
        w.teammates_pane.teammate_model.index(_row_of(controller, "implementer-2"), 0)
    )
    asked: list[str] = []

    def cancel(box: QMessageBox) -> QMessageBox.StandardButton:
        asked.append(box.informativeText().split("\n")[0])
        return QMessageBox.StandardButton.Cancel

    w.teammates_pane.confirm = cancel  # type: ignore[method-assign]
    next(a for a in w.teammates_pane.teammate_view.actions() if a.text() == "Set state: finished").trigger()
    assert asked == ["implementer-2 will no longer be sent context updates or pinged for ACKs."]
    qtbot.wait(50)
    assert plan.read_bytes() == before
    next(a for a in w.teammates_pane.teammate_view.actions() if a.text() == "Set state: active").trigger()
    assert len(asked) == 1  # already active: nothing to ask, nothing written
    assert w.statusBar().currentMessage() == "implementer-2 is already active"
    assert plan.read_bytes() == before
