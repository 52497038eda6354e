"""Issue 43: Claude Code 2.1.332's facts as the app reads and writes them, on files written by
hand from ../shared/claude-code-team/PROTOCOL.md and on the shared v2.1.332 examples: the sender
name, each model's window, the context after a compaction, what the model received, ACKs
carried by idle notifications, and the states received / lost / undecided."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from claude_team_steps import make_team

from conftest import SHARED
from models.claude.delivery import deliver
from models.claude.following import follow
from models.claude.mailbox import append_entries
from models.claude.protocol import sender_problem
from models.claude.team import Link, read_team
from models.claude.transcript_read import Received, read_transcript
from models.claude.windows import window_for
from models.review.inbox import read_claude_team

V2 = SHARED / "claude-code-team" / "v2.1.332"
TRANSCRIPT = V2 / "transcripts" / "9d2c7a40-1b6e-4f0e-8a77-3c1d2e5f6a10.jsonl"
MEMBERS = {"implementer-1", "implementer-2"}


@pytest.mark.parametrize(
    ("name", "refused", "says"),
    [
        ("lead-console", None, None),
        ("team-lead", False, "reserved"),  # delivered, but every teammate of a signing lead sees it unverified
        ("Team Lead", True, "not a name"),  # a space: no member name Claude Code accepts
        ("TEAM_LEAD", False, "reserved"),  # case and underscores fold
        ("teamlead", False, "reserved"),
        ("user", False, "reserved"),
        ("System", False, "reserved"),
        ("main", True, "main session"),
        ("implementer-1", True, "member of the team"),
        ("-lead", True, "not a name"),
        ("x" * 65, True, "not a name"),
    ],
)
def test_the_sender_name_is_refused_warned_or_fine_as_the_protocol_says(
    name: str, refused: bool | None, says: str | None
) -> None:
    problem = sender_problem(name, MEMBERS)
    if refused is None:
        assert problem is None
    else:
        assert problem is not None and problem[0] is refused and says in problem[1]


@pytest.mark.parametrize(
    ("model", "seen", "override", "window", "source"),
    [
        ("claude-opus-5-5", None, None, 1_000_000, "catalog (claude-opus-5-5)"),  # 2.1.332's default model
        ("claude-opus-4-6", None, None, 200_000, "catalog (claude-opus-4-6)"),
        ("claude-opus-4-6-20260115", None, None, 200_000, "catalog (claude-opus-4-6)"),  # a dated id
        ("claude-sonnet-4-6[1m]", None, None, 1_000_000, "the 1M option"),
        ("claude-opus-4-6", 250_000, None, 1_000_000, "250,000 tokens was seen"),  # only a 1M window holds it
        ("claude-opus-4-6", 150_000, None, 200_000, "catalog"),
        ("claude-haiku-4-5", None, None, 200_000, "catalog (claude-haiku-4-5)"),
        ("claude-sonnet-5-5", None, None, 1_000_000, "catalog (claude-sonnet-5-5)"),
        ("some-new-model", None, None, 1_000_000, "assumed"),  # never 200k silently
        ("", None, None, 1_000_000, "the default model"),
        ("claude-opus-4-6", None, 500_000, 500_000, "set by the Lead"),
    ],
)
def test_a_models_window_comes_from_the_catalog_the_transcript_or_the_lead(
    model: str, seen: int | None, override: int | None, window: int, source: str
) -> None:
    got = window_for(model, seen, override)
    assert got.tokens == window and source in got.source


def test_the_shared_transcript_reads_the_context_after_its_compaction_and_what_the_model_received() -> None:
    context = read_transcript(TRANSCRIPT, "implementer-1")
    assert context.compactions == ["2026-02-09T10:39:58.000Z"]
    assert context.tokens == 12 + 14800 + 0 + 30  # msg_01D, the response after the compaction
    assert (context.model, context.window) == ("claude-opus-4-6", 200_000)
    assert [(r.sender, r.summary, r.timestamp) for r in context.received] == [
        ("team-lead", "GC-v5 full injection", "2026-02-09T10:00:02.100Z"),
        ("lead-console", "GC-v5 to GC-v6", "2026-02-09T10:31:20.000Z"),
    ]
    assert context.received[1].text.startswith("[CONTEXT-UPDATE] GC-v5 → GC-v6\n")
    assert context.received[1].text.endswith("Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v6 ...")


def test_until_the_next_response_the_context_is_the_compactions_post_tokens(tmp_path: Path) -> None:
    lines = [
        {"type": "assistant", "timestamp": "t1", "message": {"id": "m1", "model": "claude-opus-5-5",
         "usage": {"input_tokens": 1200, "cache_creation_input_tokens": 3400, "cache_read_input_tokens": 15000,
                   "output_tokens": 40}}},
        {"type": "system", "subtype": "compact_boundary", "timestamp": "t2",
         "compactMetadata": {"trigger": "manual", "preTokens": 19640, "postTokens": 2899}},
        {"type": "user", "timestamp": "t3", "isCompactSummary": True, "message": {"role": "user", "content": "..."}},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    context = read_transcript(path, "implementer-1")
    assert (context.tokens, context.compactions, context.window) == (2899, ["t2"], 1_000_000)


def test_an_ack_written_as_plain_text_is_read_from_the_idle_notifications_result(tmp_path: Path) -> None:
    team = make_team(tmp_path / "claude")
    ack = "[ACK-UPDATE] GC-v7 received.\n- Delta items applied: 2/2\n- Action taken: CONTINUE"
    frames = [
        {"type": "idle_notification", "from": "implementer-2", "timestamp": "t1", "idleReason": "available",
         "result": ack},
        {"type": "idle_notification", "from": "implementer-1", "timestamp": "t2", "idleReason": "available",
         "result": "Sent the ACK for GC-v7 to team-lead."},
    ]  # fmt: skip
    inbox = [{"from": f["from"], "text": json.dumps(f), "timestamp": f["timestamp"], "read": False} for f in frames]
    (team / "inboxes" / "team-lead.json").write_text(json.dumps(inbox), encoding="utf-8")
    _, messages, problems = read_claude_team(team, "team-lead")
    assert problems == []
    assert [(m.sender, m.kind) for m in messages] == [
        ("implementer-2", "protocol"),
        ("implementer-2", "ack"),  # its result, as a message of its own
        ("implementer-1", "protocol"),  # a result that is no protocol message stays inside the frame
    ]
    assert messages[1].text == ack


def test_the_shared_v2_inbox_reads_its_idle_results_as_no_extra_messages() -> None:
    """Its idle notifications' results are prose ("T-3 plan drafted"): nothing is added."""
    team = V2 / "teams" / "cow-execution"
    _, messages, _ = read_claude_team(team, "team-lead")
    raw = json.loads((team / "inboxes" / "team-lead.json").read_text(encoding="utf-8"))
    assert len(messages) == len(raw)


