"""Issue 11: each teammate's lifecycle state, read from every shape real plans use, newest first,
with the line it came from; only active and idle teammates receive updates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.cli.main import main
from conftest import REAL_SESSIONS
from models.delta.decisions import plan_update
from models.session.folder import open_session
from models.text.tokens import EstimateTokenizer

TOK = EstimateTokenizer()

# Read by hand from each plan (file and line), not from the app's output.
EXPECTED = {
    "ch001-ldap": {"implementer-1": ("shut down", "line 16")},  # | COMPLETE → SHUTDOWN |
    "ch006-dia-v4": {"architect-1": ("active", "line 19"), "researcher-1": ("active", None)},  # | SPAWNING |
    "cow-pipeline-redesign": {
        "architect-1": ("shut down", "line 58"),  # - **architect-1:** shutdown clean
        "devils-advocate-1": ("shut down", "line 95"),
        "implementer-1": ("shut down", "line 140"),  # - **All implementers:** shutdown clean
        "implementer-2": ("shut down", "line 140"),
        "implementer-3": ("shut down", "line 140"),
    },
    "opus46-nlp-conversion": {
        "researcher-1": ("shut down", "line 16"),  # - researcher-1: SHUTDOWN (Phase 2 complete)
        "architect-1": ("shut down", "line 17"),
        "architect-2": ("shut down", "line 18"),
    },
    "skl006-delivery": {
        "researcher-1": ("shut down", "line 34"),  # PT Tracking table, Status SHUTDOWN
        "researcher-2": ("shut down", "line 35"),
        "architect-1": ("shut down", "line 36"),
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_states_of_the_real_sessions(name: str) -> None:
    mates = {m.role: m for m in open_session(REAL_SESSIONS / name, TOK).teammates()}
    for role, (state, line) in EXPECTED[name].items():
        assert mates[role].state == state, (role, mates[role].state_source)
        if line is None:
            assert mates[role].state_facts == ()
        else:
            assert f"orchestration-plan.md {line}:" in mates[role].state_source
    plan = plan_update(open_session(REAL_SESSIONS / name, TOK))
    sent_to = {d.role for d in plan.recipients}
    assert sent_to <= {r for r, (s, _) in EXPECTED[name].items() if s == "active"}


ALL_GONE = """---
gc_version: GC-v3
---
# Plan

## Phases
| Phase | Status |
|-------|--------|
| Phase 2 | COMPLETE |
| Phase 3 | ACTIVE |

## Teammate Context Versions
- researcher-1: GC-v2
- architect-1: GC-v3

## Active Teammates
(none — all shutdown after Gate 3)
"""


def test_a_none_all_line_stops_every_teammate_and_a_phase_table_names_none(tmp_path: Path) -> None:
    """skl006's "(none — all shutdown after Gate 3)" under Active Teammates, here the only
    statement of the two teammates' state (line 17); a status table of phases is no teammate."""
    (tmp_path / "orchestration-plan.md").write_text(ALL_GONE, encoding="utf-8")
    mates = {m.role: m for m in open_session(tmp_path, TOK).teammates()}
    assert sorted(mates) == ["architect-1", "researcher-1"]
    for mate in mates.values():
        assert mate.state == "shut down" and "orchestration-plan.md line 17:" in mate.state_source


PLAN = """---
gc_version: GC-v3
---
# Plan

## Teammates
| Teammate | Status | GC |
|----------|--------|----|
| implementer-1 | COMPLETE → SHUTDOWN | GC-v2 |
| Devils-Advocate-1 | ACTIVE | GC-v2 |

## Phase 7
| Name | Tasks |
|------|-------|
| implementer-1 | T-1 |

## Active Teammates
- implementer-2: Phase 7 tasks
- devils-advocate-1: reviewing

## Terminated Teammates
- researcher-1
- researcher-2: Phase 2 done, context released

## Teammate Context Versions
- researcher-3: GC-v1 (shutdown)
- tester-1: GC-v3
"""


