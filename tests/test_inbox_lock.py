"""What happens under a Claude Code inbox's lock (PROTOCOL.md: "under the lock only re-read,
append, write, rename"; Claude Code 2.1.332's writers give up after 655 ms of retries and drop
their message). The disk flush is the slow part of a safe write, so it is never done under the
lock: the file is only read again and renamed over, and when someone wrote in between, the lock
is let go and the write prepared again from what is there now."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from models.claude.mailbox import MailboxError, append_entries, lock_path

THEIRS = (
    b'[\n  {"from": "researcher-1", "text": "[STATUS] done", "timestamp": "2026-11-20T10:00:00.000Z", "read": true}\n]'
)
OURS = {"from": "team-lead", "text": "[CONTEXT-UPDATE] GC-v4", "summary": "s", "timestamp": "t1", "read": False}


def spy_on_fsync(monkeypatch: pytest.MonkeyPatch, inbox: Path, between: bytes | None = None) -> list[bool]:
    """Records, for each fsync, whether the inbox's lock was held at that moment. With
    ``between``, another writer (in place, as Claude Code writes) appends those bytes' entry right
    after the first flush, that is between our preparation and our lock."""
    held: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        held.append(lock_path(inbox).exists())
        real(fd)
        if between is not None and len(held) == 1:
            inbox.write_bytes(inbox.read_bytes().rstrip()[:-1] + b",\n" + between + b"\n]")

    monkeypatch.setattr(os, "fsync", fsync)
    return held


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.endswith(".lock"))


def test_the_flush_is_done_before_the_lock_and_the_lock_only_renames(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inbox = tmp_path / "implementer-1.json"
    inbox.write_bytes(THEIRS)
    held = spy_on_fsync(monkeypatch, inbox)
    appended = append_entries(inbox, [OURS])
    assert held == [False]  # one flush, with the lock free
    after = inbox.read_bytes()
    assert after.startswith(THEIRS[: THEIRS.rindex(b"}") + 1])  # their bytes as they were, not re-serialised
    assert json.loads(after) == [json.loads(THEIRS)[0], OURS]
    assert appended.count == 2
    assert leftovers(tmp_path) == []


def test_a_write_between_preparation_and_lock_is_kept_and_ours_is_prepared_again_without_the_lock(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inbox = tmp_path / "implementer-1.json"
    inbox.write_bytes(THEIRS)
    another = b'{"from": "implementer-2", "text": "[ACK-UPDATE] GC-v3", "timestamp": "t0", "read": false}'
    held = spy_on_fsync(monkeypatch, inbox, between=another)
    appended = append_entries(inbox, [OURS])
    assert held == [False, False]  # the prepared file was stale: prepared again, the lock let go
    assert [e["from"] for e in json.loads(inbox.read_bytes())] == ["researcher-1", "implementer-2", "team-lead"]
    assert appended.count == 3
    assert leftovers(tmp_path) == []  # the stale prepared file is removed


def test_a_mailbox_half_written_at_preparation_is_read_again_under_the_lock(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A reader without the lock may see another writer's half-written file; that is no reason
    not to deliver, only not to prepare."""
    inbox = tmp_path / "implementer-1.json"
    inbox.write_bytes(THEIRS[:40])  # in the middle of someone's in-place write
    real_mkdir = os.mkdir

    def mkdir(path: str | os.PathLike[str], mode: int = 0o777) -> None:
        if Path(path) == lock_path(inbox):
            inbox.write_bytes(THEIRS)  # their write finished just before we took the lock
        real_mkdir(path, mode)

    monkeypatch.setattr(os, "mkdir", mkdir)
    held = spy_on_fsync(monkeypatch, inbox)
    append_entries(inbox, [OURS])
    assert held == [False]  # prepared once it parsed, outside the lock
    assert json.loads(inbox.read_bytes()) == [json.loads(THEIRS)[0], OURS]
    assert leftovers(tmp_path) == []


def test_a_mailbox_that_does_not_parse_under_the_lock_is_left_as_it_is(tmp_path: Path) -> None:
    inbox = tmp_path / "implementer-1.json"
    inbox.write_bytes(THEIRS[:40])
    with pytest.raises(MailboxError, match="does not parse as JSON"):
        append_entries(inbox, [OURS])
    assert inbox.read_bytes() == THEIRS[:40]
    assert leftovers(tmp_path) == []
