"""Issue 18: TEAM-MEMORY is read whole from its headings alone (``mdblocks.scan_text``), with
no list of its lines. The reading it replaces split the text into lines and scanned them; it
is kept here as the reference, and on every real Markdown file (read as a TEAM-MEMORY) and on
random TEAM-MEMORY-like text the two must give the same sections, bodies, lines, places and
problems."""

from __future__ import annotations

import random

from conftest import ROOT, SHARED
from models.session.memory_parse import _section, _whole_file_problems, parse_memory
from models.session.team_memory import MemorySection, TeamMemory, read_meta
from models.text import mdblocks
from models.text.textfile import is_blank, line_starts, split_lines

PIECES = [
    "# TEAM-MEMORY — x\n", "## Meta\n", "## Lead\n", "## implementer-1\n", "## [REPLACED] implementer-1\n",
    "### deeper\n", "# another title\n", "- Created: 2026-11-16\n", "- GC Version: GC-v3\n",
    "- [Finding] a finding\n", "  continued\n", "\n", "```\n", "## in a fence?\n", "<!-- c\n", "-->\n",
    "## researcher-2\r\n", "- [Pattern] crlf\r\n", "text with no line end",
]  # fmt: skip


def _reference(text: str, file: str) -> TeamMemory:
    """The line-by-line reading, as it was."""
    lines = split_lines(text)
    starts = line_starts(lines)
    scan = mdblocks.scan(lines, file, 1, (text, starts))
    title: str | None = None
    sections: list[MemorySection] = []
    heads = [h for h in scan.headings if h.level <= 2]
    if heads and heads[0].level == 1:
        title = heads[0].text
    for index, head in enumerate(h for h in heads if h.level == 2):
        section = _section(head.text, head.line)
        sections.append(section)
        if index:
            sections[index - 1].end_line = head.line
    if sections:
        sections[-1].end_line = len(lines)
    for section in sections:
        section.body = text[starts[section.line + 1] : starts[section.end_line]]
        read_meta(section)
    problems = list(scan.problems) + _whole_file_problems(is_blank(text), title, sections, file)
    offsets = [starts[s.line] for s in sections]
    return TeamMemory(text, title, sections, len(lines), problems, offsets, not scan.problems)


def _facts(memory: TeamMemory) -> tuple[object, ...]:
    return (
        memory.title,
        [(s.header, s.role, s.kind, s.replaced, s.line, s.end_line, s.body, s.meta) for s in memory.sections],
        memory.line_count,
        [str(p) for p in memory.problems],
        memory.offsets,
        memory.scan_clean,
    )


def test_every_real_markdown_file_reads_as_line_by_line() -> None:
    files = sorted([*SHARED.rglob("*.md"), *(ROOT / "resources").rglob("*.md")])
    memories = [p for p in files if p.name == "TEAM-MEMORY.md"]
    assert len(files) > 100 and len(memories) >= 3  # the demo's, cow's and opus46's
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert _facts(parse_memory(text, path.name)) == _facts(_reference(text, path.name)), path


def test_random_team_memories_read_as_line_by_line() -> None:
    rng = random.Random(18)
    sections = 0
    for _ in range(10_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 25)))
        expected = _reference(text, "TEAM-MEMORY.md")
        assert _facts(parse_memory(text, "TEAM-MEMORY.md")) == _facts(expected), text
        sections += len(expected.sections)
    assert sections > 20_000