def test_every_shape_of_statement_and_ids_in_any_case(tmp_path: Path) -> None:
    (tmp_path / "orchestration-plan.md").write_text(PLAN, encoding="utf-8")
    (tmp_path / "global-context.md").write_text("---\nversion: GC-v3\n---\n# GC\n\n## A\n- k: v\n", encoding="utf-8")
    mates = {m.role.lower(): m for m in open_session(tmp_path, TOK).teammates()}
    # One teammate for two spellings; a later table without a Status column keeps the earlier one's.
    assert sorted(mates) == [
        "devils-advocate-1",
        "implementer-1",
        "implementer-2",
        "researcher-2",
        "researcher-3",
        "tester-1",
    ]
    states = {role: m.state for role, m in mates.items()}
    assert states == {
        "devils-advocate-1": "active",
        "implementer-1": "shut down",
        "implementer-2": "active",  # under Active Teammates
        "researcher-2": "finished",  # "done" is said before the heading counts
        "researcher-3": "shut down",
        "tester-1": "active",  # no state written
    }
    assert "line 9" in mates["implementer-1"].state_source
    assert mates["tester-1"].confirmed == 3  # "- tester-1: GC-v3" under Teammate Context Versions
    modes = {d.role.lower(): d.mode for d in plan_update(open_session(tmp_path, TOK)).decisions}
    assert modes == {
        "devils-advocate-1": "full",
        "implementer-1": "inactive",
        "implementer-2": "full",
        "researcher-2": "inactive",
        "researcher-3": "inactive",
        "tester-1": "current",  # confirmed the current GC-v3
    }


