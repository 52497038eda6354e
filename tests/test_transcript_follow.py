"""Issue 46: a transcript is followed by its appends. After every kind of change a working
teammate's transcript sees (appends, a last line half written, a truncation, a replaced file, a
file rewritten in place, a compaction), what the follower reports is exactly what a fresh read of
the whole file reports, and a read after an append reads only what was appended."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from transcript_lines import compaction, count_reads, lines, noise, response, update

from models.claude.transcript_read import HEAD_BYTES, TeammateContext, TranscriptFollower, read_transcript


def _facts(c: TeammateContext) -> tuple[object, ...]:
    return (c.tokens, c.last_response, c.model, c.window, c.window_source, c.compactions, c.received,
            c.broken_lines, c.problems)  # fmt: skip


def _same(follower: TranscriptFollower, path: Path) -> TeammateContext:
    followed = follower.read(path, "implementer-1")
    assert _facts(followed) == _facts(read_transcript(path, "implementer-1"))
    return followed


def test_appends_are_read_as_a_whole_read_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(lines([update(1), *response(1, 20_000), noise(1)]))
    follower = TranscriptFollower()
    assert _same(follower, path).tokens == 20_015
    with path.open("ab") as fh:
        fh.write(lines([*response(2, 30_000, split=True), update(2), noise(2)]))
    after = _same(follower, path)
    assert after.tokens == 30_015 and [r.summary for r in after.received] == [
        "CONTEXT-UPDATE GC-v1 (delta)",
        "CONTEXT-UPDATE GC-v2 (delta)",
    ]
    with path.open("ab") as fh:
        fh.write(lines([compaction(3, 4_000)]))
    assert _same(follower, path).tokens == 4_000  # the compaction's postTokens
    with path.open("ab") as fh:
        fh.write(lines(response(4, 250_000, model="claude-opus-4-6")))
    last = _same(follower, path)
    assert (last.tokens, last.window) == (250_015, 1_000_000)  # a 200k model seen holding more: 1M


def test_a_last_line_half_written_is_read_once_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    whole = lines([*response(1, 20_000), *response(2, 40_000)])
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
    path.write_bytes(lines([update(1), *response(1, 20_000), *response(2, 90_000), compaction(3, 5_000)]))
    follower = TranscriptFollower()
    assert _same(follower, path).compactions == ["2026-11-29T01:03:50.000Z"]
    other = lines([update(7), *response(7, 60_000), noise(7), noise(8), noise(9)])
    if how == "truncated":
        path.write_bytes(lines(response(5, 10_000)))
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
    path.write_bytes(lines([noise(n % 60) for n in range(3000)] + response(1, 20_000)))  # about 1 MB
    follower = TranscriptFollower()
    follower.read(path, "implementer-1")
    appended = lines(response(2, 21_000))
    with path.open("ab") as fh:
        fh.write(appended)
    read = count_reads(monkeypatch)
    assert follower.read(path, "implementer-1").tokens == 21_015
    assert sum(read) <= len(appended) + HEAD_BYTES  # the append and the first bytes, not the megabyte


def test_wherever_the_reads_fall_they_say_what_one_read_says(tmp_path: Path) -> None:
    """A transcript cut into two reads at every line end and in the middle of every line: a
    synthetic response (no model), a split one, a compaction, updates and a broken line."""
    synthetic = response(6, 0, model="<synthetic>")
    items = [
        update(1),
        *response(1, 20_000),
        noise(1),
        *response(2, 250_000, split=True),
        compaction(3, 4_000, pre=250_015),
    ]
    items += [update(4), noise(4), *response(5, 30_000, model="claude-opus-4-6"), *synthetic]
    whole = lines(items) + b'{"type": "system", "subtype": "compact_boundary", "tim\n' + lines([update(7)])
    path = tmp_path / "t.jsonl"
    path.write_bytes(whole)
    once = read_transcript(path, "implementer-1")
    assert (once.tokens, once.model, once.window, once.broken_lines) == (15, "claude-opus-4-6", 1_000_000, 1)
    assert len(once.received) == 3 and len(once.compactions) == 1  # 250k before it proves 1M
    ends = [i + 1 for i, b in enumerate(whole) if b == ord("\n")]
    for cut in sorted({*ends, *(e - 7 for e in ends)}):
        path.write_bytes(whole[:cut])
        follower = TranscriptFollower()
        follower.read(path, "implementer-1")
        with path.open("ab") as fh:
            fh.write(whole[cut:])
        assert _facts(follower.read(path, "implementer-1")) == _facts(once), cut
