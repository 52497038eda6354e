"""Claude Code teams end to end (issue 17): publish with delivery to teammates that are separate
processes (tests/claude_teammate.py, written from PROTOCOL.md), pickup, ACKs, transcripts,
contention on the inboxes, stale and busy locks, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.cli.main import main
from conftest import SHARED, settle_reviews
from models.claude.delivery import deliver
from models.claude.mailbox import MailboxError, append_entries, lock_path
from models.claude.team import Link, read_team
from models.claude.transcripts import read_transcript

DOUBLE = Path(__file__).parent / "claude_teammate.py"
MEMBERS = ("implementer-1", "implementer-2", "implementer-3", "implementer-4")


def make_team(root: Path, members: tuple[str, ...] = MEMBERS) -> Path:
    """``root/teams/pay`` in Claude Code's layout, with a transcripts folder under projects/."""
    team = root / "teams" / "pay"
    (team / "inboxes").mkdir(parents=True)
    config = {
        "name": "pay",
        "leadAgentId": "team-lead@pay",
        "leadSessionId": "lead-session",
        "members": [
            {"name": "team-lead", "agentType": "team-lead", "model": "claude-opus-4-6"},
            *({"name": m, "agentType": "implementer", "model": "claude-opus-4-6", "sessionId": f"s-{m}"}
              for m in members),
        ],
    }  # fmt: skip
    (team / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (root / "projects" / "-work").mkdir(parents=True)
    return team


def start(team: Path, member: str, expect: int, *extra: str) -> subprocess.Popen[bytes]:
    transcript = team.parent.parent / "projects" / "-work" / f"s-{member}.jsonl"
    return subprocess.Popen(
        [sys.executable, str(DOUBLE), str(team), member, "--expect", str(expect), "--transcript", str(transcript),
         "--poll", "0.01", "--max-seconds", "60", *extra],
        preexec_fn=_behind_the_app,
    )  # fmt: skip


def _behind_the_app() -> None:
    """The helper processes run at a lower priority than the app under test, so that on a small
    CI machine the time our lock is held measures our work, not the scheduler's queue."""
    os.nice(5)


def entries(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def test_publish_delivers_to_four_teammates_who_pick_up_and_ack_once(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = make_team(tmp_path / "claude")
    doubles = [start(team, m, 1, *(["--drain"] if m in MEMBERS[:2] else [])) for m in MEMBERS]
    new = tmp_path / "new.md"
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    new.write_text(gc.replace("is the source of truth", "is the single source of truth"), encoding="utf-8")
    try:
        code = main(["publish", str(demo_copy), "--new", str(new), "--deliver", "--team", str(team), "--json"])
        published = json.loads(capsys.readouterr().out)
        assert code == 0, published
        assert {r["role"]: (r["member"], r["mode"], r["delivered"]) for r in published["recipients"]} == {
            "implementer-1": ("implementer-1", "delta", True),
            "implementer-2": ("implementer-2", "delta", True),
            "implementer-3": ("implementer-3", "full", True),  # FC-1: two versions behind
            "implementer-4": ("implementer-4", "full", True),  # FC-2: reported CONTEXT_LOST
        }
        assert [p.wait(timeout=60) for p in doubles] == [0, 0, 0, 0]
    finally:
        for p in doubles:
            p.kill()
    inboxes = team / "inboxes"
    assert entries(inboxes / "implementer-1.json") == [] and entries(inboxes / "implementer-2.json") == []  # drained
    for m in MEMBERS[2:]:
        (item,) = entries(inboxes / f"{m}.json")
        assert item["read"] is True and item["from"] == "team-lead" and str(item["text"]).startswith("[CONTEXT-UPDATE]")
        assert item["summary"] == "CONTEXT-UPDATE GC-v7 (full)"
    replies = entries(inboxes / "team-lead.json")
    assert sorted(str(r["from"]) for r in replies) == list(MEMBERS)  # each once
    assert all(str(r["text"]).startswith("[ACK-UPDATE] GC-v7 received") for r in replies)
    ledger = [json.loads(line) for line in (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()]
    delivered = [e for e in ledger if e["direction"] == "delivered"]
    assert sorted(e["to"] for e in delivered) == list(MEMBERS)
    assert main(["team", str(demo_copy), "--json"]) == 0
    rows = {r["role"]: r for r in json.loads(capsys.readouterr().out)["teammates"]}
    for m in MEMBERS:
        assert rows[m]["member"] == m and rows[m]["last_sent"] == "GC-v7"
        assert rows[m]["delivered"] and rows[m]["picked_up"] and rows[m]["acked"], rows[m]
        assert rows[m]["context_tokens"] == 900 + 41_000 + 80 and rows[m]["context_window"] == 200_000
        assert rows[m]["suggested"] == "none"
    assert rows["researcher-1"]["member"] is None and rows["researcher-1"]["suggested"] == "link a member"


def test_the_window_shows_delivery_and_context_and_records_each_reply_once(
    qtbot: object, demo_copy: Path, tmp_path: Path
) -> None:
    from pytestqt.qtbot import QtBot

    from app.controller import Controller
    from app.settings import AppSettings

    assert isinstance(qtbot, QtBot)
    team = make_team(tmp_path / "claude")
    from PySide6.QtCore import QSettings

    ctl = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    try:
        assert ctl.open(demo_copy)
        ctl.set_team_folder(team)
        doubles = [start(team, m, 1) for m in MEMBERS]
        w = ctl.window
        pane = w.composer
        w.central_tabs.setCurrentWidget(pane)
        text = pane.editor.toPlainText()
        pane.editor.setPlainText(text + "\n")  # any edit of the Scope section is an update
        from PySide6.QtWidgets import QMessageBox

        pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
        with qtbot.waitSignal(ctl.team.delivered, timeout=15_000) as blocker:
            pane.publish()
        outcomes = blocker.args[0]
        assert sorted(o.role for o in outcomes if o.delivered) == list(MEMBERS)
        assert [p.wait(timeout=60) for p in doubles] == [0, 0, 0, 0]
        model = w.teammate_model

        def cell(role: str, column: int) -> str:
            row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == role)
            return str(model.index(row, column).data() or "")

        qtbot.waitUntil(lambda: all(cell(m, model.DELIVERY) == "ACKed" for m in MEMBERS), timeout=15_000)
        assert cell("implementer-1", model.MEMBER) == "implementer-1"
        assert cell("implementer-1", model.CONTEXT).endswith("42k/200k")
        qtbot.waitUntil(lambda: len([r for r in ctl.reviews if r.message.source.startswith("claude:")]) == 4)
        ctl.refresh_reviews()
        ctl.refresh_reviews()
        settle_reviews(qtbot, ctl)
        ledger = (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()
        received = [json.loads(x) for x in ledger if '"received"' in x and "claude:" in x]
        assert len(received) == 4 and len({e["source"] for e in received}) == 4  # each recorded once
    finally:
        ctl.close()


def test_contention_no_entry_lost_or_doubled_and_the_lock_is_held_for_milliseconds(
    demo_copy: Path, tmp_path: Path
) -> None:
    """Four teammates and a fifth writer append to the lead's inbox as fast as they can while the
    app delivers 50 updates; a reader without the lock never sees a file that does not parse."""
    team_dir = make_team(tmp_path / "claude")
    team = read_team(team_dir)
    link = Link(team_dir, {m: m for m in MEMBERS})
    outbox = demo_copy / "messages" / "outbox"
    outbox.mkdir(parents=True, exist_ok=True)
    sent = []
    for n in range(50):
        role = MEMBERS[n % 4]
        rel = f"messages/outbox/u{n}-{role}.md"
        body = f"[CONTEXT-UPDATE] GC-v{n + 7} → GC-v{n + 8}\n\n## Delta\n- ADDED §Risks: RK-{n} | x\n"
        (demo_copy / rel).write_text(body, encoding="utf-8")
        sent.append({"to": role, "file": rel, "gc_version": n + 8, "mode": "delta", "kind": "CONTEXT-UPDATE"})
    doubles = [start(team_dir, m, 50 // 4 + (1 if i < 50 % 4 else 0), "--drain") for i, m in enumerate(MEMBERS)]
    lead_inbox = team_dir / "inboxes" / "team-lead.json"
    lead_inbox.write_text("[]", encoding="utf-8")
    fifth = subprocess.Popen(
        [sys.executable, "-m", "bench.inbox_writer", str(lead_inbox), "200", "fifth"],
        preexec_fn=_behind_the_app,
        cwd=Path(__file__).resolve().parent.parent,
    )
    bad_reads: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                raw = lead_inbox.read_bytes()
                if raw:
                    json.loads(raw)
            except FileNotFoundError:
                pass
            except ValueError as exc:
                bad_reads.append(str(exc))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        outcomes = [o for entry in sent for o in deliver(demo_copy, team, link, [entry])]
        assert [p.wait(timeout=90) for p in doubles] == [0, 0, 0, 0]
        assert fifth.wait(timeout=90) == 0
    finally:
        stop.set()
        thread.join()
        for p in [*doubles, fifth]:
            p.kill()
    assert all(o.delivered for o in outcomes) and len(outcomes) == 50
    holds = sorted(o.lock_held_ms for o in outcomes)
    print(f"lock holds of ours: median {holds[25]:.1f} ms, longest {holds[-1]:.1f} ms")
    # Milliseconds, and far inside the second after which Claude Code drops its message. How long
    # the slowest of them takes is the disk's to decide (a rename waits for others' flushes): that
    # figure is the benchmark's "inbox lock held by the app" row; tests/test_inbox_lock.py shows
    # the flush is done before the lock.
    assert holds[25] < 10 and holds[-1] < 1000
    assert bad_reads == []
    replies = entries(lead_inbox)
    texts = [str(r["text"]) for r in replies]
    assert len([t for t in texts if t.startswith("fifth ")]) == 200 == len({t for t in texts if t.startswith("fifth ")})
    acks = [t for t in texts if t.startswith("[ACK-UPDATE]")]
    assert sorted(acks) == sorted({a for a in acks}) and len(acks) == 50  # none lost, none doubled
    for m in MEMBERS:
        assert entries(team_dir / "inboxes" / f"{m}.json") == []  # every update taken, none left twice


def test_a_busy_lock_delays_delivery_and_a_stale_one_is_broken(tmp_path: Path) -> None:
    team_dir = make_team(tmp_path / "claude")
    inbox = team_dir / "inboxes" / "implementer-1.json"
    inbox.write_text("[]", encoding="utf-8")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time; os.mkdir(sys.argv[1]); time.sleep(3); os.rmdir(sys.argv[1])",
         str(lock_path(inbox))]
    )  # fmt: skip
    while not lock_path(inbox).exists():
        time.sleep(0.01)
    start_at = time.monotonic()
    appended = append_entries(inbox, [{"from": "team-lead", "text": "x", "timestamp": "t", "read": False}])
    assert holder.wait(timeout=10) == 0
    assert 2.0 < appended.waited < 5.0 and time.monotonic() - start_at >= 2.0  # delayed, then written
    assert len(entries(inbox)) == 1
    os.mkdir(lock_path(inbox))
    old = time.time() - 15
    os.utime(lock_path(inbox), (old, old))  # a holder that died 15 s ago
    appended = append_entries(inbox, [{"from": "team-lead", "text": "y", "timestamp": "t2", "read": False}])
    assert appended.waited < 1.0 and len(entries(inbox)) == 2 and not lock_path(inbox).exists()
    os.mkdir(lock_path(inbox))  # fresh and held past our patience: undelivered, nothing written
    with pytest.raises(MailboxError, match="held by another writer"):
        append_entries(inbox, [{"from": "team-lead", "text": "z", "timestamp": "t3"}], wait_s=0.2)
    assert len(entries(inbox)) == 2


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "does not parse as JSON"),
        (b'{"a": 1}', "not an array"),
        (b"", "empty, not a JSON array"),
        (b"[" + b'{"from": "x", "text": "' + b"y" * 2_100_000 + b'"}]', "stops surfacing messages"),
    ],
)
def test_a_bad_mailbox_is_named_and_never_written(
    demo_copy: Path, tmp_path: Path, content: bytes, problem: str
) -> None:
    team_dir = make_team(tmp_path / "claude")
    inbox = team_dir / "inboxes" / "implementer-1.json"
    inbox.write_bytes(content)
    rel = "messages/outbox/one.md"
    (demo_copy / "messages" / "outbox").mkdir(parents=True, exist_ok=True)
    (demo_copy / rel).write_text("[CONTEXT-UPDATE] GC-v6 → GC-v7\n", encoding="utf-8")
    sent = [{"to": "implementer-1", "file": rel, "gc_version": 7, "mode": "delta"}]
    (outcome,) = deliver(demo_copy, read_team(team_dir), Link(team_dir, {"implementer-1": "implementer-1"}), sent)
    assert not outcome.delivered and problem in (outcome.reason or "")
    assert inbox.read_bytes() == content  # nothing written, nothing lost
    ledger = (demo_copy / "messages" / "ledger.jsonl").read_text()
    assert '"undelivered"' in ledger and problem in ledger


def test_a_name_that_is_no_member_is_never_written_to(demo_copy: Path, tmp_path: Path) -> None:
    team_dir = make_team(tmp_path / "claude", members=("implementer-1",))
    rel = "messages/outbox/one.md"
    (demo_copy / "messages" / "outbox").mkdir(parents=True, exist_ok=True)
    (demo_copy / rel).write_text("[CONTEXT-UPDATE] GC-v6 → GC-v7\n", encoding="utf-8")
    sent = [{"to": "implementer-2", "file": rel, "gc_version": 7}]
    link = Link(team_dir, {"implementer-2": "implementer-9"})  # a stale choice
    (outcome,) = deliver(demo_copy, read_team(team_dir), link, sent)
    assert not outcome.delivered and "orphan inbox" in (outcome.reason or "")
    assert not (team_dir / "inboxes" / "implementer-9.json").exists()


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
    broken.write_text(path.read_text() + "{half a line\nnot json at all\n", encoding="utf-8")
    damaged = read_transcript(broken, "implementer-1")
    assert damaged.tokens == expected and damaged.broken_lines == 2 and "2 broken lines" in damaged.problems[0]


def test_a_config_without_members_is_named(tmp_path: Path, demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team_dir = tmp_path / "claude" / "teams" / "empty"
    team_dir.mkdir(parents=True)
    (team_dir / "config.json").write_text('{"name": "empty"}', encoding="utf-8")
    assert main(["team", str(demo_copy), "--team", str(team_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("no members listed" in p for p in data["problems"])
    assert all(r["member"] is None for r in data["teammates"])
    assert not (team_dir / "inboxes").exists()  # nothing written


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
        view = ctl.window.teammate_view
        model = ctl.window.teammate_model
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
