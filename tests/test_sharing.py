"""Issue 47: the cost of sharing context. Every expected figure below is worked by hand from
the lines written here and Claude Code 2.1.332's rates for claude-opus-4-6 (its price table:
input $5, output $25, five-minute cache write $6.25, cache read $0.50 per million tokens), or,
on the demo, by a plain loop over the transcript's JSON written in this file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from transcript_lines import lines

from app.demo import DEMO_PROJECT, copy_demo
from conftest import REAL_SESSIONS, SHARED, copy_session, run_cli, snapshot_tree
from models.claude.prices import prices_for
from models.claude.sharing import kind_of, member_cost
from models.claude.transcript_cache import from_record, to_record
from models.claude.transcript_read import TranscriptFollower, read_transcript
from models.text.tokens import get_tokenizer

FULL = "[CONTEXT-UPDATE] GC-v5 (full injection)\n\n# the GC"
DELTA = "[CONTEXT-UPDATE] GC-v5 → GC-v6\n\n## Delta\n- ADD §Risks.R-4"
TOKENS = {FULL: 1000, DELTA: 50}  # the block sizes this test decides
ACK = "[ACK-UPDATE] GC-v6 received.\n- Delta items applied: 1/1"


def _block(n: int, text: str) -> dict[str, Any]:
    content = f'<teammate-message teammate_id="team-lead" summary="u{n}">{text}</teammate-message>'
    return {
        "type": "user",
        "timestamp": f"2026-11-29T01:{n:02d}:00.000Z",
        "message": {"role": "user", "content": content},
    }


def _response(n: int, inp: int, write: int, read: int, out: int, ack: bool = False) -> list[dict[str, Any]]:
    usage = {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
             "output_tokens": out}  # fmt: skip
    message = {"id": f"msg_{n}", "model": "claude-opus-4-6", "usage": usage}
    text = {**message, "content": [{"type": "text", "text": "Applying it."}]}
    line = {"type": "assistant", "timestamp": f"2026-11-29T01:{n:02d}:30.000Z", "message": text}
    if not ack:
        return [line]
    send = {"type": "tool_use", "name": "SendMessage", "input": {"to": "team-lead", "message": ACK}}
    return [line, {**line, "message": {**message, "content": [send]}}]  # one response, two lines


def _compaction() -> dict[str, Any]:
    return {"type": "system", "subtype": "compact_boundary", "timestamp": "2026-11-29T01:50:00.000Z",
            "compactMetadata": {"preTokens": 2_000, "postTokens": 300}}  # fmt: skip


def _day() -> list[dict[str, Any]]:
    return [
        _block(0, FULL),
        *_response(1, 10, 1500, 0, 100),
        *_response(2, 10, 200, 1500, 100),
        _block(3, DELTA),
        *_response(4, 10, 60, 1700, 40, ack=True),
        *_response(5, 10, 100, 1760, 100),
        _compaction(),
        *_response(6, 10, 300, 0, 100),
    ]


def test_prices_are_the_clients_own_table() -> None:
    opus = prices_for("claude-opus-4-6-20260301")
    assert opus is not None and (opus.input, opus.output, opus.write_5m, opus.write_1h, opus.read) == (
        5,
        25,
        6.25,
        10,
        0.5,
    )
    haiku = prices_for("claude-haiku-5-5")
    assert haiku is not None and haiku.at(100_000).input == 0.1 and haiku.at(100_001).input == 0.5
    assert prices_for("claude-opus-5-5[1m]") == prices_for("claude-opus-5-5")
    assert prices_for("gpt-9") is None


def test_kinds_by_first_line() -> None:
    assert [kind_of(t) for t in (FULL, DELTA, ACK, "[PING] GC-v6 was sent", "Please take T-4")] == [
        "full", "delta", "ack", "ping", None,
    ]  # fmt: skip
    assert kind_of("[CONTEXT-UPDATE] GC-v6 → GC-v7 | Delta: nothing in your sections | Impact: NONE") == "bump"
    assert kind_of("[CONTEXT-UPDATE] GC-v7 (full injection: the sections you follow)\n\n...") == "full"


def test_a_day_of_one_teammate_worked_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(lines(_day()))
    context = TranscriptFollower(spend=True).read(path, "implementer-1")
    cost = member_cost(context, TOKENS.__getitem__, "implementer-1", lambda block, kind: (1000, None))
    assert cost is not None and cost.responses == 5  # the ACK's two lines are one response
    # Every response at its tier: r1 0.011925, r2 0.00455, r3 0.002275, r4 0.004055, r5 0.004425.
    assert cost.total.tokens == 1610 + 1810 + 1810 + 1970 + 410
    assert cost.total.usd == pytest.approx(0.02723)
    # The GC: written by r1, read by r2..r4, gone with the compaction.
    assert cost.by_kind["full"].tokens == 4000 and cost.by_kind["full"].usd == pytest.approx(0.00775)
    # The delta: written by r3 (the ACK), read by r4.
    assert cost.by_kind["delta"].tokens == 100 and cost.by_kind["delta"].usd == pytest.approx(0.0003375)
    # The ACK turn r3, less the GC's read and the delta's write it already counted.
    assert cost.by_kind["ack"].tokens == 1810 - 1050 and cost.by_kind["ack"].usd == pytest.approx(0.0014625)
    assert cost.coordination.usd == pytest.approx(0.00955)
    assert cost.share == pytest.approx(0.00955 / 0.02723)
    # A full GC of 1,000 tokens in the delta's place, as long-lived: 950 more, written once and read once.
    assert cost.saved_by_deltas.tokens == 1900 and cost.saved_by_deltas.usd == pytest.approx(950 * 6.75e-6)
    assert cost.saved_by_subscriptions.tokens == 0


def test_the_lead_answering_acks_alone_is_a_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "lead.jsonl"
    ack = {**_block(1, ACK), "message": {"role": "user", "content":
           f'<teammate-message teammate_id="implementer-1" summary="ACK">{ACK}</teammate-message>'}}  # fmt: skip
    path.write_bytes(lines([*_response(0, 10, 1000, 0, 50), ack, *_response(2, 10, 30, 1060, 20)]))
    cost = member_cost(TranscriptFollower(spend=True).read(path, "team-lead"), lambda text: 30)
    assert cost is not None
    # The ACK (30 tokens) written by the lead's next response; that response, less that write, is the round trip.
    assert cost.by_kind["ack"].tokens == 30 + (10 + 30 + 1060 + 20 - 30)
    assert cost.by_kind["ack"].usd == pytest.approx((10 * 5 + 30 * 6.25 + 1060 * 0.5 + 20 * 25) / 1e6)


def test_followed_appends_and_the_cache_give_what_a_whole_read_gives(tmp_path: Path) -> None:
    day = lines(_day())
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(day)
    wanted = TranscriptFollower(spend=True).read(whole, "x")
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    follower = TranscriptFollower(spend=True)
    for cut in range(0, len(day), 97):  # every few bytes, a last line often half written
        with path.open("ab") as fh:
            fh.write(day[cut : cut + 97])
        follower.read(path, "x")
    got = follower.read(path, "x")
    assert got.spending == wanted.spending and got.received == wanted.received
    progress = follower.take_advanced()[path]
    kept = TranscriptFollower({path: from_record(json.loads(json.dumps(to_record(path, progress))))[1]}, spend=True)
    assert kept.read(path, "x").spending == wanted.spending
    assert read_transcript(whole, "x").spending is None  # asked for nothing, keeps nothing
    # A follower asked for spending does not take a kept read made without it.
    plain = TranscriptFollower()
    plain.read(path, "x")
    assert TranscriptFollower(plain.take_advanced(), spend=True).read(path, "x").spending == wanted.spending


def _is_update(content: object) -> bool:
    return isinstance(content, str) and content.startswith("<teammate-message") and "[CONTEXT-UPDATE]" in content


def _by_hand(path: Path, count: Any) -> tuple[float, float]:
    """(spent, on context) of a demo transcript, by a plain loop over its JSON: each response
    once by id at opus-4-6's rates; each update block written by the next response and read by
    every later one until a compaction; an ACK-sending response whole, less what it wrote or
    read of those blocks."""
    rate = {"input_tokens": 5, "cache_creation_input_tokens": 6.25, "cache_read_input_tokens": 0.5, "output_tokens": 25}
    events: list[tuple[str, Any]] = []
    seen: dict[str, int] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(raw)
        if entry["type"] == "assistant":
            message = entry["message"]
            ack = "[ACK-UPDATE]" in raw
            if message["id"] in seen:
                events[seen[message["id"]]][1]["ack"] |= ack
                continue
            seen[message["id"]] = len(events)
            usd = sum(message["usage"][k] * r for k, r in rate.items()) / 1e6
            events.append(("response", {"usd": usd, "ack": ack}))
        elif entry["type"] == "system" and entry.get("subtype") == "compact_boundary":
            events.append(("compaction", None))
        elif entry["type"] == "user" and _is_update(content := entry["message"]["content"]):
            text = content.split(">", 1)[1].rsplit("</teammate-message>", 1)[0].strip("\n")
            events.append(("block", count(text)))
    spent = sum(e[1]["usd"] for e in events if e[0] == "response")
    shared = 0.0
    live: list[list[int]] = []  # [tokens, written?]
    for kind, value in events:
        if kind == "block":
            live.append([value, 0])
        elif kind == "compaction":
            live = []
        else:
            here = 0.0
            for block in live:
                here += block[0] * (0.5 if block[1] else 6.25) / 1e6
                block[1] = 1
            shared += here + (value["usd"] - here if value["ack"] else 0.0)
    return spent, shared


@pytest.fixture
def linked_demo(tmp_path: Path) -> Path:
    """A copy of the demo project, its session linked to its Claude Code team."""
    return copy_demo(tmp_path / "project")


def test_the_demo_team_by_hand_in_the_cli(linked_demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo_copy = linked_demo
    code, out, _ = run_cli(capsys, "team", str(demo_copy), "--json", "--cost", "--tokenizer", "estimate")
    assert code == 0
    cost = json.loads(out)["cost"]
    members = {m["role"]: m for m in cost["members"]}
    assert sorted(members) == ["implementer-1", "implementer-2", "implementer-3", "implementer-4"]
    project = demo_copy.parents[2] / ".claude-demo" / "projects" / "-home-lead-payments-ledger"
    count = get_tokenizer("estimate").count
    for n, role in enumerate(sorted(members), start=1):
        spent, shared = _by_hand(project / f"5a1e{n}c00-0000-4000-8000-00000000000{n}.jsonl", count)
        assert members[role]["total"]["usd"] == pytest.approx(spent, abs=1e-5)
        assert members[role]["coordination"]["usd"] == pytest.approx(shared, abs=1e-5)
    # implementer-1 and -2 ACKed GC-v6 (a SendMessage each); -3 and -4 did not.
    assert [members[r]["by_kind"]["ack"]["usd"] > 0 for r in sorted(members)] == [True, True, False, False]
    team = cost["team"]
    assert team["total"]["usd"] == pytest.approx(sum(m["total"]["usd"] for m in members.values()), abs=1e-5)
    assert team["coordination_share_percent"] == pytest.approx(
        100 * team["coordination"]["usd"] / team["total"]["usd"], abs=0.05
    )
    code, text, _ = run_cli(capsys, "team", str(demo_copy), "--cost", "--tokenizer", "estimate")
    assert code == 0 and "The cost of sharing context" in text and f"{team['coordination_share_percent']:.1f}%" in text


def test_savings_carries_the_cost_and_says_when_no_team_is_linked(
    linked_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo_copy = linked_demo
    bundled = snapshot_tree(DEMO_PROJECT)
    code, out, _ = run_cli(capsys, "savings", "--json", "--tokenizer", "estimate")  # the bundled demo, its team
    assert code == 0
    assert snapshot_tree(DEMO_PROJECT) == bundled  # its team looked at, not linked: nothing written
    sharing = json.loads(out)["sharing"]
    code, team_out, _ = run_cli(capsys, "team", str(demo_copy), "--json", "--cost", "--tokenizer", "estimate")
    assert sharing["team"] == json.loads(team_out)["cost"]["team"]  # the same team, the same files
    (demo_copy / ".lead-console" / "claude-team.json").unlink()
    code, text, _ = run_cli(capsys, "savings", str(demo_copy), "--tokenizer", "estimate")
    assert code == 0 and "no Claude Code team linked" in text


def test_the_window_charts_what_the_cli_says(qtbot: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl+Shift+T typed into the window opens the cost dialog: a bar per teammate and the
    table's figures are the CLI's, the headline the team's share; a transcript that grows while
    it is open is shown again (the response appended counted in its spent)."""
    from PySide6.QtCore import Qt

    from models.claude.sharing import usd
    from tests.conftest import activate, settle_reviews, shown_controller

    controller = shown_controller(qtbot, tmp_path)
    folder = copy_demo(tmp_path / "demo")
    code, out, _ = run_cli(capsys, "team", str(folder), "--json", "--cost")
    assert code == 0
    cli = {m["role"]: m for m in json.loads(out)["cost"]["members"]}
    share = json.loads(out)["cost"]["team"]["coordination_share_percent"]
    assert controller.open(folder)
    qtbot.waitUntil(lambda: controller.window.teammates_pane.teammate_model.linked, timeout=10_000)
    settle_reviews(qtbot, controller)
    activate(qtbot, controller.window)
    qtbot.keyClick(
        controller.window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    dialog = controller.cost.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.headline.text().startswith("The team spent"), timeout=10_000)
    assert f"({share:.1f}%) on sharing context" in dialog.headline.text()
    assert [m.role for m in dialog.chart.members] == sorted(cli)
    table = {dialog.table.item(r, 0).text(): [dialog.table.item(r, c).text() for c in range(1, 5)]
             for r in range(dialog.table.rowCount())}  # fmt: skip
    assert table == {
        role: [usd(m["total"]["usd"]), usd(m["work"]["usd"]), usd(m["coordination"]["usd"]),
               f"{m['coordination_share_percent']:.1f}%"]
        for role, m in cli.items()
    }  # fmt: skip
    transcript = next((folder.parents[2] / ".claude-demo" / "projects").glob("*/5a1e3c00-*.jsonl"))
    last = json.loads(transcript.read_text(encoding="utf-8").splitlines()[-1])
    last["message"] = {
        **last["message"],
        "id": "msg_more",
        "usage": {**last["message"]["usage"], "output_tokens": 40_000},
    }
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(last) + "\n")  # a response with $1.00 of output at $25 a million
    before = cli["implementer-3"]["total"]["usd"]
    qtbot.waitUntil(
        lambda: dialog.table.item(2, 1).text() == usd(before + 1.0 + (1200 * 5 + 2000 * 6.25 + 118_100 * 0.5) / 1e6),
        timeout=10_000,
    )
    dialog.close()
    controller.close()