def test_an_inbox_past_one_megabyte_is_written_to(tmp_path: Path) -> None:
    """2.1.332 reads the whole file: the old 1 MB refusal would leave the update undelivered."""
    inbox = tmp_path / "implementer-1.json"
    inbox.write_text(json.dumps([{"from": "x", "text": "y" * 2_100_000, "timestamp": "t", "read": False}]))
    appended = append_entries(inbox, [{"from": "lead-console", "text": "z", "timestamp": "t2", "read": False}])
    assert appended.count == 2 and json.loads(inbox.read_text())[1]["text"] == "z"


SENT = {"direction": "sent", "to": "implementer-1", "file": "outbox/u7.md", "gc_version": 7, "mode": "delta",
        "ts": "2026-11-22T03:00:00Z"}  # fmt: skip
DELIVERED = {"direction": "delivered", "to": "implementer-1", "file": "outbox/u7.md", "member": "implementer-1",
             "ts": "2026-11-22T03:00:01.000Z", "entry_ts": "2026-11-22T03:00:01.000Z", "sender": "lead-console"}  # fmt: skip
LINK = Link(Path("team"), {"implementer-1": "implementer-1"})


def _received(summary: str, when: str, sender: str = "lead-console") -> Received:
    return Received(sender, summary, "...", when)


