"""Reading TEAM-MEMORY.md from its text: its title, a section per ``##`` heading, and what the
file as a whole lacks. An agent's edit inside one section is read from the last parse
(``models.session.memory_follow``)."""

from __future__ import annotations

import re
from collections import Counter

from models.session.memory_follow import reparse_one_section
from models.session.team_memory import MemorySection, SectionKind, TeamMemory, read_meta
from models.text import mdblocks
from models.text.problems import Problem
from models.text.textfile import is_blank


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
        quick = reparse_one_section(previous, text, file)
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
        read_meta(section)
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
