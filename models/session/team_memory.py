"""TEAM-MEMORY.md (ADR-001): a section per role, tagged entries, curation markers."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from models.text import mdblocks
from models.text.problems import Problem
from models.text.textfile import split_lines

TAGS = ("Finding", "Pattern", "Decision", "Warning", "Dependency", "Conflict", "Question")
_CANONICAL_TAGS = {t.lower(): t for t in TAGS}
LINE_LIMIT = 500  # ADR-001 §5 curation rule 4

SectionKind = Literal["meta", "lead", "role"]

_BULLET = re.compile(r"^[-*+][ \t]+(?P<content>.*?)\r?\n?$")
_MARKER = re.compile(r"^\s*(?:\*\*)?\[(?P<name>[A-Za-z][\w -]{0,30})\](?:\*\*)?\s*")
_META_ITEM = re.compile(r"^[-*+][ \t]+(?:\*\*)?(?P<key>[^:*]+?)(?::\*\*|\*\*:|:)[ \t]*(?P<value>.*?)\r?\n?$")


@dataclass(eq=False, slots=True)
class MemoryEntry:
    """One bullet (or stray paragraph) and its indented continuation lines."""

    text: str  # the entry without its bullet and markers, continuation lines included
    tag: str | None
    archived: bool
    line: int  # 0-based
    end_line: int  # exclusive

    @property
    def known_tag(self) -> bool:
        return self.tag in TAGS

    @property
    def summary(self) -> str:
        """The first line as a reader wants it in a list: without bold markers."""
        return self.text.split("\n", 1)[0].replace("**", "")


@dataclass(eq=False)
class MemorySection:
    """A ``## <role-id>`` section (or Meta / Lead)."""

    header: str
    role: str
    kind: SectionKind
    replaced: bool
    line: int
    end_line: int
    entries: list[MemoryEntry] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)

    def tag_counts(self) -> dict[str, int]:
        return dict(Counter(e.tag for e in self.entries if e.tag))


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


@dataclass(eq=False)
class TeamMemory:
    """A parsed TEAM-MEMORY.md."""

    text: str
    title: str | None
    sections: list[MemorySection]
    line_count: int
    problems: list[Problem]

    def roles(self) -> Iterator[MemorySection]:
        return (s for s in self.sections if s.kind == "role")

    @property
    def gc_version_label(self) -> str | None:
        meta = next((s for s in self.sections if s.kind == "meta"), None)
        return meta.meta.get("GC Version") if meta else None


def _strip_markers(content: str) -> tuple[str, str | None, bool]:
    """Peel ``[ARCHIVED]`` and one ``[Tag]`` off the front of an entry, in either order."""
    tag: str | None = None
    archived = False
    while content.lstrip()[:3].startswith(("[", "**[")):
        m = _MARKER.match(content)
        if not m:
            break
        name = m.group("name").strip()
        if name.upper() == "ARCHIVED":
            archived = True
        elif tag is None:
            tag = _CANONICAL_TAGS.get(name.lower(), name)
        else:
            break
        content = content[m.end() :]
    return content.strip(), tag, archived


def _section(header: str, line: int) -> MemorySection:
    replaced = "[REPLACED]" in header.upper()
    clean = re.sub(r"\[REPLACED\]", "", header, flags=re.I).strip()
    role = clean.split()[0] if clean.split() else clean
    lowered = role.lower()
    kind: SectionKind = "meta" if lowered == "meta" else "lead" if lowered == "lead" else "role"
    return MemorySection(header, role, kind, replaced, line, line + 1)


def parse_memory(text: str, file: str = "TEAM-MEMORY.md") -> TeamMemory:
    """Parse TEAM-MEMORY; headings inside code fences are not sections."""
    lines = split_lines(text)
    scan = mdblocks.scan(lines, file)
    problems = list(scan.problems)
    title: str | None = None
    sections: list[MemorySection] = []
    heads = [h for h in scan.headings if h.level <= 2]
    if heads and heads[0].level == 1:
        title = heads[0].text
    elif text.strip():
        problems.append(Problem("warning", file, "no '# TEAM-MEMORY — <feature>' title", 1))
    for index, head in enumerate(h for h in heads if h.level == 2):
        section = _section(head.text, head.line)
        sections.append(section)
        if index:
            sections[index - 1].end_line = head.line
    if sections:
        sections[-1].end_line = len(lines)
    for section in sections:
        _fill(section, lines)
    seen: Counter[str] = Counter(s.role for s in sections if not s.replaced)
    for role, count in seen.items():
        if count > 1:
            problems.append(Problem("warning", file, f"{count} active sections for {role}"))
    return TeamMemory(text, title, sections, len(lines), problems)


def _fill(section: MemorySection, lines: list[str]) -> None:
    body = "".join(lines[section.line + 1 : section.end_line])
    entries, meta = _placed_entries(body, section.kind == "meta", section.line + 1)
    section.entries = list(entries)
    section.meta = dict(meta)


@functools.lru_cache(maxsize=256)
def _placed_entries(
    body: str, is_meta: bool, first: int
) -> tuple[tuple[MemoryEntry, ...], tuple[tuple[str, str], ...]]:
    """The entries of a section body that starts at line ``first``, memoised.

    An agent's append changes one section; the entries of every other section (same text,
    same place) are the very objects of the last parse. Entries are never changed after
    parsing, so sharing them is safe, and the viewer's diff then finds them unchanged.
    """
    rel_entries, meta = _section_entries(body, is_meta)
    entries = tuple(MemoryEntry(text, tag, archived, first + a, first + b) for text, tag, archived, a, b in rel_entries)
    return entries, meta


_RelEntry = tuple[str, str | None, bool, int, int]


@functools.lru_cache(maxsize=4096)
def _section_entries(body: str, is_meta: bool) -> tuple[tuple[_RelEntry, ...], tuple[tuple[str, str], ...]]:
    """Entries of one section body (lines relative to it), memoised by text.

    Writers edit one section at a time (ADR-001's header-anchored edits), so a reload after an
    agent's edit parses that section only. Fences never cross a section header, so the body
    can be scanned on its own.
    """
    lines = split_lines(body)
    if "```" in body or "~~~" in body or "<!--" in body:
        in_code = mdblocks.scan(lines, "").in_code
    else:  # no fence or comment can open here (most sections)
        in_code = [False] * len(lines)
    entries: list[_RelEntry] = []
    meta: dict[str, str] = {}
    i = 0
    end = len(lines)
    while i < end:
        line = lines[i]
        if not line.strip() or (in_code[i] and not line.startswith((" ", "\t"))):
            i += 1
            continue
        if is_meta:
            m = _META_ITEM.match(line)
            if m:
                meta[m.group("key").strip()] = m.group("value").strip()
        j = i + 1
        while j < end and lines[j].strip() and lines[j][0] in " \t":
            j += 1
        bullet = _BULLET.match(line)
        first = bullet.group("content") if bullet else line.strip()
        text, tag, archived = _strip_markers(first)
        rest = [ln.rstrip("\r\n") for ln in lines[i + 1 : j]]
        entries.append(("\n".join([text, *rest]), tag, archived, i, j))
        i = j
    return tuple(entries), tuple(meta.items())