@pytest.mark.parametrize(
    ("received", "compactions", "state"),
    [
        ([_received("CONTEXT-UPDATE GC-v7 (delta)", "2026-11-22T03:00:02.000Z")], [], "received"),
        ([], [], "picked up"),  # inside the teammate process, not yet seen by the model
        ([], ["2026-11-22T03:05:00.000Z"], "lost"),  # compacted before the model got it
        ([], ["2026-11-22T02:00:00.000Z"], "picked up"),  # a compaction before the delivery loses nothing
        ([_received("CONTEXT-UPDATE GC-v7 (delta)", "2026-11-22T02:59:00.000Z")], [], "picked up"),  # an older copy
        ([_received("CONTEXT-UPDATE GC-v7 (delta)", "2026-11-22T03:00:02.000Z", "team-lead")], [], "picked up"),
        ([_received("CONTEXT-UPDATE GC-v6 (delta)", "2026-11-22T03:00:02.000Z")], [], "picked up"),
    ],
)
def test_a_picked_up_update_is_received_when_its_transcript_shows_it_and_lost_when_a_compaction_came_first(
    tmp_path: Path, received: list[Received], compactions: list[str], state: str
) -> None:
    team = read_team(make_team(tmp_path / "claude"))
    (team.inboxes / "implementer-1.json").write_text("[]", encoding="utf-8")  # drained: picked up
    seen = {"implementer-1": (received, compactions)}
    followed = follow(tmp_path, team, LINK, {}, [SENT, DELIVERED], seen=seen)["implementer-1"]
    assert followed.state == state


def test_picked_up_and_never_received_by_a_teammate_whose_session_ended_is_lost(tmp_path: Path) -> None:
    team = read_team(make_team(tmp_path / "claude", members=("implementer-2",)))  # implementer-1 left
    (team.inboxes / "implementer-1.json").write_text("[]", encoding="utf-8")
    followed = follow(tmp_path, team, LINK, {}, [SENT, DELIVERED])["implementer-1"]
    assert followed.state == "lost" and "session ended" in (followed.lost_at or "")


def test_picked_up_for_ten_minutes_and_not_received_is_offered_again(tmp_path: Path) -> None:
    team = read_team(make_team(tmp_path / "claude"))
    (team.inboxes / "implementer-1.json").write_text("[]", encoding="utf-8")
    followed = follow(tmp_path, team, LINK, {}, [SENT, DELIVERED])["implementer-1"]
    assert not followed.unreceived(datetime(2026, 11, 22, 3, 10, 0, tzinfo=UTC))
    assert followed.unreceived(datetime(2026, 11, 22, 3, 10, 2, tzinfo=UTC))


