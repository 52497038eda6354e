"""Safe edits of TEAM-MEMORY.md, which agents edit while the app is open (ADR-001).

Every edit is anchored on a section header and applied to the file as it is on disk at that
moment: re-read, replace that one section, check that every other section is byte-identical,
write atomically, and start again if someone wrote in between. An edit carries the section
as the Lead last saw it; if the section changed on disk since, the two changes are merged when
they touch different lines, and the edit stops with both versions when they overlap.

Our own writers (the window, the CLI, other app processes) also hold a lock file while they
read, edit and replace, so that two of them never race between the check and the rename.
Agents' Edit tool does not take it; the check-and-retry covers them.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from models.memory.access import RELAY, access_of
from models.memory.check import unended_warning
from models.memory.journal import MemoryJournal, identity
from models.memory.settle import HalfWritten, UnfinishedOrphan, settled_read
from models.session.memory_entries import TAGS
from models.session.memory_parse import parse_memory
from models.session.team_memory import MemorySection, TeamMemory, unended_line
from models.text.atomic import FileChangedError, LockRefused, atomic_write, held
from models.text.intent import INTENT, holding_action_lock, record_intent
from models.text.textfile import newline_of, outside_link, read_text, split_lines
from models.text.transaction import FileWrite

LOCK_FILE = Path(".lead-console") / "memory.lock"  # in the app's own folder, never beside the Lead's files
MAX_ATTEMPTS = 20


class MemoryEditError(RuntimeError):
    """An edit that cannot be made safely; nothing was written."""


@dataclass
class Conflict(MemoryEditError):
    """The section changed on disk in the same lines as the Lead's edit."""

    header: str
    theirs: str
    ours: str

    def __str__(self) -> str:
        return f"## {self.header} changed on disk where you edited it; nothing was written"


@dataclass(frozen=True)
class SectionEdit:
    """Replace one section (found by its exact header) from ``before`` to ``after``.

    ``before`` is the section as the Lead last saw it (None: take whatever is there now, for
    appends that do not depend on it); a ``header`` absent from the file is created at the end
    with ``after`` as its whole text.
    """

    header: str
    before: str | None
    after: str | Callable[[str], str]


@dataclass
class EditResult:
    text: str  # the file as written
    merged: list[str] = field(default_factory=list)  # headers merged with a concurrent change
    attempts: int = 1
    before: str = ""  # the file the edit was applied to
    warning: str | None = None  # written, but something after the write went wrong (said once)

    def inverse(self, headers: set[str]) -> list[SectionEdit]:
        """Edits that undo this one on whatever the file holds later (merging as any edit)."""
        touched = headers | {
            s.header
            for s in parse_memory(self.text).sections
            if section_text(self.before, s.header) != section_text(self.text, s.header)
        }
        out = []
        for header in sorted(touched):
            was, now = section_text(self.before, header), section_text(self.text, header)
            if now is not None:
                out.append(SectionEdit(header, now, was or ""))
            elif was is not None:
                out.append(SectionEdit(header, None, was))
        return out


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """The app's writers of TEAM-MEMORY one at a time. The lock file is opened without following a
    link: a link in its place would have this write create or touch a file elsewhere."""
    try:
        with held(folder / LOCK_FILE, str(LOCK_FILE)):
            yield
    except LockRefused as exc:
        raise MemoryEditError(f"{exc.strerror}; nothing was written") from None


def section_span(memory: TeamMemory, header: str) -> tuple[int, int] | None:
    """Line range (header line included) of the section with exactly this header."""
    for section in memory.sections:
        if section.header == header:
            return section.line, section.end_line
    return None


def preview(path: Path, edits: list[SectionEdit]) -> tuple[str, str]:
    """(the file now, the file after ``edits``) without writing: for the Lead's preview."""
    loaded = read_text(path)
    if not loaded.exact:
        raise MemoryEditError(f"{path.name}: {loaded.problems[0].message}; nothing was written")
    return loaded.text, apply_edits(loaded.text, edits, [])


