"""Reading text files that other programs may be writing right now.

The bytes as read are kept (with their fingerprint) so that a later write can prove the file
did not change in between, and so that nothing we decode lossily is ever written back.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from models.text.problems import Problem

# Files bigger than this are still read, but the caller is warned: a 10 MB GC is a mistake.
LARGE_FILE_BYTES = 2 * 1024 * 1024
BOM = b"\xef\xbb\xbf"  # kept on every write of a file that had it
# Larger files are refused with one line, not read: a link to /dev/zero or a runaway log would
# otherwise grow the process without bound.
MAX_FILE_BYTES = 32 * 1024 * 1024


class UnreadableFile(OSError):
    """A path that is no regular file (a FIFO, a device, a socket) or is over the size limit."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """A descriptor open for reading on a regular file, and its stat; never blocks on a FIFO.
    ``IsADirectoryError`` for a folder, ``UnreadableFile`` for any other kind of file (the
    descriptor is closed then)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile(errno.EINVAL, f"not a regular file ({_kind(st.st_mode)}); not read", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_from(fd: int, offset: int, limit: int, piece: int = 1 << 20) -> bytes:
    """What ``fd`` holds from ``offset`` on, by position (the descriptor's own offset is left
    alone); ``UnreadableFile`` past ``limit`` bytes read."""
    chunks: list[bytes] = []
    read = 0
    while True:
        chunk = os.pread(fd, piece, offset + read)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        read += len(chunk)
        if read > limit:
            raise UnreadableFile(errno.EFBIG, "over the size the app reads")


def read_bounded(path: Path, limit: int | None = None) -> tuple[bytes, int]:
    """The bytes of a regular file and its mtime; never blocks on a FIFO or reads a device.

    Raises ``IsADirectoryError`` for a folder, ``UnreadableFile`` for any other non-regular
    file or one over ``limit``, and the usual ``OSError`` (not found, permission) otherwise.
    """
    limit = MAX_FILE_BYTES if limit is None else limit
    fd, st = open_regular(path)
    try:
        cap = f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit:,} bytes"
        if st.st_size > limit:
            raise UnreadableFile(errno.EFBIG, f"{st.st_size:,} bytes, over the {cap} the app reads", str(path))
        # The whole file in one read (a byte more than its size shows whether it grew): reading
        # a 14 MB file in 1 MB pieces and joining them took ten times as long. Past that, the
        # file is growing (or a special file reports no size) and is read on, up to ``limit``.
        chunks: list[bytes] = []
        size = 0
        chunk = os.read(fd, st.st_size + 1)
        while chunk:
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise UnreadableFile(errno.EFBIG, f"grew past the {cap} the app reads; not read", str(path))
            chunk = os.read(fd, 1 << 20)
        return b"".join(chunks), st.st_mtime_ns
    finally:
        os.close(fd)


#: How long before a read a file's inode must have last changed for its size and time to say
#: that it still holds what was read. File times come from a clock that ticks every few
#: milliseconds: two writes in one tick, one before a read and one after, leave the same
#: time (and, in place, maybe the same size); the inode's change time is set by every write,
#: rename and ``utime`` and cannot be set back.
SETTLED_NS = 2_000_000_000


def unchanged_since(path: Path, stamp: Stamp | None, read_at_ns: int) -> bool:
    """Whether the file at ``path`` surely holds what was read at ``read_at_ns`` (wall-clock
    nanoseconds, taken before the read) into ``stamp``, by its status alone: the same size and
    modification time, and no change to the file since well before the read. A file missing
    then (``stamp`` None) is unchanged while it is still missing; anything in doubt is not."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return stamp is None
    except OSError:
        return False
    return (
        stamp is not None
        and st.st_size == stamp.size
        and st.st_mtime_ns == stamp.mtime_ns
        and st.st_ctime_ns < read_at_ns - SETTLED_NS
    )


def holds_bytes(path: Path, raw: bytes, piece: int = 1 << 20) -> bool:
    """Whether the regular file at ``path`` holds exactly ``raw``: read and compared a piece at
    a time into one small buffer. Reading a 14 MB file whole to compare it took a fresh 14 MB
    block each time, and the next read of the file found no freed block to reuse (6 ms of page
    faults in a 10 ms follow-up)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(raw):
            return False
        buffer = bytearray(piece)
        view, at = memoryview(buffer), 0
        while True:
            got = os.readv(fd, [buffer])
            if not got:
                return at == len(raw)
            if at + got > len(raw) or not raw.startswith(view[:got], at):
                return False
            at += got
    finally:
        os.close(fd)


