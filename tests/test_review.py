"""End to end on a copy of the demo: publish, receive ACKs from every inbox, validate, act."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.cli.main import main
from conftest import CLAUDE_TEAM, demo_follows, role_full
from models.actions.carry import prepare_carry_out
from models.actions.commit import commit
from models.actions.publish import prepare_publish
from models.delta.decisions import plan_update
from models.publish.composer import Composer
from models.review.actions import plan_edit
from models.review.inbox import Message, read_claude_team, read_inbox
from models.review.ledger import read_ledger, record_received
from models.review.validation import due_pings, review
from models.session.folder import open_session
from models.text.tokens import get_tokenizer

TOK = get_tokenizer("estimate")


def _publish_v7(folder: Path, rows: str = "| D-9 | zstd | smaller | P6 |\n") -> None:
    """Publish GC-v7: the demo's v6 with ``rows`` added to Architecture Decisions' table."""
    session = open_session(folder, TOK)
    composer = Composer.open(session)
    composer.working_text = composer.working_text.replace("| P6 |\n", "| P6 |\n" + rows, 1)
    commit(prepare_publish(composer, now="2026-11-22T03:00:00Z"))


@pytest.fixture
def published(demo_copy: Path) -> Path:
    _publish_v7(demo_copy)
    return demo_copy


def test_acks_from_the_inbox_confirm_versions_and_shape_the_next_update(published: Path) -> None:
    inbox = published / "messages" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "implementer-1-ack.md").write_text(
        "[ACK-UPDATE] GC-v7 received.\n- Delta items applied: 1/1\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: none\n",
        encoding="utf-8",
    )
    (inbox / "implementer-2-ack.md").write_text(
        "[ACK-UPDATE] GC-v7 received. Items: 0/1. Impact: unsure. Action: NEED_CLARIFICATION\nUnclear items: §Architecture Decisions.D-9\n",
        encoding="utf-8",
    )
    (inbox / "note.md").write_text(
        "From: implementer-4\n[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v7\n", encoding="utf-8"
    )
    session = open_session(published, TOK)
    roles = [t.role for t in session.teammates()]
    messages = read_inbox(published, roles)
    assert [(m.sender, m.kind) for m in messages] == [
        ("implementer-1", "ack"),
        ("implementer-2", "ack"),
        ("implementer-4", "status"),
    ]
    assert len(record_received(published, messages)) == 3
    assert record_received(published, messages) == []  # recorded once
    reviews = {m.sender: review(m, session) for m in messages}
    assert reviews["implementer-1"].action == "confirm" and reviews["implementer-1"].problems == []
    assert reviews["implementer-2"].action == "full"  # 1 of 1 unclear: more than half
    assert reviews["implementer-4"].action == "confirm" and reviews["implementer-4"].confirm_version == 7
    for r in reviews.values():
        commit(prepare_carry_out(session, r))
        session.reload({"plan"})
    late = review(Message("late", "implementer-1", "[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v7", None), session)
    assert late.action == "none" and "already confirmed" in late.summary
    downgrade = reviews["implementer-1"]
    downgrade.confirm_version = 5
    assert plan_edit(session, downgrade) is None  # confirmed versions never go back
    assert session.plan is not None
    assert session.plan.teammate_gc_versions["implementer-1"] == 7
    assert session.plan.teammate_gc_versions["implementer-4"] == 7
    assert session.plan.teammate_gc_versions["implementer-2"] == 6  # not confirmed
    assert session.plan.teammate_status == {"implementer-4": "CONTEXT_RECEIVED", "implementer-2": "NEED_CLARIFICATION"}
    v8 = (published / "global-context.md").read_text(encoding="utf-8").replace("version: GC-v7", "version: GC-v8")
    v8 = v8.replace("- Q-2:", "- Q-3: next\n- Q-2:")
    modes = {
        d.role: (d.mode, [c.code for c in d.conditions])
        for d in plan_update(open_session(published, TOK), v8).decisions
    }
    assert modes["implementer-1"] == ("delta", [])
    assert modes["implementer-4"] == ("delta", [])  # FC-2 is over: the full injection was confirmed
    assert modes["implementer-2"] == ("full", ["FC-1", "FC-5"])


def test_claude_code_team_inbox_is_read_and_never_written(published: Path, tmp_path: Path) -> None:
    team = tmp_path / "cow-execution"
    shutil.copytree(CLAUDE_TEAM, team)
    before = {p: p.read_bytes() for p in team.rglob("*") if p.is_file()}
    members, messages, problems = read_claude_team(team)
    assert members == ["team-lead", "implementer-1", "implementer-2", "implementer-3"] and problems == []
    assert [m.kind for m in messages] == ["status", "protocol", "ack", "ack", "status", "delta_report"]
    session = open_session(published, TOK)
    results = [review(m, session) for m in messages]
    assert results[1].summary.startswith("Claude Code protocol message")
    old_received = results[0]  # implementer-1: CONTEXT_RECEIVED GC-v5, long before GC-v7 was sent
    assert old_received.action == "none" and old_received.problems == ["stale: received GC-v5, GC-v7 was sent since"]
    ack = results[2]  # implementer-1 ACKs GC-v6, but GC-v7 was sent since
    assert any(p.startswith("stale ACK: for GC-v6, GC-v7 was sent since") for p in ack.problems)
    assert ack.action != "confirm"
    assert results[4].action == "lost" and "FC-2" in results[4].summary
    assert results[5].report is not None and not results[5].report.attention
    record_received(published, messages)
    assert sum(1 for e in read_ledger(published) if e["direction"] == "received") == 6
    assert {p: p.read_bytes() for p in team.rglob("*") if p.is_file()} == before


def test_count_mismatch_unknown_refs_and_pings(published: Path) -> None:
    session = open_session(published, TOK)
    text = "[ACK-UPDATE] GC-v7 received.\n- Delta items applied: 3/3\n- Impact on my work: NONE\n- Action taken: CONTINUE\n- Unclear items: §Nowhere"
    result = review(Message("pasted", "implementer-1", text, None), session)
    assert "says 3 items, 1 were sent" in result.problems and "unknown §refs: §Nowhere" in result.problems
    assert result.action != "confirm"
    later = datetime(2026, 11, 22, 3, 0, tzinfo=UTC) + timedelta(minutes=11)
    assert set(due_pings(session, later)) == {
        "implementer-1",
        "implementer-2",
        "implementer-3",
        "implementer-4",
    }
    assert due_pings(session, later - timedelta(minutes=2)) == {}


def test_cli_ack(published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ack = tmp_path / "ack.txt"
    ack.write_text("[ACK-UPDATE] GC-v7 received. Items: 1/1. Impact: none. Action: CONTINUE", encoding="utf-8")
    assert main(["ack", str(ack), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "ack" and data["fields"]["applied"] == 1 and data["lead_action"] == "none"
    assert main(["ack", str(ack), "--session", str(published), "--from", "implementer-1"]) == 0
    out = capsys.readouterr().out
    assert "Lead action: confirm — implementer-1: applied 1/1 — confirm GC-v7" in out
    ack.write_text("hello there", encoding="utf-8")
    assert main(["ack", str(ack)]) == 1
    assert "not a protocol message" in capsys.readouterr().out


def test_resend_composes_the_unclear_sections_or_the_full_gc(published: Path) -> None:
    from models.delta.message_parse import parse_message
    from models.review.actions import compose_resend

    session = open_session(published, TOK)
    text = "[ACK-UPDATE] GC-v7 received. Items: 0/1. Impact: unsure. Action: NEED_CLARIFICATION\nUnclear items: §Architecture Decisions.D-9"
    result = review(Message("pasted", "implementer-1", text, None), session)
    result.action, result.resend = "resend", ["Architecture Decisions.D-9"]  # as if 1 of 3 were unclear
    composed = compose_resend(session, result)
    assert composed is not None
    message, mode = composed
    parsed = parse_message(message)
    assert mode == "resend" and parsed.unreadable == []
    assert [(i.op, i.ref) for i in parsed.delta.items] == [("REPLACED", "Architecture Decisions")]
    assert "| D-9 | zstd | smaller | P6 |" in (parsed.delta.items[0].content or "")
    assert parsed.delta.impact.actions == "re-read §Architecture Decisions"
    preview = prepare_carry_out(session, result)
    path = dict(preview.messages)["implementer-1"]
    commit(preview)
    assert path.read_text(encoding="utf-8") == message
    last = read_ledger(published)[-2]  # the handled line follows it
    assert (last["direction"], last["to"], last["mode"]) == ("sent", "implementer-1", "resend")
    result.action = "full"
    full, mode = compose_resend(session, result)  # type: ignore[misc]
    # implementer-1 follows eight sections (the demo's subscriptions.yaml): they are its full GC.
    follows = demo_follows("implementer-1")
    assert follows is not None
    gc = (published / "global-context.md").read_text(encoding="utf-8")
    assert mode == "full" and full == role_full(gc, "GC-v7", follows)


@pytest.mark.parametrize(
    ("ack", "action"),
    [
        # ADR-002 §8, Partial ACK: re-send the unclear item, or the full GC if more than 50% is unclear.
        (
            "Items: 1/2. Impact: unsure. Action: NEED_CLARIFICATION\nUnclear items: §Architecture Decisions.D-10",
            "resend",
        ),
        (
            "Items: 0/2. Impact: unsure. Action: NEED_CLARIFICATION\n"
            "Unclear items: §Architecture Decisions.D-9, §Architecture Decisions.D-10",
            "full",
        ),
        ("Items: 1/2. Impact: none. Action: CONTINUE\nUnclear items: none", "resend"),  # one not applied, unsaid why
        ("Items: 2/2. Impact: none. Action: CONTINUE\nUnclear items: none", "confirm"),
    ],
)
def test_a_partial_ack_of_half_the_items_is_a_resend_and_of_more_the_full_gc(
    demo_copy: Path, ack: str, action: str
) -> None:
    _publish_v7(demo_copy, "| D-9 | zstd | smaller | P6 |\n| D-10 | lz4 | faster | P6 |\n")
    session = open_session(demo_copy, TOK)
    result = review(Message("pasted", "implementer-1", f"[ACK-UPDATE] GC-v7 received. {ack}", None), session)
    assert result.problems == []  # two items were sent, and both § references are the GC's
    assert result.action == action


@pytest.mark.parametrize(
    ("status", "action"),
    [("BLOCKED", "attention"), ("IN_PROGRESS", "record"), ("COMPLETE", "record"), ("CONTEXT_PRESSURE", "record")],
)
def test_a_blocked_teammate_needs_the_leads_attention_other_statuses_are_recorded(
    published: Path, status: str, action: str
) -> None:
    """SESSION-FOLDER.md's status lines: a blocked teammate waits on the Lead; the others are news."""
    session = open_session(published, TOK)
    result = review(Message("pasted", "implementer-3", f"[STATUS] Phase 6 | {status}", None), session)
    assert (result.action, result.problems) == (action, [])


def test_an_update_confirmed_or_younger_than_the_timeout_is_not_due(published: Path) -> None:
    """No ACK within 10 minutes of a send makes a teammate due: at 10 minutes it is not yet,
    and a teammate whose confirmed version is the one sent never is."""
    plan = published / "orchestration-plan.md"
    plan.write_text(
        plan.read_text(encoding="utf-8").replace("  implementer-1: 6\n", "  implementer-1: 7\n", 1), encoding="utf-8"
    )
    session = open_session(published, TOK)
    sent = datetime(2026, 11, 22, 3, 0, tzinfo=UTC)  # _publish_v7's time
    assert due_pings(session, sent + timedelta(minutes=10)) == {}
    assert set(due_pings(session, sent + timedelta(minutes=10, seconds=1))) == {
        "implementer-2",
        "implementer-3",
        "implementer-4",
    }
