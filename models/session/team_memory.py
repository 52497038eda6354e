"""TEAM-MEMORY.md (ADR-001): a section per role, tagged entries, curation markers. Read by
``models.session.memory_parse``, followed by ``models.session.memory_follow``."""

from __future__ import annotations

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
from models.text.problems import Problem
from models.text.textfile import Undecoded

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


def unended_line(end: str) -> str | None:
    """The last line of a text whose end is ``end``, when it has no line end; else None."""
    if not end or end.endswith(("\n", "\r")):
        return None
    return end.rsplit("\n", 1)[-1].removeprefix("\ufeff")


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
    def over_limit(self) -> bool:
        """ADR-001 §5 curation rule 4: past 500 lines (not at 500) the Lead removes the
        [ARCHIVED] entries."""
        return self.line_count > LINE_LIMIT

    @property
    def text_length(self) -> int:
        """``len(text)``, without decoding it."""
        return len(self._source)

    def unended_line(self) -> str | None:
        """The file's last line when it has no line end, else None: a file cut off, or caught
        while being written, ends so (every line the app and agents' Edits write ends). Read
        from the file's last bytes, without decoding the whole."""
        source = self._source
        return unended_line(source[-400:] if isinstance(source, str) else source.raw[-1600:].decode("utf-8", "replace"))

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

    def written(self, section: MemorySection, entry: MemoryEntry | None = None) -> str:
        """``section``'s lines as the file holds them, or only ``entry``'s (its bullet, markers
        and continuation lines): what the Lead copies to hand to an agent."""
        k = next(n for n, s in enumerate(self.sections) if s is section)
        text = self.section_text(k)
        if entry is None:
            return text
        return "".join(text.splitlines(keepends=True)[entry.first : entry.stop])

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


def teammate_facts_kept(memory: TeamMemory | None) -> bool:
    """Whether ``memory`` says of the teammates what the version it follows said: a follow-up
    of one section's body keeps the headings (the roles, and which are [REPLACED]), and unless
    it moved a [REPLACED] heading, the lines the teammates' states cite too."""
    follow = memory.follow_up if memory is not None else None
    if memory is None or follow is None:
        return False
    return not follow.lines or not any(s.replaced for s in memory.sections[follow.index + 1 :])


def read_meta(section: MemorySection) -> None:
    """The Meta section's ``- Key: value`` lines (its entries come with them); other sections'
    entries wait until asked for."""
    if section.kind == "meta":
        section._entries, meta = read_entries(section.body, True)
        section.meta = dict(meta)
