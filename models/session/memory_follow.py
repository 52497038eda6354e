"""Following TEAM-MEMORY from the bytes that changed, without decoding the rest.

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

``follow_file`` does the same while it reads the file (``models.text.spliced.reread``): the
bytes that agree with the last version's are compared as they come and not kept twice.
``follow_bytes``, for bytes already read, gives the same answers.
"""

from __future__ import annotations

from pathlib import Path

from models.session.team_memory import TeamMemory, followable, section_at, with_section
from models.text.common import common_prefix_bytes, same_bytes_after
from models.text.spliced import Raw, Region, reread, spliced
from models.text.textfile import Undecoded, bom_length, open_regular

_SNIFFED = 8192  # ``decode`` calls a file with a NUL byte this early binary


def _sections(previous: TeamMemory, old: Raw) -> tuple[list[int], Region]:
    """Where the sections start in ``old`` (bytes), and where a change that begins at ``same``
    must end in ``old`` to be read as one section's: before the next heading, and not in the
    title or a heading line."""
    lead = bom_length(old)
    starts = [lead + at for at in previous.utf8_offsets()] if followable(previous) else []
    pieces = spliced(old)

    def region(same: int, size: int) -> int | None:
        k = section_at(starts, same)
        if k < 0:
            return None  # before the first section: the title, or a byte order mark put in or taken out
        heading_end = pieces.find(b"\n", starts[k]) + 1
        if heading_end == 0 or same < heading_end:
            return None  # in a heading line
        return starts[k + 1] if k + 1 < len(starts) else len(old)

    return starts, region


def _with_change(
    previous: TeamMemory, old: Raw, new: Raw, starts: list[int], same: int, new_stop: int, file: str
) -> TeamMemory | None:
    """``previous`` with the section holding byte ``same`` read again from ``new``, where it
    ends at ``new_stop``."""
    pieces = spliced(new)
    if b"\x00" in pieces.span(0, _SNIFFED):
        return None
    k = section_at(starts, same)
    try:
        section_text = pieces.span(starts[k], new_stop).decode("utf-8")
    except UnicodeDecodeError:
        return None  # a full read says where
    offsets = previous.offsets
    char_stop = offsets[k + 1] if k + 1 < len(offsets) else previous.text_length
    length = previous.text_length - (char_stop - offsets[k]) + len(section_text)
    return with_section(previous, k, section_text, Undecoded(new, length), file, len(new) - len(old))


def follow_bytes(previous: TeamMemory, old: bytes, new: bytes, file: str = "TEAM-MEMORY.md") -> TeamMemory | None:
    """``new`` (the file's bytes now) read as a follow-up of ``previous``, which was read from
    ``old``; None when only a full read can say."""
    if not followable(previous):
        return None
    starts, region = _sections(previous, old)
    same = common_prefix_bytes(old, new)
    old_stop = region(same, len(new))
    if old_stop is None:
        return None
    new_stop = old_stop + len(new) - len(old)
    if new_stop < same or not same_bytes_after(old, old_stop, new, new_stop):
        return None  # the change runs into the next section
    return _with_change(previous, old, new, starts, same, new_stop, file)


def follow_file(
    previous: TeamMemory, old: Raw, path: Path, file: str = "TEAM-MEMORY.md"
) -> tuple[TeamMemory, Raw, int] | None:
    """The file at ``path`` read as a follow-up of ``previous``, which was read from ``old``:
    the version, its bytes and their mtime; ``previous`` and ``old`` themselves when the file
    still holds them. None when only a full read can say. Raises what ``open_regular`` raises."""
    starts, region = _sections(previous, old)
    with open_regular(path) as (fd, st, _):
        read = reread(fd, st.st_size, st.st_mtime_ns, old, region)
    if read is None:
        return None
    if read.raw is old:
        return previous, old, read.mtime_ns
    followed = _with_change(previous, old, read.raw, starts, read.same, read.new_stop, file)
    return None if followed is None else (followed, read.raw, read.mtime_ns)
