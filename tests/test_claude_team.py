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
from claude_team_steps import MEMBERS, behind_the_app, entries, make_team, start

from app.cli.main import main
from conftest import settle_reviews
from models.claude.delivery import deliver
from models.claude.mailbox import MailboxError, append_entries, lock_path
from models.claude.team import Link, read_team


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
        assert (
            item["read"] is True and item["from"] == "lead-console" and str(item["text"]).startswith("[CONTEXT-UPDATE]")
        )
        assert str(item["text"]).endswith(
            "\n\nReply to team-lead with SendMessage: [ACK-UPDATE] GC-v7 (applied/total, impact, action, unclear items)."
        )
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
        ctl.link.set_team_folder(team)
        doubles = [start(team, m, 1) for m in MEMBERS]
        w = ctl.window
        pane = w.composer
        w.central_tabs.setCurrentWidget(pane)
        text = pane.editor.toPlainText()
        pane.editor.setPlainText(text + "\n")  # any edit of the Scope section is an update
        from PySide6.QtWidgets import QMessageBox

        pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
        with qtbot.waitSignal(ctl.team.delivered, timeout=15_000) as blocker:
            pane.session_actions.publish()
        outcomes = blocker.args[0]
        assert sorted(o.role for o in outcomes if o.delivered) == list(MEMBERS)
        assert [p.wait(timeout=60) for p in doubles] == [0, 0, 0, 0]
        model = w.teammates_pane.teammate_model

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
        preexec_fn=behind_the_app,
        cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.PIPE,
        text=True,
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
        dropped = int(fifth.communicate(timeout=90)[0])  # given up after Claude Code's 655 ms, as it does
        assert fifth.returncode == 0
    finally:
        stop.set()
        thread.join()
        for p in [*doubles, fifth]:
            p.kill()
    assert all(o.delivered for o in outcomes) and len(outcomes) == 50
    holds = sorted(o.lock_held_ms for o in outcomes)
    print(f"lock holds of ours: median {holds[25]:.1f} ms, longest {holds[-1]:.1f} ms")
    # Milliseconds, far inside the 655 ms after which Claude Code drops its message. How long the
    # slowest of them takes is the disk's and the scheduler's to decide: the benchmark's "inbox
    # lock held by the app" row reports p99 and the longest; tests/test_inbox_lock.py shows
    # nothing is written or flushed under the lock.
    assert holds[25] < 10 and holds[-1] < 1000
    assert bad_reads == []
    replies = entries(lead_inbox)
    texts = [str(r["text"]) for r in replies]
    fifths = [t for t in texts if t.startswith("fifth ")]
    assert len(fifths) == 200 - dropped == len(set(fifths))
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


def test_a_config_without_members_is_named(tmp_path: Path, demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team_dir = tmp_path / "claude" / "teams" / "empty"
    team_dir.mkdir(parents=True)
    (team_dir / "config.json").write_text('{"name": "empty"}', encoding="utf-8")
    assert main(["team", str(demo_copy), "--team", str(team_dir), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("no members listed" in p for p in data["problems"])
    assert all(r["member"] is None for r in data["teammates"])
    assert not (team_dir / "inboxes").exists()  # nothing written
