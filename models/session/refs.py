"""§ references that can name every heading and item key a Markdown file can hold.

A reference is a path of segments joined by ``.``: ``Architecture Decisions.D-5``. A segment
is written plain when that is unambiguous (no character that the message format or the path
uses, and no sibling with the same title up to case and spacing); otherwise it is quoted,
``"Cross-Reference Integrity Requirement [CRITICAL]"``, with ``\\`` escaping ``"`` and
``\\``, and ``#N`` after the quote when it is the N-th sibling with exactly that title.

Plain segments compare leniently (``In Scope`` = ``in_scope`` = ``**In scope**``), as people
and models write them; quoted segments compare exactly. A reference without any quote is read
the lenient way the app always read them, where a heading may contain dots.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

# What a plain segment may not hold: the characters that quoting, paths and the message format use.
_SPECIAL = frozenset('."[]§`*\\|:→\t')
# The end of a line that the message format reads as a position: "(after §X)", "(first)".
POSITION_LIKE = re.compile(r"\((?:after .*|first(?: in .*)?|at the start)\)\s*$")


_SPACING = re.compile(r"[\s_]+")


@functools.lru_cache(maxsize=65_536)
def norm(text: str) -> str:
    """Comparison form of a heading or key: ``In Scope``, ``in_scope`` and ``**In scope**``.

    Memoised: every parse compares every heading and key, and a reload sees them again. Most
    headings hold nothing to take out or join (no emphasis, underscore, run of spaces, or
    space other than ``" "``, which ``isprintable`` rules out), and are only cased: half
    the cost of the 2,000 headings of a first open."""
    if text.isprintable() and "_" not in text and "*" not in text and "`" not in text and "  " not in text:
        return text.strip().lower()
    return _SPACING.sub(" ", text.replace("*", "").replace("`", "")).strip().lower()


def plain_safe(text: str, normed: str | None = None) -> bool:
    """Whether ``text`` reads back as itself when written without quotes (``normed``: its
    ``norm``, when the caller has it)."""
    return (
        bool(normed if normed is not None else norm(text))
        and text == text.strip()
        and not _SPECIAL.intersection(text)
        and "->" not in text
        and "  " not in text
        and not POSITION_LIKE.search(text)
    )


def quote(text: str, occurrence: int = 1) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{body}"' + (f"#{occurrence}" if occurrence > 1 else "")


def segments(siblings: list[str], keys: list[str] | None = None) -> list[str]:
    """Each title of one level as a segment among its siblings, in one pass: a level may hold
    hundreds of headings, and every reload assigns them all. ``keys``: their ``norm``s, when
    the caller has them."""
    if not siblings:
        return []
    keys = [norm(t) for t in siblings] if keys is None else keys
    if len(set(keys)) == len(keys):  # the usual level: no two alike, each title its own
        return [title if plain_safe(title, key) else quote(title) for title, key in zip(siblings, keys, strict=True)]
    counts = Counter(keys)
    seen: Counter[str] = Counter()
    out = []
    for title, key in zip(siblings, keys, strict=True):
        seen[title] += 1
        out.append(title if counts[key] == 1 and plain_safe(title, key) else quote(title, seen[title]))
    return out


@dataclass(frozen=True)
class Segment:
    """One step of a reference: a title (or item key) and how to compare it."""

    text: str
    exact: bool = False
    occurrence: int = 1

    def matches(self, title: str) -> bool:
        return title == self.text if self.exact else norm(title) == norm(self.text)


def read_quoted(text: str, at: int) -> tuple[Segment, int] | None:
    """A quoted segment starting at ``text[at]`` (a ``"``), and where it ends; None if unclosed."""
    out: list[str] = []
    i = at + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if ch == '"':
            i += 1
            occurrence = 1
            m = re.match(r"#(\d{1,6})", text[i:])
            if m:
                occurrence = max(1, int(m.group(1)))
                i += m.end()
            return Segment("".join(out), True, occurrence), i
        out.append(ch)
        i += 1
    return None


@functools.lru_cache(maxsize=65_536)
def split_ref(ref: str) -> tuple[Segment, ...] | None:
    """The segments of a reference that uses quotes; None for a reference without any (read
    it the lenient way) or one that is not well formed. Memoised: applying a delta resolves
    each item's reference several times, character by character."""
    found = _split_ref(ref)
    return None if found is None else tuple(found)


def _split_ref(ref: str) -> list[Segment] | None:
    ref = ref.strip().removeprefix("§")
    if '"' not in ref:
        return None
    segments: list[Segment] = []
    i = 0
    while i <= len(ref):
        if i < len(ref) and ref[i] == '"':
            read = read_quoted(ref, i)
            if read is None:
                return None
            seg, i = read
        else:
            end = ref.find(".", i)
            end = len(ref) if end < 0 else end
            if '"' in ref[i:end] or end == i:
                return None
            seg, i = Segment(ref[i:end].strip()), end
        segments.append(seg)
        if i == len(ref):
            return segments
        if ref[i] != ".":
            return None
        i += 1
    return None


def top_segment(ref: str) -> str:
    """The top-level section part of a reference, as written."""
    segments = split_ref(ref)
    if segments is None:
        return ref.split(".", 1)[0]
    first = segments[0]
    return quote(first.text, first.occurrence) if first.exact else first.text
