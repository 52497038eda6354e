"""A large file read again and compared with its last version on both cores, in one pass.

A follow-up of a 15 MB TEAM-MEMORY read the file (4 ms) and then compared the new bytes with
the last version's (3 ms), one after the other on one core, while the window waited. Both are
copying and comparing memory, which Python does holding its lock. Here two threads each read
half of the file straight into the new ``bytes`` object and compare what they read with the old
bytes, a piece at a time while it is still in the cache, calling the C library without the
lock: the same answer (the bytes, and how far they agree with the old ones from the start and
from the end) in a little over half the time.

The new ``bytes`` object is made empty by the C API and filled before anything else sees it, as
C code makes one. Where that is not to be had (another interpreter, no C library found), or the
file's size changed while it was read, ``read_compared`` answers None and the caller reads the
file as usual.
"""

from __future__ import annotations

import ctypes
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from models.text.common import common_prefix_bytes, common_suffix_bytes
from models.text.textfile import open_regular

#: Files smaller than this are read and compared as usual: handing half of a small file to
#: another thread costs more than it saves.
PARALLEL_FROM = 4 * 1024 * 1024
_PIECE = 256 * 1024  # read, then compared while still in the cache


@dataclass(frozen=True)
class Compared:
    """A file's bytes and their agreement with the version before: ``prefix`` bytes agree from
    the start, ``suffix`` from the end (each at most the shorter length; they may overlap)."""

    raw: bytes
    mtime_ns: int
    prefix: int
    suffix: int


class _Native:
    """The C library's ``pread`` and ``memcmp`` and the C API's empty ``bytes``, each called
    without Python's lock (``ctypes.CDLL`` releases it)."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.pread = libc.pread
        self.pread.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64]
        self.pread.restype = ctypes.c_ssize_t
        self.memcmp = libc.memcmp
        self.memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.memcmp.restype = ctypes.c_int
        api = ctypes.pythonapi
        self.empty_bytes = api.PyBytes_FromStringAndSize
        self.empty_bytes.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
        self.empty_bytes.restype = ctypes.py_object
        self.address = api.PyBytes_AsString
        self.address.argtypes = [ctypes.py_object]
        self.address.restype = ctypes.c_void_p
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compared-read")


def _native() -> _Native | None:
    if sys.implementation.name != "cpython" or not sys.platform.startswith("linux"):
        return None
    try:
        return _Native()
    except (OSError, AttributeError):
        return None


_NATIVE = _native()


@dataclass
class _Half:
    """What one thread found in its half, as pieces (start, end) of the new bytes: the first
    that differs from the old bytes at the same place, and the last that differs from the old
    bytes the same distance from the end; None where none did. ``complete``: the half was read
    to its end."""

    complete: bool = False
    first_changed: tuple[int, int] | None = None
    last_changed: tuple[int, int] | None = None


def read_compared(path: Path, old: bytes, limit: int) -> Compared | None:
    """``path``'s bytes compared with ``old``, read on both cores; None when the usual read
    must do (a small or growing file, no C library, a file over ``limit``)."""
    native = _NATIVE
    if native is None:
        return None
    fd, st = open_regular(path)
    try:
        size = st.st_size
        if size < PARALLEL_FROM or size > limit or len(old) < PARALLEL_FROM:
            return None
        raw: bytes = native.empty_bytes(None, size)
        new_at, old_at = native.address(raw), native.address(old)
        shift = size - len(old)

        def half(lo: int, hi: int) -> _Half:
            found = _Half()
            at = lo
            while at < hi:
                stop = min(hi, at + _PIECE)
                got = native.pread(fd, new_at + at, stop - at, at)
                if got <= 0:
                    return found  # shorter than its size said: being written
                end = at + got
                if found.first_changed is None and at < len(old):
                    upto = min(end, len(old))
                    if native.memcmp(new_at + at, old_at + at, upto - at):
                        found.first_changed = (at, upto)
                start = max(at, shift)  # compared with the old bytes the same distance from the end
                if start < end and native.memcmp(new_at + start, old_at + start - shift, end - start):
                    found.last_changed = (start, end)
                at = end
            found.complete = True
            return found

        middle = size // 2
        other: Future[_Half] = native.pool.submit(half, middle, size)
        first = half(0, middle)
        second = other.result()
        if not (first.complete and second.complete) or os.pread(fd, 1, size):
            return None  # the file changed size while it was read
        after = os.fstat(fd)
        if (after.st_size, after.st_mtime_ns) != (size, st.st_mtime_ns):
            return None
    finally:
        os.close(fd)
    shorter = min(size, len(old))
    # Each count runs up to the piece that differs, then on into it, found within that piece.
    first_piece = first.first_changed or second.first_changed
    prefix = shorter
    if first_piece is not None:
        lo, hi = first_piece
        prefix = lo + common_prefix_bytes(raw[lo:hi], old[lo:hi])
    last_piece = second.last_changed or first.last_changed
    suffix = shorter
    if last_piece is not None:
        lo, hi = last_piece
        suffix = size - hi + common_suffix_bytes(raw[lo:hi], old[lo - shift : hi - shift])
    return Compared(raw, st.st_mtime_ns, prefix, min(suffix, shorter))
