"""The atomic write helper: success, refusal when the file moved on, and every failure path."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from models.text import atomic
from models.text.atomic import MISSING, FileChangedError, atomic_write, is_temp_file
from models.text.textfile import read_text, stamp_of


def _no_temp_left(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if atomic.TEMP_MARKER in p.name]


def test_replaces_content_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "TEAM-MEMORY.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    before = read_text(target)
    new = atomic_write(target, b"new\n", before.stamp)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert new.same_content(stamp_of(target))
    assert _no_temp_left(tmp_path)


def test_creates_only_when_missing(tmp_path: Path) -> None:
    target = tmp_path / "new.md"
    atomic_write(target, b"x", MISSING)
    assert target.read_bytes() == b"x"
    with pytest.raises(FileChangedError, match="created by someone else"):
        atomic_write(target, b"y", MISSING)
    assert target.read_bytes() == b"x"


def test_refuses_when_someone_wrote_since_read(tmp_path: Path) -> None:
    target = tmp_path / "global-context.md"
    target.write_text("v1\n", encoding="utf-8")
    read = read_text(target)
    target.write_text("v1\nagent line\n", encoding="utf-8")  # an agent appends meanwhile
    with pytest.raises(FileChangedError, match="changed by someone else") as info:
        atomic_write(target, b"ours\n", read.stamp)
    assert target.read_text(encoding="utf-8") == "v1\nagent line\n"
    assert info.value.found is not None and info.value.expected == read.stamp
    assert _no_temp_left(tmp_path)


def test_refuses_when_the_file_was_deleted(tmp_path: Path) -> None:
    target = tmp_path / "plan.md"
    target.write_text("x", encoding="utf-8")
    read = read_text(target)
    target.unlink()
    with pytest.raises(FileChangedError, match="deleted"):
        atomic_write(target, b"y", read.stamp)
    assert not target.exists()


def test_touch_without_change_is_not_a_conflict(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    target.write_text("same", encoding="utf-8")
    read = read_text(target)
    os.utime(target, ns=(1, 1))
    atomic_write(target, b"next", read.stamp)
    assert target.read_bytes() == b"next"


def test_change_between_temp_write_and_rename_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.md"
    target.write_text("base", encoding="utf-8")
    read = read_text(target)
    real_fsync = os.fsync

    def fsync_then_agent_writes(fd: int) -> None:
        real_fsync(fd)
        target.write_text("agent wrote during our fsync", encoding="utf-8")

    monkeypatch.setattr(atomic.os, "fsync", fsync_then_agent_writes)
    with pytest.raises(FileChangedError):
        atomic_write(target, b"ours", read.stamp)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "agent wrote during our fsync"
    assert _no_temp_left(tmp_path)


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_disk_failures_leave_the_original_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    target = tmp_path / "a.md"
    target.write_text("original", encoding="utf-8")
    read = read_text(target)

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, failing, boom)
    with pytest.raises(OSError, match="No space left"):
        atomic_write(target, b"new content", read.stamp)
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "original"
    assert _no_temp_left(tmp_path)


def test_missing_folder_and_folder_as_target(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write(tmp_path / "nope" / "a.md", b"x", None)
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(IsADirectoryError):
        atomic_write(tmp_path / "dir.md", b"x", None)
    assert _no_temp_left(tmp_path)


def test_large_write_is_complete(tmp_path: Path) -> None:
    data = os.urandom(3 * 1024 * 1024)
    target = tmp_path / "big.bin"
    atomic_write(target, data, MISSING)
    assert target.read_bytes() == data


@pytest.mark.parametrize(
    ("name", "temp"),
    [
        ("orchestration-plan.md.tmp.33393.1770515558129", True),
        (".global-context.md.lc-tmp-12-abcd", True),
        ("notes.md~", True),
        (".#TEAM-MEMORY.md", True),
        ("TEAM-MEMORY.md", False),
        ("gate-record.yaml", False),
    ],
)
def test_temp_files_of_any_writer_are_recognised(name: str, temp: bool) -> None:
    assert is_temp_file(name) is temp


def test_a_stamp_fingerprinted_later_equals_one_fingerprinted_at_once(tmp_path: Path) -> None:
    """The same bytes give the same stamp either way; a later one keeps the bytes only until
    its fingerprint is asked for, and threads asking together all get that fingerprint."""
    import hashlib
    from concurrent.futures import ThreadPoolExecutor

    from models.text.textfile import Stamp

    data = "- item: value — owner\n".encode() * 50_000
    now = Stamp.of_bytes(data, 7)
    assert now.sha256 == hashlib.sha256(data).hexdigest()
    later = Stamp.of_bytes(data, 7, later=True)
    assert later._raw is data and later._sha256 is None
    assert later == now and later._raw is None  # compared: fingerprinted, bytes let go
    racing = [Stamp.of_bytes(data, 7, later=True) for _ in range(20)]
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda s: s.sha256, [s for s in racing for _ in range(4)]))
    assert set(found) == {now.sha256}
    assert not Stamp.of_bytes(data + b"x", 7, later=True).same_content(now)
    with pytest.raises(ValueError, match="fingerprint"):
        Stamp(1, 0)


def test_an_append_cut_short_by_a_full_disk_leaves_the_log_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: a short append left a torn line that swallowed the next record. The disk takes
    ten bytes of the two lines, then is full: the ledger is as it was, and the error is said."""
    import errno
    import os

    from models.review.ledger import append_ledger, read_ledger

    ledger = tmp_path / "messages" / "ledger.jsonl"
    ledger.parent.mkdir()
    ledger.write_bytes(b'{"direction": "sent", "n": 1}\n')
    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, data[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        append_ledger(tmp_path, ['{"direction": "sent", "n": 2}', '{"direction": "sent", "n": 3}'])
    monkeypatch.setattr(os, "write", real_write)
    assert ledger.read_bytes() == b'{"direction": "sent", "n": 1}\n'
    append_ledger(tmp_path, ['{"direction": "sent", "n": 4}'])
    assert [e["n"] for e in read_ledger(tmp_path)] == [1, 4]  # the next record is whole
