"""Following TEAM-MEMORY from what changed: one section's text read again in place of the
whole file (``reparse_one_section``, ``with_section``), and the bytes that changed compared
without decoding the rest (``follow_bytes``).

An agent's write changes one section; ``parse_memory(..., previous=...)`` then re-reads that
section only, but the whole file has been decoded first and its text compared with the last
one. On a 14 MB file (a 29 MB string when one character is not ASCII) the decoding and the
comparison were most of a follow-up. Here the new bytes are compared with the bytes of the
version shown, in place, and only the changed section's bytes are decoded; the whole new
text is decoded when something first reads it (``Undecoded``), which the view does not.

It answers only where the answer is what ``parse_memory`` of the decoded file gives: the last
version decoded exactly (its bytes are kept only then) and scanned clean, the change lies in
one section's body, and that section's new bytes are UTF-8 that still read as one section.
Anything else is None, and the caller decodes and parses as before.
"""

from __future__ import annotations

import bisect
import weakref

from models.session.team_memory import MemoryFollowUp, MemorySection, TeamMemory, read_meta
from models.text import mdblocks
from models.text.common import common_prefix, common_prefix_bytes, same_after, same_bytes_after
from models.text.textfile import Undecoded, bom_length, split_lines

_SNIFFED = 8192  # ``decode`` calls a file with a NUL byte this early binary


def follow_bytes(
    previous: TeamMemory,
    old: bytes,
    new: bytes,
    file: str = "TEAM-MEMORY.md",
    agreed: tuple[int, int] | None = None,
) -> TeamMemory | None:
    """``new`` (the file's bytes now) read as a follow-up of ``previous``, which was read from
    ``old``; None when only a full read can say. ``agreed``: how many bytes of ``new`` and
    ``old`` agree from the start and from the end, where the read found it out
    (``models.text.compared_read``)."""
    if not followable(previous) or b"\x00" in new[:_SNIFFED]:
        return None
    lead = bom_length(old)
    starts = [lead + at for at in previous.utf8_offsets()]
    same = common_prefix_bytes(old, new) if agreed is None else agreed[0]
    k = section_at(starts, same)
    if k < 0:
        return None  # before the first section: the title, or a byte order mark put in or taken out
    heading_end = old.find(b"\n", starts[k]) + 1
    if heading_end == 0 or same < heading_end:
        return None  # in a heading line
    old_stop = starts[k + 1] if k + 1 < len(starts) else len(old)
    new_stop = old_stop + len(new) - len(old)
    if new_stop < same or not _same_after(old, old_stop, new, new_stop, agreed):
        return None  # the change runs into the next section
    try:
        section_text = new[starts[k] : new_stop].decode("utf-8")
    except UnicodeDecodeError:
        return None  # a full read says where
    offsets = previous.offsets
    char_stop = offsets[k + 1] if k + 1 < len(offsets) else previous.text_length
    length = previous.text_length - (char_stop - offsets[k]) + len(section_text)
    return with_section(previous, k, section_text, Undecoded(new, length), file, len(new) - len(old))


def _same_after(old: bytes, old_stop: int, new: bytes, new_stop: int, agreed: tuple[int, int] | None) -> bool:
    """Whether everything after ``old_stop`` is as it was (after ``new_stop`` in ``new``): from
    how far the read found the two agree from the end, or compared here."""
    return same_bytes_after(old, old_stop, new, new_stop) if agreed is None else len(new) - new_stop <= agreed[1]


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


def reparse_one_section(previous: TeamMemory, text: str, file: str) -> TeamMemory | None:
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
    read_meta(section)
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
