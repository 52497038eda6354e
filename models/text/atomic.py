"""The one way Lead Console writes a file.

Agents edit the session folder concurrently, so every write must (1) never leave a torn file,
(2) never overwrite bytes someone else wrote after we read the file. The helper writes a temp
file in the same folder, fsyncs it, checks that the target still has the content we read, and
then renames over it with ``os.replace`` (atomic on POSIX within one file system).

The check and the rename are two steps, so a writer that lands between them can still be
overwritten; the window is a few microseconds instead of the seconds a user spends editing,
and callers re-read and verify after writing where it matters.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from models.text.textfile import Stamp, read_text, stamp_of

TEMP_MARKER = ".lc-tmp-"


class FileChangedError(RuntimeError):
    """The file on disk is no longer what the caller read; nothing was written."""

    def __init__(self, path: Path, expected: Stamp | None, found: Stamp | None) -> None:
        self.path = path
        self.expected = expected
        self.found = found
        if expected is None:
            what = "was created by someone else"
        elif found is None:
            what = "was deleted"
        else:
            what = "was changed by someone else"
        super().__init__(f"{path.name} {what} since it was read; nothing was written")


class Missing:
    """Sentinel: the caller read no file and expects none (a create)."""


MISSING = Missing()


def read_for_update(path: Path) -> tuple[str, Stamp | Missing]:
    """The text to edit and the stamp to hand ``atomic_write``; ``("", MISSING)`` for no file.

    Reading the stamp with the same bytes as the text is what lets the write refuse when
    someone changed the file in between.
    """
    try:
        loaded = read_text(path)
    except FileNotFoundError:
        return "", MISSING
    return loaded.text, loaded.stamp


def is_temp_file(name: str) -> bool:
    """Temp files of ours and of other writers (``x.md.tmp.33393.177...``) are not content."""
    return (
        TEMP_MARKER in name or ".tmp." in name or name.endswith((".tmp", "~", ".swp", ".swx")) or name.startswith(".#")
    )


def _check(path: Path, expected: Stamp | Missing | None) -> None:
    if expected is None:
        return  # caller opted out of the check (app-owned files it alone writes)
    found = stamp_of(path)
    if isinstance(expected, Missing):
        if found is not None:
            raise FileChangedError(path, None, found)
    elif not expected.same_content(found):
        raise FileChangedError(path, expected, found)


def atomic_write(path: Path, data: bytes, expected: Stamp | Missing | None) -> Stamp:
    """Replace ``path`` with ``data`` atomically; return the new file's stamp.

    ``expected`` is the stamp of the file as the caller read it, ``MISSING`` when the caller
    expects to create it, or ``None`` to skip the check. Raises ``FileChangedError`` (nothing
    written) when the file changed, and ``OSError`` when the disk refuses; in both cases the
    original file is untouched and no temp file is left behind.
    """
    path = Path(path)
    folder = path.parent
    _check(path, expected)
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
    tmp = folder / f".{path.name}{TEMP_MARKER}{os.getpid()}-{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644 if mode is None else mode)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        _check(path, expected)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)
    # The bytes are in place from here on: a failing re-read (a file removed or made
    # unreadable by someone else at once) is no failed write, and must not be taken for one.
    try:
        new = stamp_of(path)
    except OSError:
        new = None
    return new if new is not None else Stamp.of_bytes(data)


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable; some file systems refuse to open folders, which is fine."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def create_new(path: Path, data: bytes) -> Path:
    """Create a file of ours at ``path``, or at ``name-2.ext``, ``name-3.ext``… when that name is
    taken (two actions in one second share a time stamp); never over an existing file."""
    candidate, n = path, 2
    while True:
        try:
            atomic_write(candidate, data, MISSING)
            return candidate
        except FileChangedError:
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
            n += 1


def append_log(path: Path, data: bytes) -> None:
    """Append ``data`` to an app-owned log, whole, and make it durable. A log not there yet is
    made with ``data`` in it at once (linked into place, never over one made meanwhile): an
    append cut short leaves no empty log behind."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except FileNotFoundError:
        if _create_whole(path, data):
            return
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # made meanwhile: appended to
    try:
        append_whole(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _create_whole(path: Path, data: bytes) -> bool:
    """Make ``path`` holding ``data``, or False when something is there by then."""
    tmp = path.parent / f".{path.name}{TEMP_MARKER}{os.getpid()}-{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            append_whole(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(path.parent)
    return True


def append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` to the file open as ``fd`` (with O_APPEND) whole, or not at all: a short
    write (a full disk) is cut back to where the file ended, so that no torn line swallows the
    next record, and raised as the error it was."""
    start = os.fstat(fd).st_size
    try:
        written = os.write(fd, data)
        while written < len(data):
            more = os.write(fd, data[written:])
            if more == 0:
                raise OSError(errno.ENOSPC, "No space left on device")
            written += more
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


def left_temp_files(folder: Path, older_than_s: float = 60.0) -> list[Path]:
    """Temp files of our writes that a killed process left in ``folder`` and below it (a write
    under way names its own with its process id and is done within the second): what
    ``lead-console repair`` removes. Links are not followed."""
    found = []
    limit = time.time() - older_than_s
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in files:
            path = Path(root) / name
            if TEMP_MARKER in name and name.startswith("."):
                with contextlib.suppress(OSError):
                    if path.lstat().st_mtime < limit:
                        found.append(path)
    return sorted(found)


class LockRefused(OSError):
    """A lock cannot be taken: ``strerror`` names it and says why (a link in its place)."""


@contextlib.contextmanager
def held(path: Path, name: str, folder: bool = False) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (a lock file made if missing, or with ``folder`` a
    folder), opened without following a link: a link in its place would have this create or
    touch a file elsewhere. ``LockRefused`` says why it cannot be taken, naming ``name``."""
    try:
        if folder:
            path.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        else:
            path.parent.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        why = "is a link" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else (exc.strerror or str(exc))
        raise LockRefused(exc.errno or errno.EIO, f"{name} {why}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