class Stamp:
    """What a file looked like when it was read; compared before every write.

    The fingerprint of a stamp made with ``later=True`` is worked out when first asked for,
    from the bytes kept until then: a follow-up of a 10 MB file shows the change first and
    fingerprints after (``settle``), 6 ms the Lead no longer waits for. Two threads asking at
    once both get the one fingerprint: it is stored before the bytes are let go.
    """

    __slots__ = ("_raw", "_sha256", "mtime_ns", "size")

    def __init__(self, size: int, mtime_ns: int, sha256: str | None = None, raw: bytes | None = None) -> None:
        if sha256 is None and raw is None:
            raise ValueError("a stamp needs its fingerprint or the bytes to work it out from")
        self.size = size
        self.mtime_ns = mtime_ns
        self._sha256 = sha256
        self._raw = raw

    @classmethod
    def of_bytes(cls, data: bytes, mtime_ns: int = 0, later: bool = False) -> Stamp:
        if later:
            return cls(len(data), mtime_ns, None, data)
        return cls(len(data), mtime_ns, hashlib.sha256(data).hexdigest())

    @property
    def sha256(self) -> str:
        digest = self._sha256
        if digest is None:
            raw = self._raw
            if raw is None:  # another thread worked it out in between
                return str(self._sha256)
            digest = self._sha256 = hashlib.sha256(raw).hexdigest()
            self._raw = None
        return digest

    def settle(self) -> None:
        """Work out the fingerprint now (if not yet) and let the bytes go."""
        _ = self.sha256

    def same_content(self, other: Stamp | None) -> bool:
        """Content equality: mtime alone may change without the bytes changing (touch)."""
        return other is not None and self.size == other.size and self.sha256 == other.sha256

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stamp):
            return NotImplemented
        return (self.size, self.mtime_ns, self.sha256) == (other.size, other.mtime_ns, other.sha256)

    def __hash__(self) -> int:
        return hash((self.size, self.mtime_ns, self.sha256))

    def __repr__(self) -> str:
        return f"Stamp(size={self.size}, mtime_ns={self.mtime_ns}, sha256={self.sha256[:12]}…)"


def stamp_of(path: Path) -> Stamp | None:
    """The current stamp of ``path``, or None when it does not exist."""
    try:
        data, mtime = read_bounded(path)
    except FileNotFoundError:
        return None
    return Stamp.of_bytes(data, mtime)


def bom_length(raw: bytes) -> int:
    """How many bytes of ``raw`` are a byte order mark, which is not text."""
    return len(BOM) if raw.startswith(BOM) else 0


@dataclass(frozen=True)
class Undecoded:
    """A file's bytes, known to be UTF-8 (a byte order mark allowed), decoded when first read.

    A follow-up of a 14 MB TEAM-MEMORY decodes only the section that changed
    (``models.session.memory_follow``); decoding the rest, a 29 MB string when one character
    is not ASCII, took 4 ms of a 10 ms follow-up, and nothing the view shows needs it."""

    raw: bytes
    length: int  # in characters, known without decoding

    def decoded(self) -> str:
        return self.raw.decode("utf-8-sig")  # what ``decode`` gives: a leading BOM is not text

    def decoded_span(self, start: int, stop: int | None = None) -> str:
        """The text of bytes ``start:stop`` of the text (a BOM not counted), which must lie
        on character boundaries."""
        lead = bom_length(self.raw)
        return self.raw[lead + start : None if stop is None else lead + stop].decode("utf-8")

    def same_text(self, other: Undecoded) -> bool:
        """Whether both are the same text, compared as bytes in place (a BOM not counted)."""
        a, b = self.raw, other.raw
        at, bt = bom_length(a), bom_length(b)
        return len(a) - at == len(b) - bt and a.startswith(memoryview(b)[bt:], at)

    def __len__(self) -> int:
        return self.length


@dataclass
class TextFile:
    """A file's bytes, its best-effort text and what went wrong decoding it."""

    path: Path
    raw: bytes
    text: str
    stamp: Stamp
    problems: list[Problem] = field(default_factory=list)
    crlf: bool = False

    @property
    def exact(self) -> bool:
        """True when ``text`` encodes back to ``raw`` exactly (safe to edit surgically)."""
        return not any(p.severity == "error" for p in self.problems)


