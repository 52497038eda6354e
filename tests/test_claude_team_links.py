"""Claude Code teams linked to a session: the Lead maps roles to members, pings from the window
and the CLI alike, and replies and compactions are read from the transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_team_steps import entries, make_team

from app.cli.main import main
from conftest import SHARED
from models.claude.transcript_read import read_transcript


def test_transcripts_count_each_response_once_and_flag_compactions(tmp_path: Path) -> None:
    """The shared example transcript, read by a person: msg_01B spans two lines with the same
    usage; the last response (msg_01D) holds 2,100 + 0 + 12,500 + 242 tokens; one compaction."""
    path = next((SHARED / "claude-code-team" / "transcripts").glob("*.jsonl"))
    context = read_transcript(path, "implementer-1")
    last = [json.loads(x) for x in path.read_text().splitlines()][-1]["message"]["usage"]
    expected = sum(last.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                                            "output_tokens"))  # fmt: skip
    assert context.tokens == expected and context.compactions == ["2026-02-09T10:39:58.000Z"]
    broken = tmp_path / "b.jsonl"
    # A compaction and a teammate message that do not parse are counted; a broken response
    # before the last one is passed over (only the last says the context), and a line that
    # names none of them is not parsed at all.
    tail = '{"type": "assistant", half a line\n{"subtype": "compact_boundary"\n<teammate-message teammate_id=\\"x\nnot json at all\n'
    broken.write_text(path.read_text() + tail, encoding="utf-8")
    damaged = read_transcript(broken, "implementer-1")
    assert damaged.tokens == expected and damaged.broken_lines == 2 and "2 broken lines" in damaged.problems[0]


def test_the_demo_carries_a_linked_team_and_the_fc2_a_compaction_implies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's implementer-2 confirmed GC-v6 and compacted at 15:10:02 (its transcript):
    its GC is now a summary, so the next update sends it the full GC under FC-2."""
    from app.demo import demo_session

    session = demo_session(base=tmp_path)
    assert main(["team", str(session), "--json"]) == 0
    rows = {r["role"]: r for r in json.loads(capsys.readouterr().out)["teammates"]}
    assert rows["implementer-2"]["presumed_lost_since"] == "2026-11-21T15:10:02.000Z"
    assert rows["implementer-2"]["context_tokens"] == 34_800 and rows["implementer-2"]["compactions"] == [
        "2026-11-21T15:10:02.000Z"
    ]
    assert rows["implementer-1"]["presumed_lost_since"] is None and rows["implementer-1"]["context_tokens"] == 61_900
    new = tmp_path / "new.md"
    text = (session / "global-context.md").read_text(encoding="utf-8")
    new.write_text(text.replace("is the source of truth", "is the single source of truth"), encoding="utf-8")
    assert main(["plan", str(session), "--new", str(new), "--json"]) == 0
    decisions = {d["role"]: d for d in json.loads(capsys.readouterr().out)["teammates"]}
    assert decisions["implementer-1"]["mode"] == "delta"
    assert decisions["implementer-2"]["mode"] == "full"
    assert any("compacted at 2026-11-21T15:10:02" in str(c) for c in decisions["implementer-2"]["conditions"])


