"""Issue 46: a transcript is followed by its appends. After every kind of change a working
teammate's transcript sees (appends, a last line half written, a truncation, a replaced file, a
file rewritten in place, a compaction), what the follower reports is exactly what a fresh read of
the whole file reports, and a read after an append reads only what was appended."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import models.claude.transcript_read as transcript_read
from models.claude.transcript_read import HEAD_BYTES, TeammateContext, TranscriptFollower, read_transcript


def _response(n: int, tokens: int, model: str = "claude-opus-5-5", split: bool = False) -> list[dict[str, Any]]:
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": tokens,
        "output_tokens": 5,
    }
    line = {"type": "assistant", "timestamp": f"2026-11-29T01:{n:02d}:00.000Z", "agentName": "implementer-1",
            "message": {"id": f"msg_{n}", "model": model, "usage": usage, "content": [{"type": "text", "text": "x"}]}}  # fmt: skip
    return [line, line] if split else [line]


def _update(n: int) -> dict[str, Any]:
    block = f'<teammate-message teammate_id="lead-console" summary="CONTEXT-UPDATE GC-v{n} (delta)">\n'
    return {"type": "user", "timestamp": f"2026-11-29T01:{n:02d}:30.000Z",
            "message": {"role": "user", "content": block + f"[CONTEXT-UPDATE] GC-v{n}\n</teammate-message>"}}  # fmt: skip


def _noise(n: int) -> dict[str, Any]:
    return {"type": "attachment", "timestamp": f"2026-11-29T01:{n:02d}:40.000Z", "attachment": {"kind": "x" * 300}}


def _compaction(n: int, post: int) -> dict[str, Any]:
    meta = {"trigger": "auto", "preTokens": 150_000, "postTokens": post}
    return {"type": "system", "subtype": "compact_boundary", "timestamp": f"2026-11-29T01:{n:02d}:50.000Z",
            "compactMetadata": meta}  # fmt: skip


def _lines(items: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(i).encode("utf-8") + b"\n" for i in items)


def _facts(c: TeammateContext) -> tuple[object, ...]:
    return (c.tokens, c.last_response, c.model, c.window, c.window_source, c.compactions, c.received,
            c.broken_lines, c.problems)  # fmt: skip


def _same(follower: TranscriptFollower, path: Path) -> TeammateContext:
    followed = follower.read(path, "implementer-1")
    assert _facts(followed) == _facts(read_transcript(path, "implementer-1"))
    return followed


def test_appends_are_read_as_a_whole_read_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_lines([_update(1), *_response(1, 20_000), _noise(1)]))
    follower = TranscriptFollower()
    assert _same(follower, path).tokens == 20_015
    with path.open("ab") as fh:
        fh.write(_lines([*_response(2, 30_000, split=True), _update(2), _noise(2)]))
    after = _same(follower, path)
    assert after.tokens == 30_015 and [r.summary for r in after.received] == [
        "CONTEXT-UPDATE GC-v1 (delta)",
        "CONTEXT-UPDATE GC-v2 (delta)",
    ]
    with path.open("ab") as fh:
        fh.write(_lines([_compaction(3, 4_000)]))
    assert _same(follower, path).tokens == 4_000  # the compaction's postTokens
    with path.open("ab") as fh:
        fh.write(_lines(_response(4, 250_000, model="claude-opus-4-6")))
    last = _same(follower, path)
    assert (last.tokens, last.window) == (250_015, 1_000_000)  # a 200k model seen holding more: 1M


def test_a_last_line_half_written_is_read_once_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    whole = _lines([*_response(1, 20_000), *_response(2, 40_000)])
    first, second = whole.split(b"\n")[0] + b"\n", whole.split(b"\n")[1] + b"\n"
    path.write_bytes(first + second[:50])  # the second response is being written
    follower = TranscriptFollower()
    assert _same(follower, path).tokens == 20_015 and follower.read(path, "x").broken_lines == 0
    with path.open("ab") as fh:
        fh.write(second[50:])
    assert _same(follower, path).tokens == 40_015


@pytest.mark.parametrize("how", ["truncated", "replaced", "rewritten in place"])
def test_a_file_truncated_replaced_or_rewritten_is_read_from_its_start(tmp_path: Path, how: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_lines([_update(1), *_response(1, 20_000), *_response(2, 90_000), _compaction(3, 5_000)]))
    follower = TranscriptFollower()
    assert _same(follower, path).compactions == ["2026-11-29T01:03:50.000Z"]
    other = _lines([_update(7), *_response(7, 60_000), _noise(7), _noise(8), _noise(9)])
    if how == "truncated":
        path.write_bytes(_lines(_response(5, 10_000)))
    elif how == "replaced":
        staged = tmp_path / "new.jsonl"
        staged.write_bytes(other)
        os.replace(staged, path)
    else:
        with path.open("r+b") as fh:  # the same inode, longer, other first bytes
            fh.write(other)
    again = _same(follower, path)
    assert again.compactions == []


def test_a_read_after_an_append_reads_only_the_append(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(_lines([_noise(n % 60) for n in range(3000)] + _response(1, 20_000)))  # about 1 MB
    follower = TranscriptFollower()
    follower.read(path, "implementer-1")
    appended = _lines(_response(2, 21_000))
    with path.open("ab") as fh:
        fh.write(appended)
    read: list[int] = []
    real = os.pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        data = real(fd, n, offset)
        read.append(len(data))
        return data

    monkeypatch.setattr(transcript_read.os, "pread", counting)
    assert follower.read(path, "implementer-1").tokens == 21_015
    assert sum(read) <= len(appended) + HEAD_BYTES  # the append and the first bytes, not the megabyte
