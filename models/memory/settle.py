"""Reading TEAM-MEMORY.md for an edit only once no one is half-way through writing it.

Agents' Edit tool rewrites the whole file in place: truncate, then write. A read in between
sees an empty or cut-off file; an edit made on it and renamed over the file wiped what the
agent was writing (its remaining bytes went into the file we had just replaced). So a read
for an edit waits until the file's bytes hold still for a moment and it is whole: not empty,
its front matter closed, a heading in it, and every section of the last good read still
there. The file descriptor of what was read stays open until the edit is written, so that a
write that still lands in the replaced file is noticed and its bytes are taken over
(``SettledRead.orphaned``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from models.memory.journal import MemoryJournal
from models.session.memory_parse import parse_memory
from models.session.team_memory import TeamMemory
from models.text import textfile
from models.text.frontmatter import opens_front_matter, split_front_matter
from models.text.textfile import BOM, Stamp, decode, is_blank, read_bounded

SETTLE_S = 0.02  # the bytes must hold still this long
SETTLE_TRIES = 15  # then the file is called half-written (about 0.6 s)


class HalfWritten(RuntimeError):
    """The file did not settle into a whole file; nothing was written."""


class UnfinishedOrphan(HalfWritten):
    """An agent went on writing into the file we had replaced, and its write never became a
    whole file. Ours stands; the agent's bytes were kept in ``kept`` for the Lead to look at."""

    def __init__(self, message: str, kept: Path | None) -> None:
        super().__init__(message)
        self.kept = kept


@dataclass
class SettledRead:
    """The file as read for an edit, and the open descriptor of exactly that file."""

    target: Path  # the real file (a symlink's target)
    text: str
    bom: bytes
    expected: Stamp  # what the write checks the path still holds
    fd: int
    state: tuple[int, int]  # size and mtime of the read file's inode, when last looked at
    journal: MemoryJournal | None = None

    def orphaned(self) -> str | None:
        """The read file's final text if someone wrote into it after we read it (we have
        replaced it since, so those bytes are nowhere else); None when no one did.

        Only a whole text is returned: an edit made again on a write caught half-way would
        drop the sections its writer had not written yet. When the write never becomes whole,
        ``UnfinishedOrphan`` says so and names where its bytes were kept.
        """
        st = os.fstat(self.fd)
        if (st.st_size, st.st_mtime_ns) == self.state:
            return None
        why = "it kept changing"
        data = b""
        for _ in range(SETTLE_TRIES):
            data, self.state = _read_still(self.fd)
            text = decode(data, self.target.name)[0]  # which takes one BOM off, not two
            why = incomplete(parse_memory(text), self.journal) or ""
            if not why:
                return text
            time.sleep(SETTLE_S)
        kept = _keep(self.target, data)
        where = f"its bytes are kept in {kept}" if kept is not None else "its bytes could not be kept"
        raise UnfinishedOrphan(
            f"{self.target.name}: an agent was still writing the file we replaced, and its write never "
            f"became whole ({why}); the file holds your edit, {where}",
            kept,
        )


def _keep(target: Path, data: bytes) -> Path | None:
    """Put an agent's unfinished write where the Lead can find it (never over another file)."""
    from datetime import UTC, datetime

    from models.text.atomic import create_new

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = target.parent / ".lead-console" / "unfinished"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return create_new(folder / f"{target.stem}-{stamp}{target.suffix}", data)
    except OSError:
        return None


def _read_all(fd: int) -> bytes:
    """The whole file from the start, within the size every read of the app keeps to."""
    return textfile.read_from(fd, 0, textfile.MAX_FILE_BYTES)


def _read_still(fd: int) -> tuple[bytes, tuple[int, int]]:
    """Read until two reads a moment apart agree (bounded: then the last read)."""
    st = os.fstat(fd)
    data = _read_all(fd)
    for _ in range(SETTLE_TRIES):
        time.sleep(SETTLE_S)
        again = os.fstat(fd)
        if (again.st_size, again.st_mtime_ns) == (st.st_size, st.st_mtime_ns):
            break
        st, data = again, _read_all(fd)
    return data, (st.st_size, st.st_mtime_ns)


def incomplete(memory: TeamMemory, journal: MemoryJournal | None) -> str | None:
    """Why ``memory``'s text looks like a file caught mid-write, or None when it looks whole.

    A text with a section is not blank (its heading), and front matter can only open before the
    first section: a version followed from its bytes is decoded whole only when it does."""
    head = memory.preamble()
    if not memory.sections and is_blank(head):
        return "it is empty"
    front, problems = split_front_matter(memory.text if opens_front_matter(head) else head, "TEAM-MEMORY.md")
    if front.present and any("never ends" in p.message for p in problems):
        return "its front matter does not close"
    if not memory.sections and memory.title is None:
        return "it has no heading"
    missing = journal.missing_sections(memory) if journal is not None else []
    if missing:
        return "sections of the last read are missing: " + ", ".join(f"## {h}" for h in missing)
    return None


@contextlib.contextmanager
def settled_read(path: Path, journal: MemoryJournal | None) -> Iterator[SettledRead]:
    """Yield the file once it is settled and whole; raise ``HalfWritten`` when it never is."""
    try:
        target = path.resolve()
    except RuntimeError:  # Python says a link loop this way; callers catch OSError
        raise OSError(errno.ELOOP, "a link that points to itself (a loop); not read", str(path)) from None
    if not target.exists():
        raise FileNotFoundError(path)
    if not target.is_file():
        raise IsADirectoryError(f"{path.name} is not a regular file")
    problem = "it kept changing"
    for _ in range(SETTLE_TRIES):
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)  # a FIFO swapped in: no hang
        keep = False
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise textfile.UnreadableFile(errno.EINVAL, "not a regular file; not written")
            data = _read_all(fd)
            time.sleep(SETTLE_S)
            now, at_path = os.fstat(fd), os.stat(target)
            if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns) or at_path.st_ino != st.st_ino:
                problem = "it kept changing"
                continue
            bom = BOM if data.startswith(BOM) else b""
            text, problems = decode(data, path.name)  # one BOM taken off: a second one is text
            errors = [p for p in problems if p.severity == "error"]
            if errors:
                raise ValueError(f"{path.name}: {errors[0].message}")
            memory = parse_memory(text)
            why = incomplete(memory, journal)
            if why is not None:
                problem = why
                continue
            keep = True
            read = SettledRead(
                target, text, bom, Stamp.of_bytes(data, st.st_mtime_ns), fd, (st.st_size, st.st_mtime_ns), journal
            )
        finally:
            if not keep:
                os.close(fd)
        try:
            yield read
        finally:
            os.close(fd)
        return
    if journal is not None and problem.startswith("sections"):
        with contextlib.suppress(OSError, ValueError):
            text = decode(read_bounded(target)[0], path.name)[0]
            journal.observe(parse_memory(text), report=False)  # the new shape: the next edit goes ahead
    waited = SETTLE_TRIES * SETTLE_S
    raise HalfWritten(f"{path.name} looks half-written ({problem}) after {waited:.1f} s; nothing was written")