def section_text(text: str, header: str) -> str | None:
    span = section_span(parse_memory(text), header)
    if span is None:
        return None
    lines = split_lines(text)
    return "".join(lines[span[0] : span[1]])


def _merge(base: str, theirs: str, ours: str) -> str | None:
    """Three-way line merge of one section; None when both sides changed the same lines.

    Two insertions at the same place are not a conflict (two appends): theirs come first.
    """
    b = split_lines(base)

    def hunks(other: str) -> list[tuple[int, int, tuple[str, ...]]]:
        o = split_lines(other)
        sm = difflib.SequenceMatcher(None, b, o, autojunk=False)
        return [(i1, i2, tuple(o[j1:j2])) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]

    mine, other = hunks(ours), hunks(theirs)
    for a1, a2, a_lines in other:
        for c1, c2, c_lines in mine:
            if (a1, a2, a_lines) == (c1, c2, c_lines):
                continue  # the same change on both sides
            # Both changed some of the same base lines; an insert (an empty range) strictly
            # inside the other's lines meets the same test, one at either edge does not.
            if a1 < c2 and c1 < a2:
                return None
    ordered = sorted(set(other) | set(mine), key=lambda h: (h[0], h[1], h not in other))
    out: list[str] = []
    at = 0
    for i1, i2, lines in ordered:
        out += b[at:i1]
        out += lines
        at = max(at, i2)
    out += b[at:]
    return "".join(out)


def apply_edits(text: str, edits: list[SectionEdit], merged: list[str]) -> str:
    memory = parse_memory(text)
    lines = split_lines(text)
    nl = newline_of(text)
    replacements: list[tuple[int, int, str]] = []
    appended: list[str] = []
    for edit in edits:
        span = section_span(memory, edit.header)
        if span is None:
            if edit.before is not None:
                raise MemoryEditError(f"## {edit.header} is no longer in TEAM-MEMORY.md; nothing was written")
            new = edit.after("") if callable(edit.after) else edit.after
            appended.append(new)
            continue
        current = "".join(lines[span[0] : span[1]])
        new = edit.after(current) if callable(edit.after) else edit.after
        if edit.before is not None and current != edit.before:
            result = _merge(edit.before, current, new)
            if result is None:
                raise Conflict(edit.header, current, new)
            merged.append(edit.header)
            new = result
        replacements.append((span[0], span[1], new))
    for start, end, new in sorted(replacements, reverse=True):
        lines[start:end] = split_lines(new)
    out = "".join(lines)
    for block in appended:
        if out and not out.endswith(("\n", "\r")):
            out += nl
        if out and not out.endswith(nl * 2):
            out += nl
        # A new section is written in the file's line ends, as every edited one is: the blocks
        # made here (a new role's section, one put back) are written with "\n".
        out += block if nl == "\n" else block.replace("\r\n", "\n").replace("\n", nl)
    produced = {h.header for block in [*(r[2] for r in replacements), *appended] for h in parse_memory(block).sections}
    _verify(text, out, {e.header for e in edits} | produced, bool(appended))
    return out


def _verify(before: str, after: str, touched: set[str], appended: bool) -> None:
    """Every section not edited must be byte-identical, in the same order.

    When a section is appended at the end, the section before it may gain the blank line
    that separates them: only its trailing line ends may differ then.
    """

    def untouched(text: str) -> list[tuple[str, str]]:
        lines = split_lines(text)
        return [
            (s.header, "".join(lines[s.line : s.end_line]))
            for s in parse_memory(text).sections
            if s.header not in touched
        ]

    was, now = untouched(before), untouched(after)
    same_last = appended and was and len(now) == len(was) and was[-1][0] == now[-1][0]
    if same_last and was[-1][1].rstrip("\r\n") == now[-1][1].rstrip("\r\n"):
        now[-1] = was[-1]
    if was != now:
        raise MemoryEditError("the edit would change other sections; nothing was written")


EditsFor = Callable[[str], list[SectionEdit]]