def test_the_lead_sets_a_state_with_one_surgical_edit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = tmp_path / "cow"
    shutil.copytree(REAL_SESSIONS / "cow-pipeline-redesign", session)
    before = (session / "orchestration-plan.md").read_text(encoding="utf-8")
    assert main(["teammate", str(session), "Implementer-2", "--state", "active", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == [
        {
            "role": "implementer-2",
            "state": "active",
            "receives_updates": True,
            "read_from": [
                "active (orchestration-plan.md teammate_status: ACTIVE)",
                # two lines lower than before: the edit added two lines to the front matter
                "shut down (orchestration-plan.md line 142: shutdown clean, artifacts preserved)",
                "finished (orchestration-plan.md line 127: COMPLETE)",
            ],
        }
    ]
    after = (session / "orchestration-plan.md").read_text(encoding="utf-8")
    assert after.replace("teammate_status:\n  implementer-2: ACTIVE\n", "", 1) == before
    recipients = {d.role for d in plan_update(open_session(session, TOK)).recipients}
    assert recipients == {"implementer-2"}
    assert main(["teammate", str(session), "nobody-1", "--state", "active"]) == 2
    assert "no teammate nobody-1" in capsys.readouterr().err


def test_unanswered_replies_in_the_inbox_count_before_carry_out(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A NEED_CLARIFICATION ACK or a CONTEXT_LOST status waiting in the inbox is FC-5 / FC-2
    for the next update, with the message named as the reason."""
    new = demo_copy / "new.md"
    text = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    new.write_text(text.replace("version: GC-v6", "version: GC-v7") + "\n## Extra\n- Owner: lead\n", encoding="utf-8")
    inbox = demo_copy / "messages" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "implementer-1-ack.md").write_text(
        "From: implementer-1\n[ACK-UPDATE] GC-v6 received. Items: 1/2. Impact: unclear. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    (inbox / "implementer-2-status.md").write_text(
        "From: implementer-2\n[STATUS] Phase 6 | CONTEXT_LOST\n", encoding="utf-8"
    )
    assert main(["plan", str(demo_copy), "--new", str(new), "--json", "--tokenizer", "estimate"]) == 0
    decisions = {d["role"]: d for d in json.loads(capsys.readouterr().out)["teammates"]}
    one, two = decisions["implementer-1"], decisions["implementer-2"]
    assert one["mode"] == "full" and two["mode"] == "full"
    assert [c["code"] for c in one["conditions"]] == ["FC-5"]
    assert "unanswered message inbox/implementer-1-ack.md" in one["conditions"][0]["reason"]
    assert two["conditions"][0]["code"] == "FC-2"
    assert "inbox/implementer-2-status.md" in two["conditions"][0]["reason"]


def test_gates_read_leniently_and_from_the_plans_lists(tmp_path: Path) -> None:
    from models.session.gates import parse_gate

    broken = "phase: 4\ngate_result: CONDITIONAL_PASS\ncriteria: [unclosed\n"
    gate = parse_gate(broken, "phase-4/gate-record.yaml", 4)
    assert (gate.phase, gate.verdict) == (4, "CONDITIONAL_PASS")
    assert [p.message for p in gate.problems] == ["not valid YAML; the verdict was read from line 2 alone"]
    assert parse_gate("phase: 5\ngate_result: APPROVED\n", "g", 5).verdict == "APPROVED"
    # ch001's plan: "## Gate Records" lists "- Phase 1 → Phase 6: APPROVED" (line 26); phase 1 has
    # no gate-record.yaml, phase 6 has one (read by hand).
    session = open_session(REAL_SESSIONS / "ch001-ldap", TOK)
    assert [(g.phase, g.verdict, g.path) for g in session.all_gates] == [
        (1, "APPROVED", "orchestration-plan.md line 26"),
        (6, "APPROVED", "phase-6/gate-record.yaml"),
    ]
    assert open_session(REAL_SESSIONS / "ch006-dia-v4", TOK).current_phase == 3
    assert open_session(REAL_SESSIONS / "skl006-delivery", TOK).current_phase == 3  # "3 COMPLETE → Phase 4 next"


PENDING = """---
gc_version: GC-v3
---
# Plan

## Teammates
| Teammate | Status | GC |
|----------|--------|----|
| implementer-1 | ACTIVE | GC-v2 |
| implementer-2 | pending spawn | — |
| tester-1 | PENDING_SPAWN (after Phase 7) | — |
| researcher-1 | not yet spawned | — |
"""


def test_a_teammate_pending_spawn_is_sent_nothing_until_it_is_spawned(tmp_path: Path) -> None:
    """Issue 42.8: "pending spawn" named no state, so the teammate counted as active and was
    sent the full GC before it existed (FC-3). It waits, said as read, until its state is set
    (``teammate ROLE --state active``, once it is spawned)."""
    (tmp_path / "orchestration-plan.md").write_text(PENDING, encoding="utf-8")
    (tmp_path / "global-context.md").write_text("---\nversion: GC-v3\n---\n# GC\n\n## A\n- k: v\n", encoding="utf-8")
    mates = {m.role: m for m in open_session(tmp_path, TOK).teammates()}
    assert {role: m.state for role, m in mates.items()} == {
        "implementer-1": "active",
        "implementer-2": "pending",
        "tester-1": "pending",
        "researcher-1": "pending",
    }
    assert "line 10" in mates["implementer-2"].state_source  # | implementer-2 | pending spawn |
    decisions = {d.role: d for d in plan_update(open_session(tmp_path, TOK)).decisions}
    assert {role: d.mode for role, d in decisions.items()} == {
        "implementer-1": "full",  # GC-v2 confirmed, the GC is at GC-v3 with no snapshot to diff from
        "implementer-2": "inactive",
        "tester-1": "inactive",
        "researcher-1": "inactive",
    }
    assert [c.code for c in decisions["implementer-2"].conditions] == ["STATE"]
    assert main(["teammate", str(tmp_path), "implementer-2", "--state", "active"]) == 0
    after = {d.role: d.mode for d in plan_update(open_session(tmp_path, TOK)).decisions}
    assert after["implementer-2"] == "full"  # spawned: FC-3, no confirmed version yet


def test_the_window_shows_a_teammate_pending_spawn_as_not_sent(qtbot: object, tmp_path: Path) -> None:
    """The teammate table says it (State: "pending (not sent)", muted) and the composer's
    Teammates tab sends it nothing, for the reason read from the plan."""
    from pytestqt.qtbot import QtBot

    from conftest import settle_reviews, shown_controller
    from ui.teammate_model import TeammateModel

    assert isinstance(qtbot, QtBot)
    (tmp_path / "s").mkdir()
    folder = tmp_path / "s"
    (folder / "orchestration-plan.md").write_text(PENDING, encoding="utf-8")
    (folder / "global-context.md").write_text("---\nversion: GC-v3\n---\n# GC\n\n## A\n- k: v\n", encoding="utf-8")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    model = controller.window.teammates_pane.teammate_model
    states = {model.index(r, 0).data(): model.index(r, TeammateModel.STATE).data() for r in range(model.rowCount())}
    assert states == {
        "implementer-1": "active",
        "implementer-2": "pending (not sent)",
        "tester-1": "pending (not sent)",
        "researcher-1": "pending (not sent)",
    }
    controller.window.central_tabs.setCurrentWidget(controller.window.composer)  # the composer plans when shown
    decisions = controller.window.composer.decisions_model
    qtbot.waitUntil(lambda: decisions.rowCount() == 4, timeout=10_000)
    sends = {decisions.index(r, 0).data(): decisions.index(r, 1).data() for r in range(decisions.rowCount())}
    assert sends["implementer-2"] == "not sent"
    controller.close()
