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
"""

from __future__ import annotations

from models.session.team_memory import TeamMemory, followable, section_at, with_section
from models.text.common import common_prefix_bytes, same_bytes_after
from models.text.textfile import Undecoded, bom_length

_SNIFFED = 8192  # ``decode`` calls a file with a NUL byte this early binary


def follow_bytes(previous: TeamMemory, old: bytes, new: bytes, file: str = "TEAM-MEMORY.md") -> TeamMemory | None:
    """``new`` (the file's bytes now) read as a follow-up of ``previous``, which was read from
    ``old``; None when only a full read can say."""
    if not followable(previous) or b"\x00" in new[:_SNIFFED]:
        return None
    lead = bom_length(old)
    starts = [lead + at for at in previous.utf8_offsets()]
    same = common_prefix_bytes(old, new)
    k = section_at(starts, same)
    if k < 0:
        return None  # before the first section: the title, or a byte order mark put in or taken out
    heading_end = old.find(b"\n", starts[k]) + 1
    if heading_end == 0 or same < heading_end:
        return None  # in a heading line
    old_stop = starts[k + 1] if k + 1 < len(starts) else len(old)
    new_stop = old_stop + len(new) - len(old)
    if new_stop < same or not same_bytes_after(old, old_stop, new, new_stop):
        return None  # the change runs into the next section
    try:
        section_text = new[starts[k] : new_stop].decode("utf-8")
    except UnicodeDecodeError:
        return None  # a full read says where
    offsets = previous.offsets
    char_stop = offsets[k + 1] if k + 1 < len(offsets) else previous.text_length
    length = previous.text_length - (char_stop - offsets[k]) + len(section_text)
    return with_section(previous, k, section_text, Undecoded(new, length), file, len(new) - len(old))
