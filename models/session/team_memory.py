"""TEAM-MEMORY.md (ADR-001): a section per role, tagged entries, curation markers."""

from __future__ import annotations

import bisect
import re
import threading
import weakref
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from models.session.memory_entries import (
    TAGS,
    UNKNOWN_BRACKET,
    MemoryEntry,
    count_entries,
    read_entries,
)
from models.text import mdblocks
from models.text.common import common_prefix, same_after
from models.text.problems import Problem
from models.text.textfile import Undecoded, is_blank, split_lines

_NOT_BLANK = re.compile(r"\S")  # what makes a line start an entry (``count_entries``)

LINE_LIMIT = 500  # ADR-001 §5 curation rule 4

SectionKind = Literal["meta", "lead", "role"]

_READING = threading.Lock()


@dataclass(eq=False)
class MemorySection:
    """A ``## <role-id>`` section (or Meta / Lead).

    Its entries are read from ``body`` when first asked for: opening a 20,000-line file then
    costs its headings, and what the window shows first (each section's count, the tags on
    offer) is found without building 20,000 entries; the journal's look, off the GUI thread,
    builds them later.
    """

    header: str
    role: str
    kind: SectionKind
    replaced: bool
    line: int
    end_line: int
    # The text under the heading, as the entries are read from it (the parse's memo holds the
    # same string, not a copy): a section a follow-up only moved shares it, and so its entries.
    body: str = field(default="", repr=False)
    meta: dict[str, str] = field(default_factory=dict)
    _entries: tuple[MemoryEntry, ...] | None = field(default=None, repr=False)
    _unknown: frozenset[str] | None = field(default=None, repr=False)
    _count: int | None = field(default=None, repr=False)

    @property
    def entries(self) -> tuple[MemoryEntry, ...]:
        """The entries, read once (the GUI and the journal's worker may both ask first)."""
        entries = self._entries
        if entries is None:
            with _READING:
                if self._entries is None:
                    self._entries = read_entries(self.body, self.kind == "meta")[0]
                entries = self._entries
        return entries

    @property
    def has_entries(self) -> bool:
        """Whether there is an entry, without counting them: the first line with any character
        but white space starts one (``read_entries``), unless it opens a fence or a comment,
        which can hide the lines after it (then they are counted). The tree asks every section
        row it lays out for its expander; counting the entries of all 400 sections of a 14 MB
        file took 60 ms of opening it."""
        if self._entries is not None or self._count is not None:
            return self.entry_count > 0
        body = self.body
        found = _NOT_BLANK.search(body)
        if found is None:
            return False
        end = body.find("\n", found.start())
        first = body[found.start() : end if end >= 0 else len(body)]
        if mdblocks.may_hide_lines(first):
            return self.entry_count > 0
        return True

    @property
    def entry_count(self) -> int:
        """How many entries there are, counted without reading them when the body allows."""
        if self._entries is not None:
            return len(self._entries)
        if self._count is None:
            self._count = count_entries(self.body)
            if self._count is None:
                return len(self.entries)
        return self._count

    def tag_counts(self) -> dict[str, int]:
        return dict(Counter(e.tag for e in self.entries if e.tag))

    def unknown_tags(self) -> frozenset[str]:
        """Tags outside ADR-001's list (a filter offers them too); kept, since a follow-up
        hands a moved section's entries on and asks again. Without a bracket outside the list
        there is none, and the entries need not be read to say so."""
        if self._unknown is None:
            if self._entries is None and UNKNOWN_BRACKET.search(self.body) is None:
                self._unknown = frozenset()
            else:
                self._unknown = frozenset(e.tag for e in self.entries if e.tag and e.tag not in TAGS)
        return self._unknown

    def span_of(self, entry: MemoryEntry) -> tuple[int, int]:
        """The entry's lines in the file (0-based, end exclusive)."""
        return self.line + entry.first, self.line + entry.stop


@dataclass(frozen=True)
class MemoryQuery:
    """What the TEAM-MEMORY viewer shows: a tag, a search text, archived entries or not."""

    tag: str | None = None
    search: str = ""
    show_archived: bool = True

    @property
    def active(self) -> bool:
        return bool(self.tag or self.search.strip() or not self.show_archived)

    def matches(self, entry: MemoryEntry) -> bool:
        if entry.archived and not self.show_archived:
            return False
        if self.tag and entry.tag != self.tag:
            return False
        needle = self.search.strip().lower()
        return not needle or needle in entry.text.lower()


