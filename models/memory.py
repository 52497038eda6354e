"""TEAM-MEMORY.md (ADR-001): a section per role, tagged entries, curation markers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from models import mdblocks
from models.problems import Problem
from models.textfile import split_lines

TAGS = ("Finding", "Pattern", "Decision", "Warning", "Dependency", "Conflict", "Question")
LINE_LIMIT = 500  # ADR-001 §5 curation rule 4

SectionKind = Literal["meta", "lead", "role"]

_BULLET = re.compile(r"^[-*+][ \t]+(?P<content>.*?)\r?\n?$")
_MARKER = re.compile(r"^\s*(?:\*\*)?\[(?P<name>[A-Za-z][\w -]{0,30})\](?:\*\*)?\s*")
_META_ITEM = re.compile(r"^[-*+][ \t]+(?:\*\*)?(?P<key>[^:*]+?)(?::\*\*|\*\*:|:)[ \t]*(?P<value>.*?)\r?\n?$")


@dataclass(eq=False)
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
    while True:
        m = _MARKER.match(content)
        if not m:
            break
        name = m.group("name").strip()
        if name.upper() == "ARCHIVED":
            archived = True
        elif tag is None:
            canonical = next((t for t in TAGS if t.lower() == name.lower()), None)
            tag = canonical or name
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
        _fill(section, lines, scan.in_code)
    seen: Counter[str] = Counter(s.role for s in sections if not s.replaced)
    for role, count in seen.items():
        if count > 1:
            problems.append(Problem("warning", file, f"{count} active sections for {role}"))
    return TeamMemory(text, title, sections, len(lines), problems)


def _fill(section: MemorySection, lines: list[str], in_code: list[bool]) -> None:
    i = section.line + 1
    end = section.end_line
    while i < end:
        line = lines[i]
        if not line.strip() or (in_code[i] and not line.startswith((" ", "\t"))):
            i += 1
            continue
        if section.kind == "meta":
            m = _META_ITEM.match(line)
            if m:
                section.meta[m.group("key").strip()] = m.group("value").strip()
        j = i + 1
        while j < end and lines[j].strip() and lines[j][0] in " \t":
            j += 1
        bullet = _BULLET.match(line)
        first = bullet.group("content") if bullet else line.strip()
        body, tag, archived = _strip_markers(first)
        rest = [ln.rstrip("\r\n") for ln in lines[i + 1 : j]]
        section.entries.append(MemoryEntry("\n".join([body, *rest]), tag, archived, i, j))
        i = j
