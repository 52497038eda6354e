"""ADR-001's curation rules as text transformations: archive, prune, replace a teammate,
and the Meta line that follows a GC version bump. Each returns the new text for a preview;
``models.memory.edits`` writes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from models.memory.edits import MemoryEditError, section_span
from models.session.memory_entries import MemoryEntry
from models.session.memory_parse import parse_memory
from models.text.surgical import EditError
from models.text.textfile import newline_of, split_lines


def archive_entries(text: str, header: str, entry_lines: set[int]) -> str:
    """The section with the given entries (their first lines, 0-based in the file) prefixed [ARCHIVED]."""
    memory = parse_memory(text)
    span = section_span(memory, header)
    if span is None:
        raise MemoryEditError(f"no section ## {header}")
    lines = split_lines(text)
    out = []
    for i in range(span[0], span[1]):
        line = lines[i]
        if i in entry_lines and "[ARCHIVED]" not in line.upper():
            line = re.sub(r"^([-*+][ \t]+)", r"\1[ARCHIVED] ", line, count=1)
        out.append(line)
    return "".join(out)


def archive_where(section: str, chosen: Callable[[MemoryEntry], bool]) -> str:
    """A section's text (alone, as a one-section document) with chosen entries archived.

    Meant as a ``SectionEdit.after`` callable: it sees the section as it is when the edit lands.
    """
    parsed = parse_memory(section).sections
    if not parsed:
        return section
    picked = {parsed[0].span_of(e)[0] for e in parsed[0].entries if chosen(e)}
    return archive_entries(section, parsed[0].header, picked)


def prune_section(section: str) -> str:
    """A section's text without its [ARCHIVED] entries (as a ``SectionEdit.after`` callable)."""
    parsed = parse_memory(section).sections
    return prune_archived(section, parsed[0].header) if parsed else section


def prune_archived(text: str, header: str) -> str:
    """The section without its [ARCHIVED] entries (ADR-001: above 500 lines)."""
    memory = parse_memory(text)
    section = next((s for s in memory.sections if s.header == header), None)
    if section is None:
        raise MemoryEditError(f"no section ## {header}")
    lines = split_lines(text)
    drop = {i for e in section.entries if e.archived for i in range(*section.span_of(e))}
    return "".join(lines[i] for i in range(section.line, section.end_line) if i not in drop)


def replaced_section(section_text_: str, header: str) -> str:
    """The header marked [REPLACED] (never deleted, ADR-001 §5 rule 3)."""
    first, _, rest = section_text_.partition("\n")
    return first.replace(f"## {header}", f"## [REPLACED] {header}", 1) + "\n" + rest


_META_VERSION = re.compile(
    r"^(?P<head>[-*+][ \t]+(?:\*\*)?GC Version(?:\*\*)?:(?:\*\*)?[ \t]*)(?P<value>.*?)(?P<end>\r?\n?)$"
)


def set_meta_gc_version(text: str, version: int) -> str:
    """ADR-001 curation rule 2: the ``## Meta`` GC Version line follows a GC version bump."""
    memory = parse_memory(text)
    meta = next((s for s in memory.sections if s.kind == "meta"), None)
    lines = split_lines(text)
    nl = newline_of(text)
    if meta is None:
        raise EditError("TEAM-MEMORY has no ## Meta section")
    for i in range(meta.line + 1, meta.end_line):
        m = _META_VERSION.match(lines[i])
        if m:
            lines[i] = f"{m.group('head')}GC-v{version}{m.group('end') or ''}"
            return "".join(lines)
    last = meta.line + max((e.stop for e in meta.entries), default=1)
    lines.insert(last, f"- GC Version: GC-v{version}{nl}")
    return "".join(lines)


def with_meta(text: str, session_id: str, version: int, created: str) -> str:
    """TEAM-MEMORY with ADR-001 §4's ``## Meta`` section added after its title (or first)."""
    nl = newline_of(text)
    meta = nl.join(["## Meta", f"- Created: {created}", f"- Session: {session_id}", f"- GC Version: GC-v{version}"])
    lines = split_lines(text)
    memory = parse_memory(text)
    at = 0
    if memory.title is not None:
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
        while at < len(lines) and not lines[at].strip():
            at += 1
    return "".join(lines[:at]) + meta + nl + nl + "".join(lines[at:])