@dataclass(frozen=True)
class MemoryFollowUp:
    """How a follow-up differs from the version it was read from: section ``index``'s body
    alone changed, and the sections below it lie ``lines`` further down. A view that shows the
    earlier version updates the one row (``previous`` is weak: a chain of follow-ups must not
    keep every version alive)."""

    previous: weakref.ref[TeamMemory]
    index: int
    lines: int


@dataclass(eq=False)
class TeamMemory:
    """A parsed TEAM-MEMORY.md."""

    # The text, or the bytes it is: a follow-up read from the bytes that changed
    # (``models.session.memory_follow``) leaves decoding the whole to the first reader.
    _source: str | Undecoded = field(repr=False)
    title: str | None
    sections: list[MemorySection]
    line_count: int
    problems: list[Problem]
    # Where each section's heading starts in ``text`` (characters), and whether the block scan
    # found nothing wrong: what ``parse_memory(..., previous=this)`` needs to re-read one section.
    offsets: list[int] = field(default_factory=list, repr=False)
    scan_clean: bool = field(default=False, repr=False)
    # The same places in the text's UTF-8 bytes, once known (``utf8_offsets``).
    byte_offsets: list[int] | None = field(default=None, repr=False)
    # Set on a follow-up that re-read one section (``with_section``).
    follow_up: MemoryFollowUp | None = field(default=None, repr=False)
    _unknown: frozenset[str] | None = field(default=None, init=False, repr=False)

    @property
    def text(self) -> str:
        """The whole text. Read from bytes, it is decoded on each call and not kept: the
        follow-ups, the view and the loss check need none of it, and kept it would be a second
        copy (a 29 MB string for a 14 MB file) beside the bytes the next follow-up compares."""
        source = self._source
        return source if isinstance(source, str) else source.decoded()

    @property
    def text_length(self) -> int:
        """``len(text)``, without decoding it."""
        return len(self._source)

    def preamble(self) -> str:
        """The text before the first section (all of it when there is none)."""
        source = self._source
        if not self.offsets:
            return self.text
        if isinstance(source, str):
            return source[: self.offsets[0]]
        return source.decoded_span(0, self.utf8_offsets()[0])

    def section_text(self, k: int) -> str:
        """Section ``k``'s lines: its heading line and body."""
        source, last = self._source, k + 1 == len(self.offsets)
        if isinstance(source, str):
            return source[self.offsets[k] : None if last else self.offsets[k + 1]]
        starts = self.utf8_offsets()
        return source.decoded_span(starts[k], None if last else starts[k + 1])

    def same_text(self, other: TeamMemory) -> bool:
        """Whether ``other`` holds the same text, compared without decoding where both were
        read from bytes."""
        a, b = self._source, other._source
        if self is other or a is b:
            return True
        if len(a) != len(b):
            return False
        if isinstance(a, Undecoded) and isinstance(b, Undecoded):
            return a.same_text(b)
        return self.text == other.text

    def utf8_offsets(self) -> list[int]:
        """``offsets`` counted in the text's UTF-8 bytes: a section's length in bytes is its
        length in characters when it is all ASCII (which a string knows without looking), so
        mostly no character is encoded."""
        if self.byte_offsets is None:
            text, offsets = self.text, self.offsets
            found, at = [], _utf8_length(text[: offsets[0]]) if offsets else 0
            for k, (start, section) in enumerate(zip(offsets, self.sections, strict=True)):
                found.append(at)
                stop = offsets[k + 1] if k + 1 < len(offsets) else len(text)
                heading = text[start : stop - len(section.body)]
                at += _utf8_length(heading) + _utf8_length(section.body)
            self.byte_offsets = found
        return self.byte_offsets

    def unknown_tags(self) -> frozenset[str]:
        """The tags outside ADR-001's list in any section, kept: the filter asks after every
        append, and a follow-up works its answer out from the last one (``with_section``)."""
        if self._unknown is None:
            self._unknown = frozenset().union(*(s.unknown_tags() for s in self.sections))
        return self._unknown

    def roles(self) -> Iterator[MemorySection]:
        return (s for s in self.sections if s.kind == "role")

    @property
    def gc_version_label(self) -> str | None:
        meta = next((s for s in self.sections if s.kind == "meta"), None)
        return meta.meta.get("GC Version") if meta else None


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _section(header: str, line: int) -> MemorySection:
    replaced = "[REPLACED]" in header.upper()
    clean = re.sub(r"\[REPLACED\]", "", header, flags=re.I).strip()
    role = clean.split()[0] if clean.split() else clean
    lowered = role.lower()
    kind: SectionKind = "meta" if lowered == "meta" else "lead" if lowered == "lead" else "role"
    return MemorySection(header, role, kind, replaced, line, line + 1)


