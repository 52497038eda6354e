"""A teammate's context from its transcript, on transcripts written here line by line as
PROTOCOL.md describes them: usage counted once per ``message.id``, the last response's input,
cache and output tokens, ``compact_boundary`` lines, and which file is whose."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from models.claude.team import Member, Team
from models.claude.transcript_read import read_transcript
from models.claude.transcripts import find_transcript


def _assistant(mid: str, ts: str, usage: dict[str, int], model: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"id": mid, "role": "assistant", "usage": usage}
    if model is not None:
        message["model"] = model
    return {"type": "assistant", "timestamp": ts, "message": message}


def _usage(inp: int, created: int, read: int, out: int) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": created,
        "cache_read_input_tokens": read,
        "output_tokens": out,
    }


def _write(path: Path, lines: list[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_the_context_held_is_the_last_responses_tokens_counted_once(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.jsonl",
        [
            _assistant("msg_1", "2026-11-22T03:00:00Z", _usage(10, 1000, 20_000, 50), model="claude-opus-4-6"),
            # one response over two lines (parallel tool calls): the same usage on each
            _assistant("msg_2", "2026-11-22T03:01:00Z", _usage(5, 2000, 30_000, 400)),
            _assistant("msg_2", "2026-11-22T03:01:00Z", _usage(5, 2000, 30_000, 400)),
            {  # a user turn carries no response of the agent's, whatever it holds
                "type": "user",
                "timestamp": "2026-11-22T03:01:30Z",
                "message": {"id": "msg_u", "role": "user", "usage": _usage(9, 9, 9, 9)},
            },
            {
                "type": "assistant",
                "timestamp": "2026-11-22T03:02:00Z",
                "message": {"usage": _usage(1, 1, 1, 1)},
            },  # no id
        ],
    )
    context = read_transcript(path, "impl-one")
    assert (context.tokens, context.last_response) == (5 + 2000 + 30_000 + 400, "2026-11-22T03:01:00Z")
    assert (context.model, context.window, context.compactions, context.problems) == (
        "claude-opus-4-6",
        200_000,
        [],
        [],
    )


def test_compactions_broken_lines_and_a_1m_window(tmp_path: Path) -> None:
    """A broken line that would be a compaction or a teammate's message is counted; a broken
    response before the last one is passed over (only the last response says the context)."""
    path = _write(
        tmp_path / "t.jsonl",
        [
            _assistant("msg_1", "2026-11-22T03:00:00Z", _usage(1, 0, 100_000, 1), model="claude-sonnet-4-5[1m]"),
            {"type": "system", "subtype": "compact_boundary", "timestamp": "2026-11-22T04:00:00Z"},
            '{"type": "system", "subtype": "compact_boundary", "timest',  # half a line
            '["<teammate-message teammate_id=\\"x\\">", 2, 3]',  # parses, and is no line
            '{"type": "assistant", "message": {"id": "msg_2", "usa',  # half a response: passed over
            _assistant("msg_3", "2026-11-22T04:01:00Z", _usage(1, 0, 30_000, 1)),
            {"type": "system", "subtype": "compact_boundary", "timestamp": "2026-11-22T05:00:00Z"},
        ],
    )
    context = read_transcript(path, "impl-one")
    assert context.compactions == ["2026-11-22T04:00:00Z", "2026-11-22T05:00:00Z"]
    assert (context.broken_lines, context.problems) == (2, ["t.jsonl: 2 broken lines skipped"])
    assert (context.model, context.window, context.tokens) == ("claude-sonnet-4-5[1m]", 1_000_000, 30_002)


@pytest.mark.parametrize(("held", "pressure"), [(159_999, False), (160_000, True), (200_000, True)])
def test_pressure_from_four_fifths_of_the_window(tmp_path: Path, held: int, pressure: bool) -> None:
    """claude-opus-4-6: a 200k window in Claude Code 2.1.332's catalog."""
    usage = _usage(held, 0, 0, 0)
    path = _write(tmp_path / "t.jsonl", [_assistant("msg_1", "2026-11-22T03:00:00Z", usage, model="claude-opus-4-6")])
    context = read_transcript(path, "impl-one")
    assert (context.pressure, context.share) == (pressure, held / 200_000)


def _named(team: str, agent: str) -> dict[str, Any]:
    return {"type": "user", "teamName": team, "agentName": agent, "timestamp": "2026-11-22T03:00:00Z"}


def test_a_transcript_is_found_by_session_id_else_by_the_newest_naming_the_member(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    team = Team(root / "teams" / "ledger", "ledger", "team-lead", None)
    transcripts = root / "transcripts"
    by_id = _write(transcripts / "sess-1.jsonl", [_named("ledger", "someone-else")])
    older = _write(transcripts / "a.jsonl", [_named("ledger", "impl-one")])
    newer = _write(transcripts / "b.jsonl", [{"type": "user"}, _named("ledger", "impl-one")])
    other_team = _write(transcripts / "c.jsonl", [_named("payments", "impl-one")])
    for age, path in enumerate((other_team, newer, older, by_id)):  # other_team is the newest
        os.utime(path, (1_800_000_000 - age * 60, 1_800_000_000 - age * 60))
    assert find_transcript(team, Member("impl-one", session_id="sess-1")) == by_id
    assert find_transcript(team, Member("impl-one")) == newer
    assert find_transcript(team, Member("impl-two")) is None
    unnamed_team = _write(transcripts / "d.jsonl", [{"type": "user", "agentName": "impl-two"}])
    assert find_transcript(team, Member("impl-two")) == unnamed_team  # no teamName: any team's
