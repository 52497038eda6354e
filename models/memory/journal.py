"""The app's journal of TEAM-MEMORY entries: every entry it wrote and every entry it saw.

Comparing each version of the file with the one before misses losses: writes come faster than
any watcher reads them, and a stale whole-file Write by one agent can drop an entry that
another added a moment before. The journal remembers each entry once, with who wrote it and
where it stood, so that an entry missing from the file is found whenever the file is next read,
by the window or by ``memory check``, and is reported once (the report is journaled too).

The journal is app-owned (``.lead-console/memory-journal.jsonl`` in the session folder),
appended only, one JSON object a line; every app process shares it under a lock, so two of
them never report one loss twice. A torn last line (a crash mid-append) is skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from models.memory.journal_records import LostRecord, Record, RemovedRecord, SectionsRecord, SeenRecord
from models.session.memory_entries import entries_of
from models.session.team_memory import MemorySection, TeamMemory
from models.text.atomic import append_whole
from models.text.textfile import split_lines

JOURNAL = Path(".lead-console") / "memory-journal.jsonl"
# One encoder for every record: ``json.dumps`` with options builds a new one per call, and the
# first look at a 20,000-line TEAM-MEMORY journals every entry.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
APP = "Lead Console"
_CHUNK = 4096  # journal records written at a time
_ARCHIVED = re.compile(r"\[ARCHIVED\]\s*", re.I)
_NONE = (None, None)  # no section text under this identity


def identity(entry_lines: str) -> str:
    """What makes two entry texts the same entry: archiving and line ends do not count."""
    return _ARCHIVED.sub("", entry_lines.replace("\r\n", "\n")).rstrip("\n")


@dataclass(frozen=True, slots=True)  # one per entry ever seen: 200,000 in a large session
class Seen:
    """An entry as the journal knows it."""

    header: str  # the section it stood in
    entry: str  # its lines, ``\n``-separated, without the final line end
    by: str  # APP, or "the file" for an entry the app found there
    at: str  # when it was written or first seen (UTC)
    after: str | None  # the entry before it in its section then; None: the first


@dataclass(frozen=True)
class Vanished:
    """An entry the journal knows that the file no longer holds anywhere."""

    seen: Seen
    noticed: str

    def describe(self) -> str:
        who = "written by Lead Console" if self.seen.by == APP else "first seen in the file"
        first = self.seen.entry.split("\n", 1)[0].strip()
        return f"## {self.seen.header}: {first[:100]} ({who} at {self.seen.at})"


def _chunks(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    chunk: list[Record] = []
    for record in records:
        chunk.append(record)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _loaded(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class MemoryJournal:
    """One session's journal; reads what other processes appended before each decision."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / JOURNAL
        self.seen: dict[str, Seen] = {}  # identity → entry
        self.reported: set[str] = set()
        self.removed: set[str] = set()  # the app archived-and-pruned or deleted these on purpose
        self.sections: list[str] | None = None  # the headers at the last good read
        self._offset = 0
        # What the last look found, so that the next one walks only what changed (``observe``):
        # the section texts by identity with their keyed entries (held, so that an id stays its
        # text's own), in how many of them each identity stands, and those whose entries were
        # all journaled then.
        self._keyed_bodies: dict[int, tuple[str, _Keyed]] = {}
        self._present: Counter[str] = Counter()
        self._settled: dict[int, str] = {}
        # Identities that may have vanished and are not yet judged: journaled anew since the
        # last look (by any process), or gone while ``report=False``.
        self._arrived: set[str] = set()
        self._pending: set[str] = set()

    # -- reading and appending ------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._catch_up(fd)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _catch_up(self, fd: int) -> None:
        size = os.fstat(fd).st_size
        if size <= self._offset:
            return
        data = os.pread(fd, size - self._offset, self._offset)
        complete = data[: data.rfind(b"\n") + 1]
        self._offset += len(complete)
        lines = complete.splitlines()
        try:  # one call into the JSON reader for the whole journal, not one per line
            records = json.loads(b"[" + b",".join(lines) + b"]") if lines else []
        except ValueError:
            records = [_loaded(raw) for raw in lines]  # a torn line from a crash: the rest still holds
        for record in records:
            if isinstance(record, dict):
                self._take(record)

    def _take(self, record: dict[str, object]) -> None:
        kind = record.get("kind")
        key = str(record.get("id", ""))
        if kind == "seen" and (key not in self.seen or key in self.reported or key in self.removed):
            self._arrived.add(key)
            after = record.get("after")
            self.seen[key] = Seen(
                str(record.get("header", "")),
                str(record.get("entry", "")),
                str(record.get("by", "the file")),
                str(record.get("at", "")),
                after if isinstance(after, str) else None,
            )
            self.reported.discard(key)
            self.removed.discard(key)
        elif kind == "lost":
            self.reported.add(key)
        elif kind == "removed":
            self.removed.add(key)
            self._settled = {}  # a removed entry still in the file is journaled again when seen
        elif kind == "sections":
            headers = record.get("headers")
            if isinstance(headers, list):
                self.sections = [str(h) for h in headers]

    def _append(self, records: Iterable[Record]) -> None:
        """Append ``records`` (under the lock), a few thousand at a time, each chunk taken in
        before the next is made: the first look at a 200,000-entry file would otherwise hold
        every record, and every line of it, in memory at once."""
        fd: int | None = None
        try:
            for chunk in _chunks(records, _CHUNK):
                if fd is None:
                    fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
                forms = [r.data() for r in chunk]
                data = "".join(_ENCODE(f) + "\n" for f in forms).encode("utf-8")
                append_whole(fd, data)  # whole records or none: no torn line swallows the next
                for form in forms:
                    self._take(form)
                self._offset += len(data)
            if fd is not None:
                os.fsync(fd)
        finally:
            if fd is not None:
                os.close(fd)

    # -- what callers ask -------------------------------------------------------------------------

    def observe(self, memory: TeamMemory, written_by_app: Iterable[str] = (), report: bool = True) -> list[Vanished]:
        """Take in the file as it is now: journal its new entries (``written_by_app`` holds the
        identities this process just wrote), and return the entries that vanished since they
        were journaled, each once across every app process. A writer that shows nothing to the
        Lead passes ``report=False``: it journals, and leaves the report to the window.

        After an agent's append only the appended section is new to the journal: the others'
        entries were all journaled when their very text was last observed (``_settled``), and
        an entry can only have vanished if it stood in a section text that is gone, or was
        journaled since (``_look``, ``_arrived``). So only those are walked: on 200,000 entries
        walking them all took 250 ms of the window's thread per outside write.
        tests/test_memory_journal.py holds this to a look at the whole file.
        """
        ours = set(written_by_app)
        now = _now()
        with self._locked():
            keyed, left = self._look(memory)
            # Judged until a look has reported them: a failed append leaves them for the next.
            self._pending |= left | self._arrived
            self._arrived = set()
            present, seen, reported, removed = self._present, self.seen, self.reported, self.removed
            candidates = {
                k for k in self._pending if k not in present and k in seen and k not in reported and k not in removed
            }
            gone = [(key, s) for key, s in seen.items() if key in candidates] if candidates else []
            vanished = [Vanished(s, now) for _, s in gone]
            lost = [LostRecord(k, now) for k, _ in gone] if report else []
            settled = self._settled if not ours else {}

            def seen_records() -> Iterator[SeenRecord]:
                """New entries, made as they are written (the journal takes them in as it goes:
                an identity twice in the file is journaled once)."""
                for section, k in keyed:
                    if settled.get(id(section.body)) is section.body:
                        continue  # every entry journaled when this very text was last observed
                    previous: str | None = None
                    for key, lines in k.entries:
                        # A reported entry that an agent's stale copy brings back stays reported:
                        # the Lead was told once. Written back by the app (Restore), it is watched
                        # again.
                        if key not in self.seen or key in self.removed or (key in self.reported and key in ours):
                            by = APP if key in ours else "the file"
                            yield SeenRecord(key, section.header, lines, by, now, previous)
                        previous = lines

            headers = [s.header for s in memory.sections]
            changed = [SectionsRecord(tuple(headers), now)] if headers and headers != self.sections else []
            self._append(itertools.chain(lost, seen_records(), changed))
            # Every entry now present is journaled and not marked removed, until a "removed"
            # record comes in (``_take``); what vanished unreported is judged again next time.
            self._settled = {id(section.body): section.body for section, _ in keyed}
            self._pending = set() if report else candidates
        return vanished

    def vanished(self, memory: TeamMemory) -> list[Vanished]:
        """Every journaled entry the file no longer holds, reported before or not; reads only
        (``memory check`` writes nothing)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            self._catch_up(fd)
        finally:
            os.close(fd)
        everywhere = frozenset().union(*(_keyed_entries(s.body).keys for s in _entry_sections(memory)))
        now = _now()
        return [Vanished(s, now) for key, s in self.seen.items() if key not in everywhere and key not in self.removed]

    def _look(self, memory: TeamMemory) -> tuple[list[tuple[MemorySection, _Keyed]], set[str]]:
        """Each section's entries as the journal keys them, and the identities that stood in
        the file at the last look and stand nowhere in it now.

        Only the section texts that are not the last look's are keyed and counted: after an
        agent's append, the appended section's.
        """
        known = self._keyed_bodies
        kept: dict[int, tuple[str, _Keyed]] = {}
        out = []
        for section in _entry_sections(memory):
            body = section.body
            hit = kept.get(id(body)) or known.get(id(body))
            if hit is None or hit[0] is not body:
                hit = (body, _keyed_entries(body))
            kept[id(body)] = hit
            out.append((section, hit[1]))
        present = self._present
        came = [k.keys for i, (body, k) in kept.items() if known.get(i, _NONE)[0] is not body]
        went = [k.keys for i, (body, k) in known.items() if kept.get(i, _NONE)[0] is not body]
        for keys in came:  # before those that went: an identity in both still stands
            present.update(keys)
        left: set[str] = set()
        for keys in went:
            for key in keys:
                present[key] -= 1
                if present[key] <= 0:
                    del present[key]
                    left.add(key)
        self._keyed_bodies = kept
        return out, left

    def missing_sections(self, memory: TeamMemory) -> list[str]:
        """Headers of the last good read that this version lacks (without journaling anything)."""
        with self._locked():
            if not self.sections:
                return []
            now = {s.header for s in memory.sections}
            return [h for h in self.sections if h not in now]

    def forget(self, identities: Iterable[str]) -> None:
        """The app removed these entries on purpose (prune): their absence is no loss."""
        with self._locked():
            self._append([RemovedRecord(key, _now()) for key in identities if key in self.seen])


def _entry_sections(memory: TeamMemory) -> Iterator[MemorySection]:
    """The sections that hold entries: Meta holds settings."""
    return (s for s in memory.sections if s.kind != "meta")


def _keyed_entries(body: str) -> _Keyed:
    keyed = _section_entries(body)
    return _Keyed(keyed, frozenset(key for key, _ in keyed))


@dataclass(frozen=True, slots=True)
class _Keyed:
    """One section's entries as the journal knows them: (identity, lines) in order, and the
    identities as a set."""

    entries: tuple[tuple[str, str], ...]
    keys: frozenset[str]


@functools.lru_cache(maxsize=4096)
def _section_entries(body: str) -> tuple[tuple[str, str], ...]:
    """Memoised by the section's text, which alone gives its entries (``entries_of``): an
    append to one section leaves the others' work done. The entries' line spans were part of
    the key, a tuple per entry kept by the memo: 19 MB for 200,000 entries."""
    lines = split_lines(body)
    out = []
    for entry in entries_of(body):
        raw = "".join(lines[entry.first - 1 : entry.stop - 1])  # counted from the heading line
        key, shown = identity(raw), raw.replace("\r\n", "\n").rstrip("\n")
        out.append((key, key if shown == key else shown))  # most entries: one string, not two
    return tuple(out)