def edit_memory(
    path: Path,
    edits: list[SectionEdit] | EditsFor,
    journal: MemoryJournal | None = None,
    title: str = "Edit TEAM-MEMORY.md",
) -> EditResult:
    """Apply section edits to the file as it is now; retry when someone writes in between.

    ``edits`` may be a function of the file's text, for edits that depend on what the file
    holds when it is finally read (which section a role has). The file is read only once it
    is settled and whole (``settled_read``); a symlink is written through to its target; a
    BOM and line ends are kept. If an agent was still writing into the file we replaced, its
    bytes are taken from the replaced file and the edit is made again on them. ``title``
    names the edit in its record (``models.text.intent``): one cut short is kept as written
    by the next command, and said.
    """
    journal = journal if journal is not None else MemoryJournal(path.parent)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            result = _attempt(path, edits, journal, attempt, title)
        except FileNotFoundError:
            raise MemoryEditError(f"{path.name} does not exist; nothing was written") from None
        except (HalfWritten, IsADirectoryError, ValueError) as exc:
            raise MemoryEditError(str(exc)) from None
        except OSError as exc:
            raise MemoryEditError(f"{path.name}: {exc.strerror or exc}; nothing was written") from None
        if result is not None:
            return result
    raise MemoryEditError(f"{path.name} kept changing; gave up after {MAX_ATTEMPTS} attempts")


def _attempt(
    path: Path, edits: list[SectionEdit] | EditsFor, journal: MemoryJournal, attempt: int, title: str
) -> EditResult | None:
    """One read-edit-write under our locks; None when someone wrote in between (try again).

    Each write is put down first as an action under way, and its record goes once the write
    and its journal lines are done: a kill in between is found by the next command, which
    keeps the edit (``forward``) and says so."""
    folder = path.parent
    with _locked(folder), holding_action_lock(folder), settled_read(path, journal) as read:
        _refuse_outside(path, read.target)
        try:
            base = read.text
            for _ in range(MAX_ATTEMPTS):
                wanted = edits(base) if callable(edits) else edits
                merged: list[str] = []
                new = apply_edits(base, wanted, merged)
                if new == read.text:
                    return EditResult(new, merged, attempt, base)
                data = read.bom + new.encode("utf-8")
                record_intent(folder, title, [FileWrite(read.target, "replace", title, data, read.expected)], True)
                before, after = _entry_ids(base), _entry_ids(new)
                removed = before - after
                warning = _journal_removals(journal, removed, path.name) if removed else None
                try:
                    written = atomic_write(read.target, data, read.expected)
                except BaseException as exc:
                    if removed:
                        _journal_kept(journal, base)
                    if isinstance(exc, FileChangedError):
                        return None
                    raise
                try:
                    orphan = read.orphaned()
                except UnfinishedOrphan:
                    # Our edit stands on the whole file we read: journal it, then say what happened.
                    journal.observe(parse_memory(new), after - before, report=False)
                    raise
                if orphan is None:
                    warning = _journal_additions(journal, new, after - before, path.name) or warning
                    warning = warning or unended_warning(unended_line(base[-400:]), written=True)
                    return EditResult(new, merged, attempt, base, warning)
                # An agent's write went on into the file we replaced: make the edit again on its bytes.
                base, read.text, read.expected = orphan, new, written
            return None
        finally:
            (folder / INTENT).unlink(missing_ok=True)


def _refuse_outside(path: Path, target: Path) -> None:
    """No write of ours goes through a link that leaves the session (issue 45.2): the file it
    leads to is someone else's. Read from there, it is named as such; a link within the session
    is written through, and stays a link. The same test as the read's warning (``outside_link``)."""
    if outside_link(path.parent, path.name):
        raise MemoryEditError(f"{path.name} is a link to {target}, outside the session; nothing was written")


def _journal_removals(journal: MemoryJournal, removed: set[str], name: str) -> str | None:
    """Tell the loss journal, before the write, which entries the edit removes on purpose: a
    window that reads the file the moment after it is replaced finds them journaled as removed,
    not vanished. A journal that cannot be written is said, never a reason not to write."""
    try:
        journal.forget(removed)
    except OSError as exc:
        return _unjournaled(name, exc)
    return None


