"""Issue 43: the real Claude Code 2.1.332 client is the judge of delivery.

Three real teammates (tests/real_client.py: the pinned client in a private tmux server, a fake
Messages API of ours on 127.0.0.1, a lead verify key as a signing lead passes) receive what
``lead-console publish --deliver`` writes. Expected values come from the client itself: the
request log of what its model was given, its own inbox and transcript files. It checks that the
update reaches each model once and unflagged, that the ACK comes back through SendMessage and
through plain text (an idle notification's ``result``), that ``team --json`` and the window say
received and ACKed, that a ``/compact`` is seen with its ``postTokens``, and that a delivery
interrupted after its inbox write is never written again while one interrupted before it waits
for the Lead's Deliver again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from real_client import RealTeam, Teammate, client_missing, read_json, stamp_now, wait_for

from conftest import run_cli, settle_reviews

REPLY = "Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v{} (applied/total, impact, action, unclear items)."
MEMBERS = ["implementer-1", "implementer-2", "implementer-3", "implementer-4"]
# implementer-1 ACKs with SendMessage, implementer-2 as plain text, implementer-3 not at all;
# implementer-4 is a member that is not running (its update stays written).
ACKS = {"implementer-1": "sendmessage", "implementer-2": "text", "implementer-3": "none"}


@pytest.fixture
def team(tmp_path: Path) -> Iterator[RealTeam]:
    missing = client_missing()
    assert missing is None, missing  # never skipped: the set-up command fetches the client
    real = RealTeam(tmp_path / "claude")
    real.write_config(MEMBERS)
    try:
        for name, ack in ACKS.items():
            real.start(name, ack)
        yield real
    finally:
        real.stop()


def given_to_model(mate: Teammate, summary: str) -> list[str]:
    """Every ``<teammate-message>`` block with ``summary`` in a user message the model was sent,
    counted once per user turn (each request repeats the conversation so far)."""
    found: dict[str, None] = {}
    for request in mate.requests():
        for message in request["body"].get("messages", []):
            content = message.get("content")
            texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]
            for text in texts:
                if message.get("role") == "user" and f'summary="{summary}"' in str(text):
                    found[str(text)] = None
    return list(found)


def lead_inbox(team: RealTeam) -> list[dict[str, Any]]:
    return read_json(team.inbox("team-lead")) or []


def acked(team: RealTeam, member: str, version: int) -> bool:
    """The lead's inbox holds ``member``'s [ACK-UPDATE] for ``version``, as a message or as an
    idle notification's result (read here from the raw JSON, not by the app)."""
    for entry in lead_inbox(team):
        if entry.get("from") != member:
            continue
        text = str(entry.get("text"))
        if text.startswith("{"):
            text = str(json.loads(text).get("result", ""))
        if text.startswith(f"[ACK-UPDATE] GC-v{version} received"):
            return True
    return False


def in_transcript(team: RealTeam, member: str, summary: str) -> bool:
    """A user line of ``member``'s transcript holds a block with that summary (read raw)."""
    for line in team.transcript_lines(member):
        content = (line.get("message") or {}).get("content")
        texts = [content] if isinstance(content, str) else [str(b.get("text", "")) for b in content or []]
        if line.get("type") == "user" and any(f'summary="{summary}' in t for t in texts):
            return True
    return False