def parse_memory(text: str, file: str = "TEAM-MEMORY.md", previous: TeamMemory | None = None) -> TeamMemory:
    """Parse TEAM-MEMORY; headings inside code fences are not sections.

    With ``previous``, the last parse of the same file, an edit inside one section's body (an
    agent's append, a line changed) re-reads that section only; the sections before it are the
    very objects of ``previous`` and those after it keep their entries, so a follow-up costs
    what the edit touched, not what the file holds. Anything else is read in full.
    """
    if previous is not None:
        quick = _reparse_one_section(previous, text, file)
        if quick is not None:
            return quick
    return _parse_all(text, file)


def _parse_all(text: str, file: str) -> TeamMemory:
    """The whole file, from its headings alone (``mdblocks.scan_text``): splitting a 200,000-line
    file into lines to find 400 headings took 50 of the 70 ms this takes."""
    scan = mdblocks.scan_text(text, file)
    title: str | None = None
    sections: list[MemorySection] = []
    offsets: list[int] = []  # where each section's heading line starts
    heads = [(h, at) for h, at in zip(scan.headings, scan.offsets, strict=True) if h.level <= 2]
    if heads and heads[0][0].level == 1:
        title = heads[0][0].text
    for head, at in heads:
        if head.level == 2:
            if sections:
                sections[-1].end_line = head.line
            sections.append(_section(head.text, head.line))
            offsets.append(at)
    if sections:
        sections[-1].end_line = scan.line_count
    stops = [*offsets[1:], len(text)] if offsets else []
    for section, at, stop in zip(sections, offsets, stops, strict=True):
        section.body = text[text.find("\n", at, stop) + 1 or stop : stop]  # the lines under the heading
        _read_meta(section)
    problems = list(scan.problems) + _whole_file_problems(is_blank(text), title, sections, file)
    return TeamMemory(text, title, sections, scan.line_count, problems, offsets, not scan.problems)


def _whole_file_problems(blank: bool, title: str | None, sections: list[MemorySection], file: str) -> list[Problem]:
    """What the file as a whole lacks: its title, one active section per role."""
    problems = []
    if title is None and not blank:
        problems.append(Problem("warning", file, "no '# TEAM-MEMORY — <feature>' title", 1))
    seen: Counter[str] = Counter(s.role for s in sections if not s.replaced)
    for role, count in seen.items():
        if count > 1:
            problems.append(Problem("warning", file, f"{count} active sections for {role}"))
    return problems


def teammate_facts_kept(memory: TeamMemory | None) -> bool:
    """Whether ``memory`` says of the teammates what the version it follows said: a follow-up
    of one section's body keeps the headings (the roles, and which are [REPLACED]), and unless
    it moved a [REPLACED] heading, the lines the teammates' states cite too."""
    follow = memory.follow_up if memory is not None else None
    if memory is None or follow is None:
        return False
    return not follow.lines or not any(s.replaced for s in memory.sections[follow.index + 1 :])


def followable(previous: TeamMemory) -> bool:
    """Whether a follow-up may re-read one section of ``previous``: not after a scan problem
    (whose line numbers would shift), and only with a place for each section."""
    return previous.scan_clean and bool(previous.offsets) and len(previous.offsets) == len(previous.sections)


def section_at(starts: list[int], same: int) -> int:
    """The section (by where each starts) a change that starts at ``same`` lies in; -1 before
    the first. A change put in just before a heading ends the section above it (an entry
    appended)."""
    k = bisect.bisect_right(starts, same) - 1
    return k - 1 if k > 0 and starts[k] == same else k


