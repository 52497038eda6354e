"""A file's bytes kept as pieces of the version read before it, and the read that finds them.

A follow-up of an agent's write to a 14 MB TEAM-MEMORY read the file whole into a new block
(1.7 ms), then compared that block with the bytes of the version shown (1.0 ms): a third of
the follow-up, all of it for bytes that had not changed. ``reread`` compares the file with the
old bytes as it reads it, a small piece at a time that stays in the cache, and keeps only
the bytes that differ; the new version is the old one's bytes around them (``Spliced``).
Joining them into one block waits for the first reader that needs it whole, which the view
does not.
"""

from __future__ import annotations

import bisect
import hashlib
import mmap
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from models.text.common import agreeing

_Part = tuple[bytes, int, int]  # bytes[lo:hi] of a block
# Read this much at a time: it stays in the processor's cache while it is compared. In the
# window, pieces of 256 KB and more took four times as long as the whole file in one read.
READ_PIECE = 128 * 1024
# More pieces than this are joined when the session settles (``compacted``): a long run of
# follow-ups would otherwise compare through ever more pieces.
MAX_PARTS = 16


class Spliced:
    """Bytes made of slices of other byte strings, joined when first needed whole.

    The parts and where each ends are one attribute, replaced whole: the stamp's fingerprint
    may be worked out in a worker while the GUI thread joins the parts."""

    __slots__ = ("_layout", "_size")

    def __init__(self, parts: list[_Part]) -> None:
        kept = tuple(p for p in parts if p[2] > p[1])
        ends, at = [], 0
        for _, lo, hi in kept:
            at += hi - lo
            ends.append(at)
        self._layout: tuple[tuple[_Part, ...], list[int]] = (kept, ends)
        self._size = at

    def __len__(self) -> int:
        return self._size

    @property
    def part_count(self) -> int:
        return len(self._layout[0])

    def parts(self) -> tuple[_Part, ...]:
        return self._layout[0]

    def whole(self) -> bytes:
        """The bytes in one block; from then on the only part (a second call does not copy)."""
        parts = self._layout[0]
        if len(parts) == 1 and parts[0][1] == 0 and parts[0][2] == len(parts[0][0]):
            return parts[0][0]
        joined = b"".join(memoryview(block)[lo:hi] for block, lo, hi in parts)
        self._layout = (((joined, 0, len(joined)),), [len(joined)])
        return joined

    def cut(self, start: int, stop: int) -> list[_Part]:
        """The parts that hold bytes ``start:stop``."""
        parts, ends = self._layout
        out: list[_Part] = []
        k = bisect.bisect_right(ends, start)
        while k < len(parts) and start < stop:
            block, lo, hi = parts[k]
            first = ends[k] - (hi - lo)
            take_lo, take_hi = lo + start - first, lo + min(stop, ends[k]) - first
            out.append((block, take_lo, take_hi))
            start = first + take_hi - lo
            k += 1
        return out

    def span(self, start: int, stop: int | None = None) -> bytes:
        """Bytes ``start:stop`` (``stop`` None: to the end), as a slice of ``bytes`` gives them."""
        start, stop, _ = slice(start, stop).indices(self._size)
        parts = self.cut(start, stop)
        if len(parts) == 1:
            block, lo, hi = parts[0]
            return block[lo:hi]
        return b"".join(memoryview(block)[lo:hi] for block, lo, hi in parts)

    def find(self, byte: bytes, start: int) -> int:
        """Where the single byte ``byte`` first occurs at or after ``start``; -1 if nowhere."""
        for block, lo, hi in self.cut(start, self._size):
            at = block.find(byte, lo, hi)
            if at >= 0:
                return start + at - lo
            start += hi - lo
        return -1

    def agrees(self, at: int, view: memoryview) -> bool:
        """Whether bytes ``at:at + len(view)`` are those of ``view`` (compared in place)."""
        if at < 0 or at + len(view) > self._size:
            return False
        done = 0
        for block, lo, hi in self.cut(at, at + len(view)):
            n = hi - lo
            if not block.startswith(view[done : done + n], lo):
                return False
            done += n
        return True

    def agreeing(self, at: int, view: memoryview) -> int:
        """How many bytes from ``at`` agree with the start of ``view``."""
        limit = max(0, min(len(view), self._size - at))
        return agreeing(limit, lambda lo, hi: self.agrees(at + lo, view[lo:hi]))

    def sha256(self) -> str:
        digest = hashlib.sha256()
        for block, lo, hi in self._layout[0]:
            digest.update(memoryview(block)[lo:hi])
        return digest.hexdigest()