def team_rows(capsys: pytest.CaptureFixture[str], session: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    code, out, err = run_cli(capsys, "team", str(session), "--json")
    assert code == 0, err
    data = json.loads(out)
    return data, {r["role"]: r for r in data["teammates"]}


def test_real_teammates_receive_each_update_once_unflagged_and_their_acks_come_back(
    team: RealTeam, demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], qtbot: object
) -> None:
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    new = tmp_path / "GC-v7.md"
    new.write_text(gc.replace("is the source of truth", "is the single source of truth"), encoding="utf-8")
    code, out, err = run_cli(
        capsys, "publish", str(demo_copy), "--new", str(new), "--deliver", "--team", str(team.folder), "--json"
    )
    assert code == 0, out + err
    modes = {r["role"]: (r["mode"], r["delivered"]) for r in json.loads(out)["recipients"]}
    assert modes == {
        "implementer-1": ("delta", True),
        "implementer-2": ("delta", True),
        "implementer-3": ("full", True),  # FC-1: two versions behind
        "implementer-4": ("full", True),
    }
    outbox = {p.name: p.read_text(encoding="utf-8") for p in (demo_copy / "messages" / "outbox").glob("*GC-v7*")}

    wait_for("the SendMessage ACK", lambda: acked(team, "implementer-1", 7), 45, lambda: team.screen("implementer-1"))
    wait_for("the plain-text ACK", lambda: acked(team, "implementer-2", 7), 45, lambda: team.screen("implementer-2"))
    for name, mate in team.running.items():
        summary = f"CONTEXT-UPDATE GC-v7 ({'delta' if name != 'implementer-3' else 'full'})"
        (block,) = wait_for(f"{name}'s model to be given GC-v7", lambda m=mate, s=summary: given_to_model(m, s), 45)
        head, _, body = block.partition("\n")
        assert head == f'<teammate-message teammate_id="lead-console" summary="{summary}">'
        assert "verified=" not in head  # a signing lead's teammate: unflagged
        (message,) = [t for n, t in outbox.items() if n.startswith(f"GC-v7-{name}-")]
        assert body == message.rstrip("\n") + "\n\n" + REPLY.format(7) + "\n</teammate-message>"  # byte for byte
        wait_for(f"{name}'s inbox to drain", lambda n=name: read_json(team.inbox(n)) == [], 20)  # taken, removed

    for name in team.running:  # the client flushes its transcript in batches, after the inbox
        wait_for(f"{name}'s transcript", lambda n=name: in_transcript(team, n, "CONTEXT-UPDATE GC-v7"), 20)
    data, rows = team_rows(capsys, demo_copy)
    assert data["sender"] == "lead-console" and data["lead"] == "team-lead"
    assert {r: (rows[r]["received"], rows[r]["acked"]) for r in MEMBERS} == {
        "implementer-1": (True, True),
        "implementer-2": (True, True),
        "implementer-3": (True, False),
        "implementer-4": (False, False),
    }
    assert rows["implementer-3"]["state"] == "received" and rows["implementer-4"]["state"] == "written"
    # the fake's usage on every response; claude-opus-5-5 is a 1M model in 2.1.332's catalog
    assert rows["implementer-1"]["context_tokens"] == 1200 + 3400 + 15000 + 40
    assert rows["implementer-1"]["context_window"] == 1_000_000
    window_in_the_window(qtbot, tmp_path, demo_copy)

    team.type("implementer-1", "/compact")

    def boundary() -> dict[str, Any] | None:
        return next((x for x in team.transcript_lines("implementer-1") if x.get("subtype") == "compact_boundary"), None)

    compacted = wait_for("the compaction", boundary, 30, lambda: team.screen("implementer-1"))
    _, rows = team_rows(capsys, demo_copy)
    assert rows["implementer-1"]["compactions"] == [compacted["timestamp"]]
    assert rows["implementer-1"]["context_tokens"] == compacted["compactMetadata"]["postTokens"]

    interrupted_deliveries_are_never_written_twice(team, demo_copy, tmp_path, capsys)


def window_in_the_window(qtbot: object, tmp_path: Path, session: Path) -> None:
    """The teammate table of a window opened on the session says the same."""
    from PySide6.QtCore import Qt
    from pytestqt.qtbot import QtBot

    from conftest import shown_controller

    assert isinstance(qtbot, QtBot)
    ctl = shown_controller(qtbot, tmp_path)
    try:
        assert ctl.open(session)
        settle_reviews(qtbot, ctl)
        model = ctl.window.teammates_pane.teammate_model

        def cell(role: str) -> str:
            row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == role)
            return str(model.index(row, model.DELIVERY).data() or "")

        qtbot.waitUntil(lambda: cell("implementer-3") == "received", timeout=15_000)
        assert [cell(r) for r in MEMBERS] == ["ACKed", "ACKed", "received", "written"]
        row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-1")
        member = model.index(row, model.MEMBER).data(Qt.ItemDataRole.ToolTipRole)
        assert "Claude Code member implementer-1; it sees the Lead&#x27;s messages from lead-console" in member
    finally:
        ctl.close()


