"""Forms of real plans and phase folders the app misread (issue 44), each in a file written here
by hand in that shape (not a copy of a real one), with what a person reads in it.

- a "Teammate History" table whose Status column says SHUTDOWN, its teammate column second;
- a "Terminated Teammates" table (name, reason, date) with no Status column, under a plan whose
  "Active Teammates" table says "(all slots empty)";
- a file-ownership bullet, ``- implementer-batch2 owns: a.md, b.md (COMPLETE)``: prose about a
  teammate, which named a teammate "implementer-batch2 owns" (a role id never holds a space);
- gate records beside a phase's first: ``gate-record-revision.yaml`` (``phase: 3-revision``) and
  ``gate-record-2.yaml``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from models.delta.decisions import plan_update
from models.session.folder import open_session
from models.text.tokens import get_tokenizer

GC = """---
version: GC-v3
---
# Global Context

## Scope
- Rewrite the billing exporter.
"""

HISTORY = """---
gc_version: GC-v3
---
# Orchestration Plan

## Teammate History
| Phase | Teammate | Task | Status |
|-------|----------|------|--------|
| 1 | researcher-1 | survey the exporters | SHUTDOWN |
| 2 | implementer-1 | the CSV writer | SHUTDOWN |
| 3 | implementer-2 | the S3 upload | ACTIVE |
"""

TERMINATED = """---
gc_version: GC-v3
---
# Orchestration Plan

## Active Teammates
| Teammate | Task | Since |
|----------|------|-------|
| (all slots empty) | | |

## Terminated Teammates
| Name | Reason | Date |
|------|--------|------|
| implementer-3 | context budget exhausted | 2026-11-20 |
| tester-1 | replaced by tester-2 | 2026-11-21 |