def decode(raw: bytes, name: str) -> tuple[str, list[Problem]]:
    """Decode UTF-8 (BOM allowed); report binary and undecodable bytes instead of failing."""
    problems: list[Problem] = []
    if b"\x00" in raw[:8192]:
        problems.append(Problem("error", name, "looks like a binary file (NUL bytes); not read"))
        return "", problems
    body = raw[3:] if raw.startswith(BOM) else raw
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body[: exc.start].count(b"\n") + 1
        problems.append(
            Problem(
                "error",
                name,
                f"not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start});"
                " shown with replacement characters, never written back",
                line,
            )
        )
        text = body.decode("utf-8", errors="replace")
    return text, problems


def read_text(path: Path, display_name: str | None = None, fingerprint_later: bool = False) -> TextFile:
    """Read ``path`` once; the returned stamp belongs to exactly the bytes decoded (its
    fingerprint worked out when first asked for, with ``fingerprint_later``)."""
    raw, mtime = read_bounded(path)
    return decoded_file(path, raw, mtime, display_name or path.name, fingerprint_later)


def size_problems(raw: bytes, name: str) -> list[Problem]:
    """What every read of a file says about its size (a follow-up that decodes only the part
    that changed says it too)."""
    if len(raw) > LARGE_FILE_BYTES:
        return [Problem("warning", name, f"unusually large ({len(raw) / 1e6:.1f} MB); reading may be slow")]
    return []


def decoded_file(path: Path, raw: bytes, mtime: int, name: str, fingerprint_later: bool = False) -> TextFile:
    """``read_text``'s answer for bytes already read."""
    text, problems = decode(raw, name)
    problems += size_problems(raw, name)
    # As in the text (no UTF-8 sequence holds these bytes). A lone byte is found at memory speed
    # and a pair is not: on a 14 MB file ``"\r\n" in text`` took 12 ms of a 20 ms follow-up.
    cr = raw.find(b"\r")
    crlf = cr >= 0 and raw.find(b"\r\n", cr) >= 0
    return TextFile(path, raw, text, Stamp.of_bytes(raw, mtime, fingerprint_later), problems, crlf)


def read_utf8(path: Path, limit: int | None = None) -> str:
    """A regular file's text, bounded like every read of the app; ``UnicodeDecodeError`` is
    raised as ``UnreadableFile`` naming the file and the offset, so callers catch one type."""
    raw, _ = read_bounded(path, limit)
    body = raw[3:] if raw.startswith(BOM) else raw
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            errno.EILSEQ, f"not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})", str(path)
        ) from None


def is_blank(text: str) -> bool:
    """Empty or whitespace only, found at the first character that is not: ``text.strip()``
    copies the whole text first, 30 MB for a 14 MB file, on every follow-up."""
    return not text or text.isspace()


def newline_of(text: str) -> str:
    """``\r\n`` when ``text`` holds one, else ``\n``: the line end a write keeps. A lone
    character is found at memory speed and a pair is not (a 5,000-line GC with one non-ASCII
    character took 0.23 ms for ``"\r\n" in text``, 4 µs for ``"\r" in text``)."""
    cr = text.find("\r")
    return "\r\n" if cr >= 0 and text.find("\r\n", cr) >= 0 else "\n"


# What ``str.splitlines`` ends a line at besides ``\n``, ``\r`` and ``\r\n``.
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping line ends, so that ``"".join(lines) == text``.

    ``str.splitlines`` also splits on form feeds and Unicode separators, which Markdown does
    not treat as line ends; using it would shift every offset after such a character.
    """
    if not text:
        return []
    if not any(brk in text for brk in _OTHER_BREAKS) and ("\r" not in text or text.count("\r") == text.count("\r\n")):
        # No line end ``str.splitlines`` knows but Markdown does not (a CR is always part of a
        # CRLF): the same lines, made in one pass, where splitting and then adding the line end
        # back makes each line twice (1.8 ms against 3.5 for a 20,000-line GC).
        return text.splitlines(keepends=True)
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def line_count(text: str) -> int:
    """``len(split_lines(text))``, without making the lines."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def line_starts(lines: list[str]) -> list[int]:
    """Character offset of each line's start, plus the text's length at the end."""
    return list(itertools.accumulate(map(len, lines), initial=0))


def outside_link(folder: Path, name: str) -> list[Problem]:
    """A session file that is a link to somewhere outside the session is read, and named: the
    Lead should know that editing the session edits that file too."""
    path = folder / name
    if not path.is_symlink():
        return []
    try:
        target = path.resolve(strict=True)
        inside = target.is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return []
    return [] if inside else [Problem("warning", name, f"is a link to {target}, outside the session; read from there")]