Raw = bytes | Spliced  # a file's bytes as read: whole, or as pieces of the last version's


def spliced(raw: Raw) -> Spliced:
    """``raw`` as pieces (bytes as one piece: no copy)."""
    return raw if isinstance(raw, Spliced) else Spliced([(raw, 0, len(raw))])


def whole(raw: Raw) -> bytes:
    return raw if isinstance(raw, bytes) else raw.whole()


def compacted(raw: Raw) -> Raw:
    """``raw`` joined when it has grown too many pieces to compare quickly."""
    return raw.whole() if isinstance(raw, Spliced) and raw.part_count > MAX_PARTS else raw


def same_raw(a: Raw, b: Raw, a_at: int = 0, b_at: int = 0) -> bool:
    """Whether ``a`` from ``a_at`` and ``b`` from ``b_at`` hold the same bytes, compared in place."""
    if len(a) - a_at != len(b) - b_at:
        return False
    pieces, at = spliced(a), a_at
    for block, lo, hi in spliced(b).cut(b_at, len(b)):
        if not pieces.agrees(at, memoryview(block)[lo:hi]):
            return False
        at += hi - lo
    return True


@dataclass(frozen=True)
class Reread:
    """A file read against the bytes of its last version: the last ``old_size - old_stop`` bytes
    of both agree, and so do the first ``same``; what lies between is the change."""

    raw: Raw
    mtime_ns: int
    same: int
    old_stop: int
    new_stop: int


# Given where the file first differs from the old bytes and the file's size: where in the old
# bytes the change must end (the rest being the same), or None when only a full read can say.
Region = Callable[[int, int], int | None]


def read_buffer(size: int = READ_PIECE) -> mmap.mmap:
    """A buffer to read a file into a piece at a time, on a page boundary: the kernel copied a
    file into a buffer that starts 16 bytes past one (where ``malloc`` puts a block it maps
    for itself, as for a ``bytearray`` over 128 KB) four times as slowly as into any other."""
    return mmap.mmap(-1, size)


def _pieces(fd: int, buffer: mmap.mmap) -> Iterator[tuple[int, memoryview]]:
    """The file from where ``fd`` stands, as (offset, view of ``buffer``) until its end; each
    view is good until the next one is asked for."""
    view, at = memoryview(buffer), 0
    while True:
        got = os.readv(fd, [buffer])
        if not got:
            return
        yield at, view[:got]
        at += got


def reread(fd: int, size: int, mtime_ns: int, old: Raw, region: Region) -> Reread | None:
    """The file open at ``fd`` (``size`` bytes by its ``fstat``) read against ``old``: None when
    the change does not lie where ``region`` says it must, or the file changed size while it
    was read (a full read then says what it holds)."""
    pieces, old_size = spliced(old), len(old)
    same = old_stop = new_stop = -1
    middle = bytearray()
    end = 0
    for at, view in _pieces(fd, read_buffer()):
        end = at + len(view)
        if end > size:
            return None  # growing: the full read reads on
        here = at
        if same < 0:
            overlap = max(0, min(end, old_size) - at)
            if overlap == len(view) and pieces.agrees(at, view):
                continue
            same = at + pieces.agreeing(at, view[:overlap])
            stop = region(same, size)
            if stop is None:
                return None
            old_stop, new_stop = stop, stop + size - old_size
            if new_stop < same:
                return None
            here = same
        if here < new_stop:
            take = min(end, new_stop)
            middle += view[here - at : take - at]
            here = take
        if here < end and not pieces.agrees(here - new_stop + old_stop, view[here - at :]):
            return None
    if end != size:
        return None  # shorter than it said
    if same < 0:  # the file is the old bytes, or the start of them
        if size == old_size:
            return Reread(old, mtime_ns, size, size, size)
        stop = region(size, size)
        if stop is None or stop + size - old_size != size:
            return None
        same, old_stop, new_stop = size, stop, size
    parts = [*pieces.cut(0, same), (bytes(middle), 0, len(middle)), *pieces.cut(old_stop, old_size)]
    return Reread(Spliced(parts), mtime_ns, same, old_stop, new_stop)