def _session_with_attempt(tmp_path: Path, entry_ts: str) -> Path:
    folder = tmp_path / "session"
    (folder / "messages" / "outbox").mkdir(parents=True)
    (folder / "outbox").mkdir()
    (folder / "outbox" / "u7.md").write_text("[CONTEXT-UPDATE] GC-v6 → GC-v7\n", encoding="utf-8")
    attempt = {"direction": "delivering", "to": "implementer-1", "member": "implementer-1", "file": "outbox/u7.md",
               "gc_version": 7, "ts": entry_ts, "entry_ts": entry_ts, "sender": "lead-console"}  # fmt: skip
    lines = [json.dumps(SENT), json.dumps(attempt)]
    (folder / "messages" / "ledger.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _ledger(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]


def test_an_attempt_found_nowhere_is_undecided_and_written_again_only_when_the_lead_says(tmp_path: Path) -> None:
    team_dir = make_team(tmp_path / "claude")
    team = read_team(team_dir)
    folder = _session_with_attempt(tmp_path, "2026-11-22T03:00:01.000Z")
    (first,) = deliver(folder, team, LINK, [SENT])
    assert not first.delivered and "Deliver again" in (first.reason or "")
    assert not (team_dir / "inboxes" / "implementer-1.json").exists()  # nothing written
    assert follow(folder, team, LINK, {})["implementer-1"].state == "undecided"
    (second,) = deliver(folder, team, LINK, [SENT])  # asking again does not write it either
    assert not second.delivered
    (again,) = deliver(folder, team, LINK, [SENT], again=frozenset({"implementer-1"}))
    assert again.delivered
    (entry,) = json.loads((team_dir / "inboxes" / "implementer-1.json").read_text(encoding="utf-8"))
    assert entry["from"] == "lead-console" and entry["summary"] == "CONTEXT-UPDATE GC-v7 (delta)"
    assert [e["direction"] for e in _ledger(folder)][-2:] == ["delivering", "delivered"]


def test_an_attempt_the_transcript_shows_received_is_recorded_not_written_again(tmp_path: Path) -> None:
    team_dir = make_team(tmp_path / "claude")
    team = read_team(team_dir)
    folder = _session_with_attempt(tmp_path, "2026-11-22T03:00:01.000Z")
    block = '<teammate-message teammate_id="lead-console" summary="CONTEXT-UPDATE GC-v7 (delta)">\n...\n'
    line = {"type": "user", "timestamp": "2026-11-22T03:00:02.000Z", "teamName": "pay", "agentName": "implementer-1",
            "sessionId": "s-implementer-1", "message": {"role": "user", "content": block + "</teammate-message>"}}  # fmt: skip
    (team_dir.parent.parent / "projects" / "-work" / "s-implementer-1.jsonl").write_text(json.dumps(line) + "\n")
    (outcome,) = deliver(folder, team, LINK, [SENT])
    assert outcome.delivered
    assert not (team_dir / "inboxes" / "implementer-1.json").exists()
    last = _ledger(folder)[-1]
    assert (last["direction"], last["found_in"], last["entry_ts"]) == (
        "delivered",
        "transcript",
        "2026-11-22T03:00:01.000Z",
    )


def test_a_member_name_as_sender_refuses_every_delivery(tmp_path: Path) -> None:
    team_dir = make_team(tmp_path / "claude")
    folder = _session_with_attempt(tmp_path, "2026-11-22T03:00:01.000Z")
    link = Link(Path("team"), {"implementer-1": "implementer-1"}, "implementer-2")
    (outcome,) = deliver(folder, read_team(team_dir), link, [SENT])
    assert not outcome.delivered and "member of the team" in (outcome.reason or "")
    assert not (team_dir / "inboxes" / "implementer-1.json").exists()


def test_a_copied_session_does_not_deliver_into_the_original_team(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 45.6: the link travelled with a copy of the session, and the copy delivered into the
    team of the session it was copied from."""
    import shutil

    from conftest import run_cli

    team = make_team(tmp_path / "claude")
    code, _, err = run_cli(capsys, "team", str(demo_copy), "--team", str(team), "--json")
    assert code == 0, err
    copy = tmp_path / "copy" / demo_copy.name
    shutil.copytree(demo_copy, copy)
    code, out, err = run_cli(capsys, "team", str(copy), "--json")
    assert code == 2 and "linked to no Claude Code team (this session was copied from" in err  # not linked
    code, out, err = run_cli(capsys, "team", str(demo_copy), "--json")
    assert code == 0 and json.loads(out)["team"] == "pay"  # the original still is
    code, out, err = run_cli(capsys, "team", str(copy), "--team", str(team), "--json")
    assert code == 0  # linked again, it is the copy's own link
    code, out, err = run_cli(capsys, "team", str(copy), "--json")
    assert code == 0 and json.loads(out)["team"] == "pay"