def interrupted_deliveries_are_never_written_twice(
    team: RealTeam, session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GC-v8 published without delivery; then three deliveries cut short as a killed process
    leaves them: implementer-1's after its inbox write (the client takes it), implementer-4's
    after its inbox write too (no client runs: the entry stays), implementer-2's before its
    inbox write (nothing was written). ``team --deliver`` records the first from the transcript
    and the second from the inbox, writing neither again; the third is undecided until Deliver
    again."""
    gc = (session / "global-context.md").read_text(encoding="utf-8")
    new = tmp_path / "GC-v8.md"
    new.write_text(gc.replace("is the single source of truth", "is the one source of truth"), encoding="utf-8")
    code, out, err = run_cli(capsys, "publish", str(session), "--new", str(new), "--json")
    assert code == 0, out + err
    ledger = session / "messages" / "ledger.jsonl"
    sent = {e["to"]: e for e in map(json.loads, ledger.read_text().splitlines()) if e.get("gc_version") == 8}
    # implementer-1 compacted after its GC reached it: presumed CONTEXT_LOST (FC-2), sent in full
    assert (sent["implementer-1"]["mode"], sent["implementer-1"]["conditions"][0]) == ("full", "FC-2")
    cut: dict[str, str] = {}
    for role in ("implementer-1", "implementer-2", "implementer-4"):
        entry_ts = stamp_now()
        cut[role] = entry_ts
        attempt = {"ts": entry_ts, "direction": "delivering", "to": role, "member": role, "team": team.folder.name,
                   "file": sent[role]["file"], "gc_version": 8, "entry_ts": entry_ts, "sender": "lead-console"}  # fmt: skip
        with ledger.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(attempt) + "\n")
    for role in ("implementer-1", "implementer-4"):
        text = (session / sent[role]["file"]).read_text(encoding="utf-8")
        written = {"from": "lead-console", "text": text.rstrip("\n") + "\n\n" + REPLY.format(8),
                   "summary": f"CONTEXT-UPDATE GC-v8 ({sent[role]['mode']})", "timestamp": cut[role],
                   "read": False}  # fmt: skip
        held = read_json(team.inbox(role)) or []  # implementer-4's GC-v7 is still there, unread
        with team.lock(role):
            team.inbox(role).write_text(json.dumps([*held, written]), encoding="utf-8")
    wait_for("the GC-v8 ACK", lambda: acked(team, "implementer-1", 8), 45, lambda: team.screen("implementer-1"))
    wait_for("GC-v8 in the transcript", lambda: in_transcript(team, "implementer-1", "CONTEXT-UPDATE GC-v8"), 20)
    lines_before = len(ledger.read_text().splitlines())

    code, _, err = run_cli(capsys, "team", str(session), "--deliver", "--json")
    assert code == 1  # implementer-2's attempt is undecided: said, not re-sent
    assert "implementer-2" in err and "Deliver again" in err
    added = [json.loads(x) for x in ledger.read_text().splitlines()[lines_before:]]
    mine = [e for e in added if e.get("to") == "implementer-1"]
    assert [(e["direction"], e.get("found_in"), e.get("entry_ts")) for e in mine] == [
        ("delivered", "transcript", cut["implementer-1"])
    ]  # recorded from the transcript, no new attempt
    fourth = [(e["direction"], e.get("found_in"), e.get("entry_ts")) for e in added if e.get("to") == "implementer-4"]
    assert fourth == [("delivered", "inbox", cut["implementer-4"])]
    assert [e["timestamp"] for e in read_json(team.inbox("implementer-4"))].count(cut["implementer-4"]) == 1
    theirs = [(e["direction"], e.get("undecided")) for e in added if e.get("to") == "implementer-2"]
    assert theirs == [("undelivered", True)]
    # implementer-3 had no attempt: delivered now, once
    assert [e["to"] for e in added if e["direction"] == "delivering"] == ["implementer-3"]
    _, rows = team_rows(capsys, session)
    assert rows["implementer-2"]["state"] == "undecided"

    code, _, err = run_cli(capsys, "team", str(session), "--deliver-again", "implementer-2")
    assert code == 0, err
    wait_for("implementer-2's GC-v8 ACK", lambda: acked(team, "implementer-2", 8), 45)
    for name in ("implementer-1", "implementer-2"):
        summary = f"CONTEXT-UPDATE GC-v8 ({sent[name]['mode']})"
        assert len(given_to_model(team.running[name], summary)) == 1  # once each
    assert not any(mate.server.poll() is not None for mate in team.running.values())
    hosts = set().union(*(mate.refused_hosts() for mate in team.running.values()))
    assert hosts <= {"downloads.claude.ai:443", "github.com:443"}, hosts  # every outside host refused
