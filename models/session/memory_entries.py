"""A TEAM-MEMORY section's entries (ADR-001): tagged bullets and their continuation lines,
read from the section's body alone, so that a follow-up re-reads only the body that changed."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from models.text import mdblocks
from models.text.textfile import split_lines

TAGS = ("Finding", "Pattern", "Decision", "Warning", "Dependency", "Conflict", "Question")
_CANONICAL_TAGS = {t.lower(): t for t in TAGS}
BULLET = re.compile(r"^[-*+][ \t]+(?P<content>.*?)\r?\n?$")
_MARKER = re.compile(r"^\s*(?:\*\*)?\[(?P<name>[A-Za-z][\w -]{0,30})\](?:\*\*)?\s*")
# The common entry line: a bullet, at most one plain [Tag] and text that opens no other marker.
_SIMPLE_ENTRY = re.compile(
    r"[-*+][ \t]+(?:\[(?P<name>[A-Za-z][\w -]{0,30})\][ \t]*)?(?P<rest>[^\s\[*][^\r\n]*)\r?\n?\Z"
)
# Every bracket a tag could be read from (``_MARKER``'s and ``_SIMPLE_ENTRY``'s name).
BRACKET = re.compile(r"\[([A-Za-z][\w -]{0,30})\]")
KNOWN_NAMES = frozenset([*_CANONICAL_TAGS, "archived"])


def _any_case(name: str) -> str:
    # ASCII letters only: ``re.IGNORECASE`` also takes the Kelvin sign for k and a long s for s,
    # which ``str.lower`` does not turn into them.
    return "".join(f"[{c.upper()}{c}]" for c in name)


# A bracket ``BRACKET`` reads a name from whose name, stripped and lower-cased, is not one of
# ``KNOWN_NAMES``: one search finds whether a body holds a tag outside ADR-001's list.
UNKNOWN_BRACKET = re.compile(
    r"\[(?!(?:" + "|".join(_any_case(n) for n in sorted(KNOWN_NAMES)) + r") *\])[A-Za-z][\w -]{0,30}\]"
)
# Lines that start an entry (see ``read_entries``): one not blank and not led by a space or
# tab, and one led by a space or tab that follows a blank line (``count_entries``).
_LED_BY_OTHER = re.compile(r"\n(?=\S|[^ \t\n][^\S\n]*\S)")
_LED_AFTER_BLANK = re.compile(r"\n[^\S\n]*\n(?=[ \t][^\S\n]*\S)")
_META_ITEM = re.compile(r"^[-*+][ \t]+(?:\*\*)?(?P<key>[^:*]+?)(?::\*\*|\*\*:|:)[ \t]*(?P<value>.*?)\r?\n?$")


@dataclass(eq=False, slots=True)
class MemoryEntry:
    """One bullet (or stray paragraph) and its indented continuation lines."""

    text: str  # the entry without its bullet and markers, continuation lines included
    tag: str | None
    archived: bool
    # Lines counted from the section's heading line (the heading is 0), end exclusive: an
    # entry does not move when an edit above its section shifts the file, so a section that
    # did not change keeps the very entries of the last parse (``MemorySection.span_of``).
    first: int
    stop: int

    @property
    def known_tag(self) -> bool:
        return self.tag in TAGS

    @property
    def summary(self) -> str:
        """The first line as a reader wants it in a list: without bold markers."""
        return self.text.split("\n", 1)[0].replace("**", "")


def strip_markers(content: str) -> tuple[str, str | None, bool]:
    """Peel ``[ARCHIVED]`` and one ``[Tag]`` off the front of an entry, in either order."""
    tag: str | None = None
    archived = False
    while content.lstrip()[:3].startswith(("[", "**[")):
        m = _MARKER.match(content)
        if not m:
            break
        name = m.group("name").strip()
        if name.upper() == "ARCHIVED":
            archived = True
        elif tag is None:
            tag = _CANONICAL_TAGS.get(name.lower(), name)
        else:
            break
        content = content[m.end() :]
    return content.strip(), tag, archived


def first_line(line: str) -> tuple[str, str | None, bool]:
    """An entry's first line without its bullet and markers: its text, tag and archived flag.

    Most lines take one regular expression; any other form goes through ``strip_markers``,
    which the fast path must agree with (tests/test_memory_lines.py holds them to it).
    """
    simple = _SIMPLE_ENTRY.match(line)
    if simple is not None:
        name = simple.group("name")
        text = simple.group("rest").strip()
        if name is None:
            return text, None, False
        name = name.strip()
        if name.upper() == "ARCHIVED":
            return text, None, True
        return text, _CANONICAL_TAGS.get(name.lower(), name), False
    bullet = BULLET.match(line)
    return strip_markers(bullet.group("content") if bullet else line.strip())


def count_entries(body: str) -> int | None:
    """How many entries ``read_entries`` reads from ``body``, found by two searches at C
    speed, or None where a fence or comment could hide lines (then the entries are read).

    A line starts an entry unless it is blank or it continues the one above: led by a space
    or tab, under a line that is not blank. Two blank lines put in front make the first line
    count as any other (tests/test_memory_lines.py holds this to the entries read)."""
    if mdblocks.may_hide_lines(body):
        return None
    framed = "\n\n" + body
    return len(_LED_BY_OTHER.findall(framed)) + len(_LED_AFTER_BLANK.findall(framed))


def entries_of(body: str) -> tuple[MemoryEntry, ...]:
    """The entries of a section other than Meta, read from its body: what its ``entries`` are."""
    return read_entries(body, False)[0]


@functools.lru_cache(maxsize=4096)
def read_entries(body: str, is_meta: bool) -> tuple[tuple[MemoryEntry, ...], tuple[tuple[str, str], ...]]:
    """Entries of one section body (lines counted from the heading), memoised by text.

    Writers edit one section at a time (ADR-001's header-anchored edits), so a full reload
    after an agent's edit parses that section only, and the entries of every other section are
    the very objects of the last parse. Entries are never changed after parsing, so sharing
    them is safe, and the viewer then finds them unchanged. Fences never cross a section
    header, so the body can be scanned on its own.
    """
    lines = split_lines(body)
    # Where no fence or comment can open (most sections), no scan.
    in_code = mdblocks.scan(lines, "").in_code if mdblocks.may_hide_lines(body) else [False] * len(lines)
    entries: list[MemoryEntry] = []
    meta: dict[str, str] = {}
    i = 0
    end = len(lines)
    while i < end:
        line = lines[i]
        if not line.strip() or (in_code[i] and not line.startswith((" ", "\t"))):
            i += 1
            continue
        if is_meta:
            m = _META_ITEM.match(line)
            if m:
                meta[m.group("key").strip()] = m.group("value").strip()
        j = i + 1
        while j < end and lines[j].strip() and lines[j][0] in " \t":
            j += 1
        text, tag, archived = first_line(line)
        if j > i + 1:  # continuation lines (most entries have none)
            text = "\n".join([text, *(ln.rstrip("\r\n") for ln in lines[i + 1 : j])])
        entries.append(MemoryEntry(text, tag, archived, i + 1, j + 1))
        i = j
    return tuple(entries), tuple(meta.items())
