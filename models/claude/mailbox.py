"""A member's Claude Code inbox: read it, and append to it under the lock every writer uses.

The lock is ``proper-lockfile``'s scheme (PROTOCOL.md): ``mkdir <inbox>.json.lock``; a lock
directory older than ``STALE_S`` is stale and removed; otherwise retry after a few milliseconds
up to ``wait_s``. Inside the lock the array is read again and must parse (a file that does not
parse is never overwritten), the entries are appended (never reordered or pruned), and the
result replaces the file atomically.

Claude Code 2.1.332's writers give up after 655 ms of retries (10, 5 ms doubling to 100 ms) and
drop their message, so the lock is held for a read and a rename whatever the disk does: the new
array is written and fsynced to a temp file before the lock is taken; inside the lock the file is
read again and, when it is still the bytes the temp file was made from, the temp file is renamed
over it. When someone wrote in between, the lock is let go and the array made again.
"""

from __future__ import annotations

import errno
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.text.textfile import UnreadableFile, read_bounded

STALE_S = 10.0  # proper-lockfile's stale age; Claude Code's holders refresh every 5 s
WAIT_S = 5.0  # how long a delivery waits for a busy lock before it is left undelivered
MAX_INBOX_BYTES = 64 * 1024 * 1024  # Claude Code has no limit; past this the app does not read one


class MailboxError(RuntimeError):
    """The inbox could not be written: a busy lock, an array that does not parse, a full disk."""


class LockBusy(MailboxError):
    """Another writer held the lock for longer than we wait."""


@dataclass(frozen=True)
class Appended:
    """What one delivery did: how many entries the array held after it, and how long the lock
    was waited for and held (seconds)."""

    count: int
    waited: float
    held: float


def lock_path(inbox: Path) -> Path:
    return inbox.with_name(inbox.name + ".lock")


@contextmanager
def inbox_lock(inbox: Path, wait_s: float = WAIT_S, clock: Callable[[], float] = time.monotonic) -> Iterator[float]:
    """Hold ``<inbox>.lock``; yields the seconds spent waiting. Breaks only a stale lock."""
    lock = lock_path(inbox)
    start = clock()
    pause = 0.005
    while True:
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            try:
                age = time.time() - os.stat(lock).st_mtime
            except FileNotFoundError:
                continue  # released between our mkdir and stat: try again at once
            if age > STALE_S:
                with suppress(OSError):  # somebody else broke or took it; the next mkdir decides
                    os.rmdir(lock)
                continue
            if clock() - start > wait_s:
                raise LockBusy(f"{lock.name} held by another writer for {age:.1f} s; not delivered") from None
            # Backing off as Claude Code's writers do (5 ms doubling to 100 ms): the app waits
            # as they wait, and does not take the lock again and again while they back off.
            time.sleep(random.uniform(pause / 2, pause))
            pause = min(pause * 2, 0.1)
    waited = clock() - start
    try:
        yield waited
    finally:
        with suppress(OSError):
            os.rmdir(lock)


def parse_inbox(raw: bytes, name: str) -> list[Any]:
    """The inbox's array; ``MailboxError`` when it is not a JSON array (never guessed at)."""
    if not raw.strip():
        raise MailboxError(f"{name} is empty, not a JSON array; not written")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise MailboxError(f"{name} does not parse as JSON ({exc}); not written") from None
    if not isinstance(data, list):
        raise MailboxError(f"{name} holds a JSON {type(data).__name__}, not an array; not written")
    return data


def read_inbox_entries(inbox: Path) -> list[Any] | None:
    """The entries as a reader sees them (no lock); None when missing or half-written."""
    try:
        raw, _ = read_bounded(inbox, MAX_INBOX_BYTES)
        return parse_inbox(raw, inbox.name)
    except (OSError, MailboxError):
        return None