## File Ownership
- implementer-batch2 owns: a.md, b.md (COMPLETE)
"""


def _session(root: Path, plan: str) -> Path:
    folder = root / ".agent" / "teams" / "billing"
    folder.mkdir(parents=True)
    (folder / "global-context.md").write_text(GC, encoding="utf-8")
    (folder / "orchestration-plan.md").write_text(plan, encoding="utf-8")
    return folder


def _states(folder: Path) -> dict[str, tuple[str, str]]:
    session = open_session(folder, get_tokenizer("estimate"))
    return {m.role: (m.state, m.state_source) for m in session.teammates()}


def test_a_teammate_history_table_shuts_down_whom_its_status_column_says(tmp_path: Path) -> None:
    folder = _session(tmp_path, HISTORY)
    states = _states(folder)
    assert states["researcher-1"][0] == "shut down"
    assert "orchestration-plan.md line 9: SHUTDOWN" in states["researcher-1"][1]
    assert states["implementer-1"][0] == "shut down"
    assert "orchestration-plan.md line 10" in states["implementer-1"][1]
    assert states["implementer-2"][0] == "active"
    plan = plan_update(open_session(folder, get_tokenizer("estimate")), GC.replace("billing", "billing v2"))
    modes = {d.role: d.mode for d in plan.decisions}
    assert modes["researcher-1"] == modes["implementer-1"] == "inactive"  # no update for the ended
    assert modes["implementer-2"] == "full"  # no confirmed version: FC-3


def test_a_terminated_teammates_table_without_a_status_column_ends_whom_it_lists(tmp_path: Path) -> None:
    folder = _session(tmp_path, TERMINATED)
    states = _states(folder)
    assert set(states) == {"implementer-3", "tester-1"}  # not "(all slots empty)", not "implementer-batch2 owns"
    assert states["implementer-3"][0] == "shut down"
    assert (
        "orchestration-plan.md line 14: implementer-3 | context budget exhausted | 2026-11-20"
        in states["implementer-3"][1]
    )
    assert states["tester-1"][0] == "shut down"
    plan = plan_update(open_session(folder, get_tokenizer("estimate")), GC.replace("billing", "billing v2"))
    assert {d.role: d.mode for d in plan.decisions} == {"implementer-3": "inactive", "tester-1": "inactive"}


def test_prose_about_a_teammate_names_no_teammate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _session(tmp_path, TERMINATED)
    code, out, _ = run_cli(capsys, "inspect", str(folder), "--json")
    assert code == 0
    roles = [t["role"] for t in json.loads(out)["teammates"]]
    assert roles == ["implementer-3", "tester-1"]
    assert not any(" " in role for role in roles)


GATE_FIRST = "phase: 3\nresult: ITERATE\ndate: 2026-11-18\n"
GATE_REVISION = "phase: 3-revision\nresult: APPROVED\ndate: 2026-11-20\nnotes: re-approved after the revision\n"
GATE_SECOND = "phase: 4\nresult: CONDITIONAL_PASS\ndate: 2026-11-22\n"


def test_every_gate_record_of_a_phase_is_read_with_where_it_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _session(tmp_path, HISTORY)
    (folder / "phase-3").mkdir()
    (folder / "phase-3" / "gate-record.yaml").write_text(GATE_FIRST, encoding="utf-8")
    (folder / "phase-3" / "gate-record-revision.yaml").write_text(GATE_REVISION, encoding="utf-8")
    (folder / "phase-4").mkdir()
    (folder / "phase-4" / "gate-record.yaml").write_text(
        "phase: 4\nresult: ITERATE\ndate: 2026-11-21\n", encoding="utf-8"
    )
    (folder / "phase-4" / "gate-record-2.yaml").write_text(GATE_SECOND, encoding="utf-8")
    code, out, _ = run_cli(capsys, "inspect", str(folder), "--json")
    assert code == 0
    gates = [(g["phase"], g["verdict"], g["read_from"]) for g in json.loads(out)["gates"]]
    assert gates == [
        (3, "ITERATE", "phase-3/gate-record.yaml"),
        (3, "APPROVED", "phase-3/gate-record-revision.yaml"),  # "3-revision": the folder's phase
        (4, "ITERATE", "phase-4/gate-record.yaml"),
        (4, "CONDITIONAL_PASS", "phase-4/gate-record-2.yaml"),
    ]


def test_the_gates_pane_lists_every_record_and_a_concluded_gate_at_once(
    qtbot: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each record in its own row with the file it was read from; a gate concluded from the
    composer is in the pane as soon as it is written (before, only after F5)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QInputDialog, QMessageBox
    from pytestqt.qtbot import QtBot

    from conftest import actions_done, settle_reviews, shown_controller

    assert isinstance(qtbot, QtBot)
    folder = _session(tmp_path, HISTORY.replace("gc_version: GC-v3\n", "gc_version: GC-v3\ncurrent_phase: 3\n"))
    (folder / "phase-3").mkdir()
    (folder / "phase-3" / "gate-record.yaml").write_text(GATE_FIRST, encoding="utf-8")
    (folder / "phase-3" / "gate-record-revision.yaml").write_text(GATE_REVISION, encoding="utf-8")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    model = controller.window.gates_pane.gate_model

    def rows() -> list[tuple[str, ...]]:
        return [tuple(str(model.index(r, c).data()) for c in (0, 1, 4)) for r in range(model.rowCount())]

    assert rows() == [  # each named by its file in its phase's folder; the whole path in its tooltip
        ("3", "ITERATE", "gate-record.yaml"),
        ("3", "APPROVED", "gate-record-revision.yaml"),
    ]
    assert "phase-3/gate-record-revision.yaml" in str(model.index(1, 4).data(Qt.ItemDataRole.ToolTipRole))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args: (4, True))
    monkeypatch.setattr(QInputDialog, "getItem", lambda *args: ("APPROVED", True))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *args: ("", True))  # no notes
    pane = controller.window.composer
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    qtbot.mouseClick(pane.gate_button, Qt.MouseButton.LeftButton)  # Start gate…, phase 4
    actions_done(qtbot, controller)
    qtbot.mouseClick(pane.gate_button, Qt.MouseButton.LeftButton)  # Conclude gate, APPROVED
    actions_done(qtbot, controller)
    assert rows()[-1] == ("4", "APPROVED", "gate-record.yaml")
    assert controller.window.statusBar().currentMessage() == (
        "Conclude the gate of phase 4: APPROVED: wrote phase-4/gate-record.yaml, orchestration-plan.md"
    )


def test_start_gate_proposes_the_phase_after_the_last_verdict_and_warns_of_one_already_given(
    qtbot: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42.3: on a plan without current_phase, Start gate proposed phase 1, and it did not
    say that the phase chosen already had a verdict."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QInputDialog, QMessageBox
    from pytestqt.qtbot import QtBot

    from conftest import actions_done, settle_reviews, shown_controller

    assert isinstance(qtbot, QtBot)
    folder = _session(tmp_path, HISTORY)  # no current_phase
    (folder / "phase-3").mkdir()
    (folder / "phase-3" / "gate-record.yaml").write_text(GATE_FIRST, encoding="utf-8")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)  # the open's workers done before the test ends
    pane = controller.window.composer
    proposed: list[int] = []

    def get_int(parent: object, title: str, label: str, value: int, *rest: object) -> tuple[int, bool]:
        proposed.append(value)
        return 3, True  # the Lead types 3 again

    monkeypatch.setattr(QInputDialog, "getInt", get_int)
    warned: list[str] = []
    pane.confirm = lambda box: warned.append(box.text()) or QMessageBox.StandardButton.Cancel  # type: ignore[method-assign]
    qtbot.mouseClick(pane.gate_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    assert proposed == [4]  # after phase 3's record
    assert warned == [
        "Phase 3 already has a verdict: ITERATE (phase-3/gate-record.yaml).\n"
        "Start the gate of phase 3? Updates freeze until it concludes."
    ]
    assert "gate_evaluation" not in (folder / "orchestration-plan.md").read_text(encoding="utf-8")  # cancelled
    settle_reviews(qtbot, controller)


PEOPLE = """---
gc_version: GC-v3
teammate_gc_versions:
  implementer-1: 3
---
# Orchestration Plan

## People
| Name | Role | Status |
|------|------|--------|
| Lead | orchestration | ACTIVE |
| implementer-1 | the CSV writer | ACTIVE |

- **Lead:** coordinating the gate
"""


def test_the_lead_listed_among_the_people_is_no_teammate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42.8: a plan that lists "Lead" among its people made the Lead a teammate, sent
    updates, and its first TEAM-MEMORY entry wrote a second ``## Lead`` section."""
    folder = _session(tmp_path, PEOPLE)
    assert list(_states(folder)) == ["implementer-1"]
    code, _, _ = run_cli(capsys, "memory", "add", str(folder), "--role", "Lead", "--tag", "Decision", "CSV first")
    assert code == 0
    memory = (folder / "TEAM-MEMORY.md").read_text(encoding="utf-8")
    assert memory.count("\n## Lead\n") == 1 and "## implementer-1\n" in memory


def test_gate_conclude_keeps_the_leads_conditions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _session(tmp_path, HISTORY)
    assert run_cli(capsys, "gate", "start", str(folder), "--phase", "2")[0] == 0
    code, _, _ = run_cli(
        capsys, "gate", "conclude", str(folder), "--verdict", "conditional_pass", "--notes", "S3 upload retried"
    )
    assert code == 0
    record = (folder / "phase-2" / "gate-record.yaml").read_text(encoding="utf-8")
    assert "result: CONDITIONAL_PASS\n" in record and "notes: S3 upload retried\n" in record
