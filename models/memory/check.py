"""``memory check``: TEAM-MEMORY's structure and size against ADR-001 §4."""

from __future__ import annotations

from collections.abc import Sequence

from models.memory.access import access_of
from models.memory.journal import Vanished
from models.session.memory_entries import TAGS
from models.session.team_memory import LINE_LIMIT, TeamMemory


def missing_sections(memory: TeamMemory) -> list[str]:
    """The sections ADR-001 §4 asks every TEAM-MEMORY for that this one lacks. Read from the
    headings alone, so that the window says it on every change as ``memory check`` does (the
    entries' tags would mean reading every entry of a 200,000-line file)."""
    kinds = {s.kind for s in memory.sections}
    missing = []
    if "meta" not in kinds:
        missing.append("no ## Meta section (ADR-001 §4)")
    if "lead" not in kinds:
        missing.append("no ## Lead section (ADR-001 §4: always present)")
    return missing


def memory_check_data(
    memory: TeamMemory, read_problems: Sequence[object], vanished: Sequence[Vanished] = ()
) -> dict[str, object]:
    """What ``memory check`` reports: structure, size against 500 lines, tags, problems, and
    the entries the app's journal knows that the file no longer holds (``vanished``)."""
    problems = [str(p) for p in [*read_problems, *memory.problems]]
    problems += [f"entry lost: {v.describe()}" for v in vanished]
    problems += missing_sections(memory)
    if memory.over_limit:
        archived = sum(1 for s in memory.sections for e in s.entries if e.archived)
        problems.append(f"{memory.line_count} lines, over {LINE_LIMIT}: remove [ARCHIVED] entries ({archived} now)")
    for s in memory.sections:
        unknown = sorted({e.tag for e in s.entries if e.tag and e.tag not in TAGS})
        if unknown:
            problems.append(f"## {s.header}: tags outside the seven: {', '.join(unknown)}")
    return {
        "title": memory.title,
        "lines": memory.line_count,
        "limit": LINE_LIMIT,
        "sections": [
            {
                "header": s.header,
                "role": s.role,
                "access": access_of(s.role),
                "entries": len(s.entries),
                "archived": sum(1 for e in s.entries if e.archived),
                "replaced": s.replaced,
                "tags": s.tag_counts(),
            }
            for s in memory.sections
        ],
        "lost": [
            {"header": v.seen.header, "entry": v.seen.entry, "by": v.seen.by, "at": v.seen.at, "after": v.seen.after}
            for v in vanished
        ],
        "problems": problems,
    }
