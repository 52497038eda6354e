"""Issue 46: the CLI keeps what it read of each transcript in the session's
``.lead-console/transcripts/``, so that a second ``lead-console team`` reads only what the
transcripts gained since the first, and says exactly what a run that reads them whole says."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from claude_team_steps import MEMBERS, make_team
from transcript_lines import compaction, count_reads, lines, noise, reply, response

from app.cli.main import main
from models.claude.replies import team_replies
from models.claude.transcript_cache import CACHE, FORM, cached_follower
from models.claude.transcript_read import HEAD_BYTES


def _team(demo_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A linked team of four whose transcripts are about half a megabyte each; the lead's too."""
    team = make_team(tmp_path / "claude")
    work = tmp_path / "claude" / "projects" / "-work"
    for i, member in enumerate(MEMBERS):
        (work / f"s-{member}.jsonl").write_bytes(lines([noise(n % 60) for n in range(1500)] + response(1, 20_000 + i)))
    (work / "lead-session.jsonl").write_bytes(lines([noise(n % 60) for n in range(1500)]))
    return team, work


def _rows(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, Any]]:
    assert main(["team", *args, "--json"]) == 0
    return {r["role"]: r for r in json.loads(capsys.readouterr().out)["teammates"]}


def _append(path: Path, data: bytes) -> int:
    with path.open("ab") as fh:
        fh.write(data)
    return len(data)


def test_a_second_run_reads_only_what_was_appended_and_says_what_a_whole_read_says(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    team, work = _team(demo_copy, tmp_path)
    first = _rows(capsys, str(demo_copy), "--team", str(team))
    assert [first[m]["context_tokens"] for m in MEMBERS] == [20_015, 20_016, 20_017, 20_018]  # 10 + cache + 5
    assert len(list((demo_copy / CACHE).glob("*.json"))) == 5  # four teammates and the lead
    appended = _append(work / "s-implementer-1.jsonl", lines([compaction(3, 4_000)]))
    appended += _append(work / "s-implementer-2.jsonl", lines(response(2, 30_000)))
    appended += _append(work / "lead-session.jsonl", lines([reply(1, "implementer-2", "[STATUS] WORKING")]))
    read = count_reads(monkeypatch)
    second = _rows(capsys, str(demo_copy))
    monkeypatch.undo()
    assert sum(read) <= appended + 3 * HEAD_BYTES  # not the two megabytes: the appends and three files' first bytes
    assert (second["implementer-1"]["context_tokens"], second["implementer-1"]["compactions"]) == (
        4_000,
        ["2026-11-29T01:03:50.000Z"],
    )
    assert second["implementer-2"]["context_tokens"] == 30_015
    assert [second[m]["context_tokens"] for m in MEMBERS[2:]] == [20_017, 20_018]
    shutil.rmtree(demo_copy / CACHE)
    assert _rows(capsys, str(demo_copy)) == second  # every transcript read whole says the same


def test_the_lead_transcripts_replies_come_from_the_cache_as_from_a_whole_read(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, work = _team(demo_copy, tmp_path)
    _append(work / "lead-session.jsonl", lines([reply(1, "implementer-3", "[ACK-UPDATE] GC-v6 received")]))
    _rows(capsys, str(demo_copy), "--team", str(team))  # keeps what it read of the lead's transcript
    follower = cached_follower(demo_copy)
    _append(work / "lead-session.jsonl", lines([reply(2, "implementer-4", "[STATUS] BLOCKED | no key")]))
    followed = [(m.sender, m.text) for m in team_replies(team, follower)[0]]
    assert followed == [(m.sender, m.text) for m in team_replies(team)[0]]
    assert followed == [
        ("implementer-3", "[ACK-UPDATE] GC-v6 received"),
        ("implementer-4", "[STATUS] BLOCKED | no key"),
    ]


def test_a_damaged_or_foreign_cache_is_read_again_from_the_transcripts(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, _ = _team(demo_copy, tmp_path)
    first = _rows(capsys, str(demo_copy), "--team", str(team))
    kept = sorted((demo_copy / CACHE).glob("*.json"))
    kept[0].write_bytes(b"\xff{not json")
    kept[1].write_text(json.dumps({"form": 99}), encoding="utf-8")
    record = json.loads(kept[2].read_text(encoding="utf-8"))
    kept[2].write_text(json.dumps({**record, "head": "not base64!"}), encoding="utf-8")
    assert _rows(capsys, str(demo_copy)) == first
    assert all(json.loads(k.read_text(encoding="utf-8"))["form"] == FORM for k in kept)  # written again


def test_a_replaced_transcript_is_read_from_its_start(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, work = _team(demo_copy, tmp_path)
    path = work / "s-implementer-1.jsonl"
    _append(path, lines([compaction(3, 4_000)]))
    assert _rows(capsys, str(demo_copy), "--team", str(team))["implementer-1"]["compactions"] != []
    staged = work / "new.tmp"
    staged.write_bytes(lines(response(9, 50_000)))
    os.replace(staged, path)
    row = _rows(capsys, str(demo_copy))["implementer-1"]
    assert (row["context_tokens"], row["compactions"]) == (50_015, [])


def test_a_cache_folder_linked_out_of_the_session_is_not_written(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, _ = _team(demo_copy, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (demo_copy / CACHE).parent.mkdir(exist_ok=True)
    (demo_copy / CACHE).symlink_to(elsewhere)
    assert _rows(capsys, str(demo_copy), "--team", str(team))["implementer-1"]["context_tokens"] == 20_015
    assert list(elsewhere.iterdir()) == []


def test_an_app_folder_linked_out_of_the_session_gets_no_cache_folder(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team, _ = _team(demo_copy, tmp_path)
    _rows(capsys, str(demo_copy), "--team", str(team))  # links the session: .lead-console/ exists
    elsewhere = tmp_path / "elsewhere"
    (demo_copy / ".lead-console").rename(elsewhere)
    (demo_copy / ".lead-console").symlink_to(elsewhere)
    shutil.rmtree(elsewhere / "transcripts")
    assert _rows(capsys, str(demo_copy))["implementer-1"]["context_tokens"] == 20_015
    assert not (elsewhere / "transcripts").exists()  # nothing made through the link
