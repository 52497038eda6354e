"""The Lead's curation of TEAM-MEMORY as section edits: archive entries (chosen, or those
naming a phase), replace a teammate, prune archived entries. (Putting lost entries back is
``models.memory.loss.restore_edits``.)

The window's memory pane and ``lead-console memory`` build the same edits here and hand them
to ``edit_memory``, which makes them on the file as it is when it is written.
"""

from __future__ import annotations

import functools
import re

from models.memory.curation import archive_where, prune_section, replaced_section
from models.memory.edits import MemoryEditError, SectionEdit, header_of
from models.session.memory_parse import parse_memory


def archive_edits(chosen: dict[str, set[str]]) -> list[SectionEdit]:
    """Prefix the chosen entries (their texts, by section header) with [ARCHIVED]."""

    def archive_these(section: str, texts: set[str]) -> str:
        return archive_where(section, lambda entry: entry.text in texts)

    return [SectionEdit(h, None, functools.partial(archive_these, texts=texts)) for h, texts in chosen.items()]


def entries_matching(text: str, pieces: list[str]) -> dict[str, set[str]]:
    """The entries (their texts, by section header) that each piece of text picks out: one
    entry not yet archived each, or an error that says which piece picks none or several (a
    command line's way of selecting entries, as the memory pane's list selects them)."""
    memory = parse_memory(text)
    chosen: dict[str, set[str]] = {}
    for piece in pieces:
        found = [(s.header, e.text) for s in memory.sections for e in s.entries if piece in e.text and not e.archived]
        if len(found) != 1:
            said = "no entry not archived yet holds" if not found else f"{len(found)} entries hold"
            raise MemoryEditError(f"{said} {piece!r}: give a piece of one entry's text")
        header, entry = found[0]
        chosen.setdefault(header, set()).add(entry)
    return chosen


def archive_phase_edits(text: str, phase: int) -> list[SectionEdit]:
    """Archive every entry that names the phase, and whole sections whose header names it."""
    pattern = re.compile(rf"\bphase[ -]?{phase}\b", re.I)

    def archive_in(section: str, whole: bool) -> str:
        return archive_where(section, lambda entry: whole or bool(pattern.search(entry.text)))

    edits = []
    for s in parse_memory(text).sections:
        whole = bool(pattern.search(s.header))
        if s.kind != "meta" and (whole or any(pattern.search(e.text) for e in s.entries)):
            edits.append(SectionEdit(s.header, None, functools.partial(archive_in, whole=whole)))
    return edits


def replace_edits(text: str, role: str) -> list[SectionEdit]:
    """Mark the teammate's section [REPLACED] and start a new one for its successor."""
    section = header_of(parse_memory(text), role)
    if section is None:
        raise MemoryEditError(f"no section for {role}")
    header = section.header
    return [SectionEdit(header, None, lambda cur: replaced_section(cur, header).rstrip("\n") + f"\n\n## {role}\n")]


def prune_edits(text: str) -> list[SectionEdit]:
    """Remove [ARCHIVED] entries (ADR-001: when the file is over 500 lines)."""
    headers = [s.header for s in parse_memory(text).sections if any(e.archived for e in s.entries)]
    return [SectionEdit(h, None, prune_section) for h in headers]