def _reparse_one_section(previous: TeamMemory, text: str, file: str) -> TeamMemory | None:
    """``text`` parsed by re-reading the one section of ``previous`` its change lies in, or
    None when the change touches a heading, opens a fence or comment that could run past the
    section, or ``previous`` had a scan problem (whose line numbers would shift)."""
    if not followable(previous):
        return None
    old, offsets = previous.text, previous.offsets
    same_start = common_prefix(old, text)
    k = section_at(offsets, same_start)
    heading_end = old.find("\n", offsets[k]) + 1 if k >= 0 else 0
    if heading_end == 0 or same_start < heading_end:
        return None  # before the first section, or in a heading line
    old_stop = offsets[k + 1] if k + 1 < len(offsets) else len(old)
    new_stop = old_stop + len(text) - len(old)
    if new_stop < same_start or not same_after(old, old_stop, text, new_stop):
        return None  # the change runs into the next section
    return with_section(previous, k, text[offsets[k] : new_stop], text, file)


def with_section(
    previous: TeamMemory, k: int, section_text: str, text: str | Undecoded, file: str, byte_shift: int | None = None
) -> TeamMemory | None:
    """``previous`` with section ``k``'s text (its heading line first, unchanged) now
    ``section_text``; ``text`` is the new whole text, and ``byte_shift`` how many bytes longer
    the file grew, when known. None when the section's text no longer reads as one section."""
    offsets = previous.offsets
    if k + 1 < len(offsets) and not section_text.endswith("\n"):
        return None  # the next heading would no longer start a line
    lines = split_lines(section_text)
    scan = mdblocks.scan(lines, file)
    if scan.problems or scan.in_code[-1] or any(h.level == 2 for h in scan.headings[1:]):
        return None
    was = previous.sections[k]
    section = MemorySection(was.header, was.role, was.kind, was.replaced, was.line, was.line + len(lines))
    section.body = "".join(lines[1:])
    _read_meta(section)
    moved = len(lines) - (was.end_line - was.line)
    after = _moved(previous.sections[k + 1 :], moved) if moved else previous.sections[k + 1 :]
    sections = [*previous.sections[:k], section, *after]
    # The title and every heading are as they were, and ``previous`` scanned clean: its
    # problems are the whole file's, and they hold for this version too.
    problems = list(previous.problems)
    shift = len(text) - previous.text_length
    memory = TeamMemory(
        text, previous.title, sections, previous.line_count + moved, problems, _shifted(offsets, k, shift), True
    )
    if byte_shift is not None and previous.byte_offsets is not None:
        memory.byte_offsets = _shifted(previous.byte_offsets, k, byte_shift)
    memory.follow_up = MemoryFollowUp(weakref.ref(previous), k, moved)
    if previous._unknown is not None and was.unknown_tags() <= section.unknown_tags():
        memory._unknown = previous._unknown | section.unknown_tags()  # no tag can have gone
    return memory


def _shifted(offsets: list[int], k: int, shift: int) -> list[int]:
    return offsets[: k + 1] + [o + shift for o in offsets[k + 1 :]]


def _moved(sections: list[MemorySection], lines: int) -> list[MemorySection]:
    """``sections`` ``lines`` further down the file: the same bodies and entries (they count
    their lines from the heading), in new section objects, since the previous parse still holds
    the old ones. Each takes a copy of its original's fields as they are: through ``__init__``
    the 400 copies of an append to a ten-times TEAM-MEMORY took 0.4 ms, copying the dict in
    place of updating an empty one halves what is left."""
    made: list[MemorySection] = []
    new = object.__new__
    for section in sections:
        fields = section.__dict__.copy()
        fields["line"] += lines
        fields["end_line"] += lines
        moved = new(MemorySection)
        moved.__dict__ = fields
        made.append(moved)
    return made


def _read_meta(section: MemorySection) -> None:
    """The Meta section's ``- Key: value`` lines (its entries come with them); other sections'
    entries wait until asked for."""
    if section.kind == "meta":
        section._entries, meta = read_entries(section.body, True)
        section.meta = dict(meta)