@pytest.mark.parametrize("session", sorted(p.name for p in REAL_SESSIONS.iterdir() if p.is_dir()))
def test_every_real_session_with_the_real_clients_transcript(
    session: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shared session linked to a copy of the 2.1.332 team whose transcript the real
    client wrote: the cost is read (exit 0, no traceback) and, where a role is linked to
    implementer-1, it is what the plain loop over that transcript says."""
    claude = tmp_path / "claude"
    shutil.copytree(SHARED / "claude-code-team" / "v2.1.332", claude)
    folder = copy_session(REAL_SESSIONS / session, tmp_path)
    code, out, err = run_cli(capsys, "team", str(folder), "--team", str(claude / "teams" / "cow-execution"),
                             "--json", "--cost", "--tokenizer", "estimate")  # fmt: skip
    assert code == 0, err
    members = {m["member"]: m for m in json.loads(out)["cost"]["members"]}
    transcript = next((claude / "transcripts").glob("*.jsonl"))
    if "implementer-1" in {r["member"] for r in json.loads(out)["teammates"]}:
        spent, shared = _by_hand(transcript, get_tokenizer("estimate").count)
        assert members["implementer-1"]["total"]["usd"] == pytest.approx(spent, abs=1e-6)
        assert members["implementer-1"]["coordination"]["usd"] == pytest.approx(shared, abs=1e-6)
        assert members["implementer-1"]["responses"] == 5  # msg_01A, B, C, E, D: split responses once
    else:
        assert members == {}