def append_entries(inbox: Path, entries: list[dict[str, Any]], wait_s: float = WAIT_S) -> Appended:
    """Append ``entries`` to ``inbox`` under its lock. Creates ``[]`` first when missing (an
    exclusive create, as Claude Code does); raises ``MailboxError`` and writes nothing when the
    lock stays busy, the array does not parse, or the disk refuses.

    Under the lock nothing is written or synced: the next array is made and fsynced to a temp
    file first; under the lock the inbox is read again and, when it still holds the bytes the
    temp file was made from, the temp file is renamed over it. When someone wrote in between,
    the lock is let go and the array made again from what is there now.
    """
    inbox.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(inbox, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, b"[]")
        finally:
            os.close(fd)
    except FileExistsError:
        pass
    added = b",\n".join(json.dumps(e, ensure_ascii=False).encode("utf-8") for e in entries)  # before the lock
    start = time.monotonic()
    waited = 0.0
    unlocked_tries = 0
    while True:
        ready = _prepared(inbox, added, len(entries))
        if ready is not None and unlocked_tries < 20 and _bytes_now(inbox) != ready.raw:
            # Changed while the temp file was flushed: made again before the lock is even asked
            # for, so that a busy inbox's other writers are not kept waiting by our retries.
            unlocked_tries += 1
            with suppress(FileNotFoundError):
                os.unlink(ready.tmp)
            continue
        try:
            with inbox_lock(inbox, max(0.0, wait_s - (time.monotonic() - start))) as wait:
                waited += wait
                taken = time.monotonic()
                try:
                    raw, _ = read_bounded(inbox, MAX_INBOX_BYTES)
                except UnreadableFile as exc:
                    raise MailboxError(f"{inbox.name}: {exc.strerror}; not written") from None
                except OSError as exc:
                    raise MailboxError(f"{inbox.name}: {exc.strerror or exc}; not written") from None
                if ready is not None and raw == ready.raw:  # nobody wrote since: the temp file is the result
                    try:
                        os.replace(ready.tmp, inbox)
                    except OSError as exc:
                        code = errno.errorcode.get(exc.errno or 0, "")
                        raise MailboxError(f"{inbox.name}: {exc.strerror or exc} {code}; not written".strip()) from None
                    return Appended(ready.count, waited, time.monotonic() - taken)
                if ready is None:
                    parse_inbox(raw, inbox.name)  # a file that does not parse under the lock: say so, write nothing
        finally:
            if ready is not None:
                with suppress(FileNotFoundError):
                    os.unlink(ready.tmp)
        if time.monotonic() - start > wait_s:
            raise LockBusy(f"{inbox.name} changed at every attempt for {wait_s:.0f} s; not written")


@dataclass(frozen=True)
class _Ready:
    """The array with the new entries, written and fsynced to ``tmp`` before the lock, and the
    inbox bytes it was made from."""

    raw: bytes
    tmp: Path
    count: int


def _prepared(inbox: Path, added: bytes, n: int) -> _Ready | None:
    """The next array made ready without the lock; None when the inbox cannot be read or does not
    parse just now (a writer in the middle of its write): the lock's own pass decides then."""
    try:
        raw, _ = read_bounded(inbox, MAX_INBOX_BYTES)
        items = _writable(raw, inbox.name)
    except (OSError, MailboxError):
        return None
    tmp = _temp_for(inbox)
    try:
        _write_synced(tmp, _spliced(raw, items, added))
    except OSError as exc:
        code = errno.errorcode.get(exc.errno or 0, "")
        raise MailboxError(f"{inbox.name}: {exc.strerror or exc} {code}; not written".strip()) from None
    return _Ready(raw, tmp, len(items) + n)


def _bytes_now(inbox: Path) -> bytes | None:
    try:
        return read_bounded(inbox, MAX_INBOX_BYTES)[0]
    except OSError:
        return None


def _writable(raw: bytes, name: str) -> list[Any]:
    """The array ``raw`` holds, when an entry may be appended to it."""
    return parse_inbox(raw, name)


def _spliced(raw: bytes, items: list[Any], added: bytes) -> bytes:
    """The array with ``added`` (serialised entries, comma-separated) appended: the bytes others
    wrote are kept as they are, not re-serialised, and the lock is not held for a full dump."""
    end = raw.rstrip()[:-1]  # parse_inbox proved it is an array: its last byte is the closing ]
    separator = b",\n" if items else b"\n"
    return end.rstrip() + separator + added + b"\n]\n"


def _temp_for(inbox: Path) -> Path:
    """A temp name beside the inbox (the rename stays in one folder), hidden, unique per writer."""
    return inbox.with_name(f".{inbox.name}.{os.getpid()}.{random.randrange(1 << 30):x}.tmp")


def _write_synced(tmp: Path, data: bytes) -> None:
    """``data`` in a new file ``tmp``, on disk before this returns; no half file left behind."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
