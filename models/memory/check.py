"""``memory check``: TEAM-MEMORY's structure and size against ADR-001 §4."""

from __future__ import annotations

from collections.abc import Sequence

from models.memory.access import access_of
from models.memory.journal import Vanished
from models.session.memory_entries import TAGS
from models.session.team_memory import LINE_LIMIT, TeamMemory


def structure_problems(memory: TeamMemory) -> list[str]:
    """The sections ADR-001 §4 asks every TEAM-MEMORY for that this one lacks, and a last line
    with no end. Read from the headings and the file's last bytes alone, so that the window says
    them on every change as ``memory check`` does (the entries' tags would mean reading every
    entry of a 200,000-line file)."""
    kinds = {s.kind for s in memory.sections}
    problems = []
    if "meta" not in kinds:
        problems.append("no ## Meta section (ADR-001 §4)")
    if "lead" not in kinds:
        problems.append("no ## Lead section (ADR-001 §4: always present)")
    unended = unended_warning(memory.unended_line())
    if unended is not None:
        problems.append(unended)
    return problems


def unended_warning(line: str | None, written: bool = False) -> str | None:
    """What a last line with no end means. With no earlier read of the file to compare with,
    nothing tells a file cut off from one that ends so on purpose: the Lead is shown the line
    and looks. A write of ours keeps the line as it is (``written``: the write is said first)."""
    if line is None:
        return None
    shown = line.strip()
    shown = repr(shown if len(shown) <= 60 else "…" + shown[-60:])
    if written:
        return f"TEAM-MEMORY.md was written; its last line had no end ({shown}): it may have been cut off; check it"
    return f"the last line has no end ({shown}): TEAM-MEMORY.md may be cut off there; check its end"


def memory_check_data(
    memory: TeamMemory, read_problems: Sequence[object], vanished: Sequence[Vanished] = ()
) -> dict[str, object]:
    """What ``memory check`` reports: structure, size against 500 lines, tags, problems, and
    the entries the app's journal knows that the file no longer holds (``vanished``)."""
    problems = [str(p) for p in [*read_problems, *memory.problems]]
    problems += [f"entry lost: {v.describe()}" for v in vanished]
    problems += structure_problems(memory)
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