def test_the_lead_maps_roles_to_members_and_pings_from_the_window(
    qtbot: object, demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A role whose name is no member is mapped by the Lead (CLI --map, or the teammate table's
    context menu); a ping goes into the member's inbox and is no update (never the last sent)."""
    from PySide6.QtCore import QSettings
    from pytestqt.qtbot import QtBot

    from app.controller import Controller
    from app.settings import AppSettings

    assert isinstance(qtbot, QtBot)
    team = make_team(tmp_path / "claude", members=("implementer-1", "impl-two"))
    assert main(["team", str(demo_copy), "--team", str(team), "--map", "implementer-2=impl-two", "--json"]) == 0
    rows = {r["role"]: r for r in json.loads(capsys.readouterr().out)["teammates"]}
    assert rows["implementer-2"]["member"] == "impl-two" and rows["implementer-3"]["member"] is None
    assert main(["team", str(demo_copy), "--map", "implementer-2=nobody"]) == 2  # no member: refused
    assert "nobody is no member of team pay" in capsys.readouterr().err
    ctl = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    try:
        assert ctl.open(demo_copy)
        view = ctl.window.teammates_pane.teammate_view
        model = ctl.window.teammates_pane.teammate_model
        qtbot.waitUntil(lambda: any(model.index(r, model.MEMBER).data() == "impl-two" for r in range(model.rowCount())))
        row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-2")
        view.setCurrentIndex(model.index(row, 0))
        ping = next(a for a in view.actions() if a.text().startswith("Ping"))
        with qtbot.waitSignal(ctl.team.delivered, timeout=10_000) as blocker:
            ping.trigger()
        (outcome,) = blocker.args[0]
        assert outcome.delivered and outcome.member == "impl-two"
        (item,) = entries(team / "inboxes" / "impl-two.json")
        assert (
            str(item["text"]).startswith("[PING] GC-v6 was sent to you at 2026-11-21T")
            and item["summary"] == "PING: ACK GC-v6"
        )
        ledger = [json.loads(x) for x in (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()]
        assert [e["kind"] for e in ledger if e["direction"] == "delivered"] == ["PING"]
        assert not [e for e in ledger if e["direction"] == "sent"]  # a ping is no update
    finally:
        ctl.close()


def test_the_cli_pings_as_the_teammate_table_does(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``team --ping ROLE``: the window's Ping from the command line. The reminder names the
    version last sent to the role (the demo's plan: GC-v6 to implementer-2), goes into its
    member's inbox, and is recorded as delivered, never as sent; a role with no member is
    refused in one line, exit 1."""
    team = make_team(tmp_path / "claude", members=("implementer-1", "impl-two"))
    args = ["team", str(demo_copy), "--team", str(team), "--map", "implementer-2=impl-two"]
    assert main([*args, "--ping", "implementer-2"]) == 0
    assert capsys.readouterr().err == "ping implementer-2: delivered to impl-two\n"
    (item,) = entries(team / "inboxes" / "impl-two.json")
    assert str(item["text"]).startswith("[PING] GC-v6 was sent to you at 2026-11-21T14:02:11Z and no [ACK-UPDATE]")
    assert item["summary"] == "PING: ACK GC-v6"
    ledger = [json.loads(x) for x in (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in ledger if e["direction"] == "delivered"] == ["PING"]
    assert not [e for e in ledger if e["direction"] == "sent"]  # a ping is no update
    assert main(["team", str(demo_copy), "--ping", "implementer-3"]) == 1
    assert (
        capsys.readouterr().err
        == "ping implementer-3: not delivered: implementer-3 is linked to no member of team pay\n"
    )
    # researcher-1 was never sent an update (no ledger line, no teammate_gc_last_delta): nothing
    # to ACK, and no "GC-vNone" reminder (which the window's Ping delivered before).
    assert main(["team", str(demo_copy), "--map", "researcher-1=implementer-1", "--ping", "researcher-1"]) == 1
    assert "ping researcher-1: not delivered: no update was sent to researcher-1" in capsys.readouterr().err
    assert entries(team / "inboxes" / "implementer-1.json") == []


def test_replies_from_a_drained_inbox_are_read_back_from_the_lead_transcript_once(
    demo_copy: Path, tmp_path: Path
) -> None:
    """Newer releases empty the lead's inbox as they deliver; the lead's transcript keeps each
    reply as a <teammate-message> block. Read from either place, a reply is the same message."""
    from models.claude.replies import team_replies
    from models.review.ledger import record_received

    team = make_team(tmp_path / "claude")
    ack = "[ACK-UPDATE] GC-v6 received.\n- Delta items applied: 1/1\n- Action taken: CONTINUE"
    inbox = team / "inboxes" / "team-lead.json"
    inbox.write_text(json.dumps([{"from": "implementer-1", "text": ack, "timestamp": "t1", "read": False}]))
    before, _ = team_replies(team)
    assert record_received(demo_copy, before) == before  # recorded
    inbox.write_text("[]")  # drained by Claude Code
    turn = {"type": "user", "timestamp": "t2", "message": {"role": "user", "content": (
        f'<teammate-message teammate_id="implementer-1" summary="ACK">\n{ack}\n</teammate-message>'
        '<teammate-message teammate_id="implementer-2">[STATUS] Phase 6 | IN_PROGRESS</teammate-message>')}}  # fmt: skip
    (team.parent.parent / "projects" / "-work" / "lead-session.jsonl").write_text(
        json.dumps(turn) + "\n{broken line\n", encoding="utf-8"
    )
    after, _ = team_replies(team)
    assert [(m.sender, m.text) for m in after] == [
        ("implementer-1", ack),
        ("implementer-2", "[STATUS] Phase 6 | IN_PROGRESS"),
    ]
    assert after[0].source == before[0].source  # the same message, wherever it was read
    new = record_received(demo_copy, after)
    assert [m.sender for m in new] == ["implementer-2"]  # the ACK is not recorded twice