def _journal_kept(journal: MemoryJournal, base: str) -> None:
    """The write did not happen: the entries journaled as removed still stand, and are watched
    again (a failure here leaves them to the next look, which journals them again)."""
    with contextlib.suppress(OSError):
        journal.observe(parse_memory(base), report=False)


def _journal_additions(journal: MemoryJournal, new: str, added: set[str], name: str) -> str | None:
    """Tell the loss journal what the written edit added. The edit is on disk already: a journal
    that cannot be written is said, never reported as a failed edit."""
    try:
        journal.observe(parse_memory(new), added, report=False)
    except OSError as exc:
        return _unjournaled(name, exc)
    return None


def _unjournaled(name: str, exc: OSError) -> str:
    return (
        f"{name} was written, but the loss journal could not record it ({exc.strerror or exc}): "
        "entries this edit removed may be reported as lost"
    )


def _entry_ids(text: str) -> set[str]:
    return {identity(e) for e in _all_entries(text)}


def _all_entries(text: str) -> list[str]:
    lines = split_lines(text)
    memory = parse_memory(text)
    return ["".join(lines[s.line + e.first : s.line + e.stop]) for s in memory.sections for e in s.entries]


def entry_line(tag: str | None, text: str, timestamp: str | None = None, relayed: bool = False) -> str:
    if tag is not None and tag not in TAGS:
        raise MemoryEditError(f"unknown tag {tag!r}; use one of {', '.join(TAGS)}")
    parts = ["-"]
    if tag:
        parts.append(f"[{tag}]")
    if timestamp:
        parts.append(timestamp)
    if relayed:
        parts.append("(relayed by Lead)")
    parts.append(" ".join(text.split()))
    return " ".join(parts)


def append_entry(section: str, line: str) -> str:
    """The section with ``line`` after its last entry (before trailing blank lines)."""
    nl = newline_of(section)
    body = section.rstrip("\r\n")
    tail = section[len(body) :]
    return body + nl + line + (tail if tail else nl)


def header_of(memory: TeamMemory, role: str) -> MemorySection | None:
    """The active (not replaced) section of ``role``; for Lead and Meta, by name."""
    matches = [s for s in memory.sections if s.role.lower() == role.lower() and not s.replaced]
    return matches[-1] if matches else None


def _same_entry(line: str, timestamp: str | None) -> re.Pattern[str]:
    """``line`` as a pattern whose timestamp may be any other: the same entry added earlier."""
    if not timestamp or timestamp not in line:
        return re.compile(re.escape(line))
    head, _, tail = line.partition(timestamp)
    return re.compile(re.escape(head) + r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z" + re.escape(tail))


def edits_for_entry(role: str, tag: str | None, text: str, timestamp: str | None = None) -> EditsFor:
    """The edit that adds an entry to ``role``'s section (Lead: with a timestamp; relay roles:
    marked relayed), computed on the text the edit is finally made to."""
    access = access_of(role)
    line = entry_line(tag, text, timestamp if role.lower() == "lead" or access == RELAY else None, access == RELAY)

    same = _same_entry(line, timestamp)

    def edits_for(current: str) -> list[SectionEdit]:
        section = header_of(parse_memory(current), role)
        if section is not None and any(same.fullmatch(x.rstrip("\r")) for x in section.body.split("\n")):
            # There already: a retry after a run cut short (or after an agent's rewrite carried
            # our first write), or the same words twice. One entry, not two.
            return []
        if section is None:
            return [SectionEdit(role, None, f"## {role}\n{line}\n")]
        return [SectionEdit(section.header, None, lambda now: append_entry(now, line))]

    return edits_for


def add_entry(path: Path, role: str, tag: str | None, text: str, timestamp: str | None = None) -> EditResult:
    """Add an entry to ``role``'s section. The section is looked up in the file as it is when
    the edit is made, never in an earlier read that an agent's write may have caught half-way."""
    return edit_memory(path, edits_for_entry(role, tag, text, timestamp), title=f"Add to {role} in TEAM-MEMORY.md")


def utc_now_minutes() -> str:
    """The timestamp form of ADR-001's Lead entries: ``2026-11-21T09:05Z``."""
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%MZ")
