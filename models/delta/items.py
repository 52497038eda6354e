"""GC deltas (ADR-002 §4): the items of a delta and the text of an item.

A delta item addresses a section by its § reference and, for ADDED/CHANGED/REMOVED of an item,
the item's key. Values are the item's text after its key (``- **Key:** value``, the cells after
a table row's first cell) with continuation lines joined by ``\n``. ``models.delta.apply``
writes them into a GC; ``models.delta.diff`` finds them.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Literal

from models.session.gc import GlobalContext
from models.session.gc_items import Item
from models.session.gc_parse import kept_parse, parse_gc
from models.session.refs import top_segment
from models.text.tokens import EstimateTokenizer

Op = Literal["ADDED", "CHANGED", "REMOVED", "REPLACED"]
OPS: tuple[Op, ...] = ("ADDED", "CHANGED", "REMOVED", "REPLACED")
FRONT_MATTER = "(front matter)"
PREAMBLE = "(preamble)"
PSEUDO_REFS = (FRONT_MATTER, PREAMBLE)
AT_START = "start"
FIRST_ITEM = "first"
_STRUCTURE = EstimateTokenizer()  # applying needs structure, not token counts


def structure(text: str) -> GlobalContext:
    """A GC parsed for its structure only; memoised because a diff, its proof and the apply
    that follows parse the same texts again (the result is never modified).

    Read from the last text asked for here when it differs inside one section: applying a
    delta item by item re-parses the GC after each, and each item changes one section. The
    last text asked for, not the last parsed: the one an item applies to is often memoised.

    Looked up by comparing, not by hashing: each step of applying a delta makes a new text,
    and hashing it whole (0.1 ms for a 5,000-line GC) took a tenth of a diff; a comparison
    stops at a length that differs or at the first difference."""
    with _MEMO_LOCK:  # the context pane composes in a worker thread
        parsed = None
        for n in range(len(_MEMO) - 1, -1, -1):
            kept, found = _MEMO[n]
            if kept is text or (len(kept) == len(text) and kept == text):
                parsed = found
                _MEMO.append(_MEMO.pop(n))
                break
    if parsed is None:
        # The session's own parse of this text, if it has one; else read from the last one.
        parsed = kept_parse(text) or parse_gc(text, _STRUCTURE, previous=_LAST[0])
        with _MEMO_LOCK:
            _MEMO.append((text, parsed))
            held = sum(len(kept) for kept, _ in _MEMO)
            while len(_MEMO) > _MEMO_MOST or (len(_MEMO) > _MEMO_LEAST and held > _MEMO_CHARS):
                held -= len(_MEMO.pop(0)[0])
    if parsed.tokenizer == _STRUCTURE.name:  # a structure parse follows on from its own kind
        _LAST[0] = parsed
    return parsed


# The memo keeps the last sixteen texts, or the last four when they hold more than this many
# characters: each re-plan of the composer makes new ones, and sixteen versions of a 10 MB GC
# held 320 MB for nothing.
_MEMO_MOST, _MEMO_LEAST, _MEMO_CHARS = 16, 4, 8_000_000
_MEMO_LOCK = threading.Lock()
_MEMO: list[tuple[str, GlobalContext]] = []  # (text, parse), oldest first


def structure_after(text: str, previous: GlobalContext) -> GlobalContext:
    """``structure(text)`` for a text made from ``previous``'s by changing one section: read
    from it (``models.session.gc_follow``), whatever was parsed in between (a section's own
    text, parsed on its own to apply items to it)."""
    _LAST[0] = previous
    return structure(text)


# The last structure parsed (any thread's: a parse from it is checked against the text, so a
# stale one only means a full parse).
_LAST: list[GlobalContext | None] = [None]


@dataclass(frozen=True)
class DeltaItem:
    """One line of a [CONTEXT-UPDATE] delta.

    ``ref`` is the section path without ``§`` (``Architecture Decisions``, ``A.B``) or a
    pseudo-section. ``key`` names an item; without it the item is about the whole section:
    ADDED (``content`` is the new section, heading included; ``position`` says where),
    REMOVED, or REPLACED (``content`` is the section's new own text, after its heading line).
    """

    op: Op
    ref: str
    key: str | None = None
    old: str | None = None
    new: str | None = None
    content: str | None = None
    # Where an ADDED goes. A section: "after:<ref>", "first-in:<ref>" or "start". An item:
    # "after:<key>", "first", or None for after the section's last item.
    position: str | None = None

    @property
    def label(self) -> str:
        """How the item is named in messages about it: ``CHANGED §Scope: Goal``."""
        return f"{self.op} §{self.ref}" + (f": {self.key}" if self.key is not None else "")

    @property
    def top_section(self) -> str:
        """The top-level section the item touches (for FC-4's share of the GC)."""
        return top_segment(self.ref) if self.ref not in PSEUDO_REFS else self.ref


@dataclass(frozen=True)
class Impact:
    """ADR-002 §4 Impact Assessment."""

    affected: tuple[str, ...] = ()
    actions: str = "NONE"  # NONE | PAUSE | re-read §...


@dataclass(frozen=True)
class Delta:
    """A whole [CONTEXT-UPDATE]: versions, items and impact."""

    old_version: int | None
    new_version: int | None
    items: tuple[DeltaItem, ...] = ()
    impact: Impact = field(default_factory=Impact)

    @property
    def empty(self) -> bool:
        return not self.items


class ApplyError(Exception):
    """A delta item that does not fit the GC it is applied to; nothing was written."""

    def __init__(self, item: DeltaItem | None, reason: str) -> None:
        self.item = item
        self.reason = reason
        super().__init__(f"{item.label}: {reason}" if item is not None else reason)


_BOLD_PREFIX = re.compile(r"^([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?\*\*[^*\n]+?(?::\*\*|\*\*[ \t]*:)[ \t]?)")
_PLAIN_PREFIX = re.compile(r"^([ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+[^:`*\n]{1,80}?:[ \t]?)")
_TABLE_PREFIX = re.compile(r"^([ \t]*\|?[ \t]*(?:\\\||[^|\n])*?[ \t]*\|[ \t]?)")
_TABLE_SUFFIX = re.compile(r"([ \t]*\|[ \t]*)$")


def lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def item_text(gc: GlobalContext, item: Item) -> str:
    """The item's lines without their final line end, with ``\\n`` line ends."""
    return lf(gc.text[item.start : item.end]).removesuffix("\n")


def split_item(text: str, kind: str) -> tuple[str, str, str]:
    """``(prefix, value, suffix)`` of an item's text; the three concatenate to it."""
    if kind == "table":
        first, _, _ = text.partition("\n")
        m = _TABLE_PREFIX.match(first)
        prefix = m.group(1) if m else ""
        s = _TABLE_SUFFIX.search(text[len(prefix) :])
        suffix = s.group(1) if s and "\n" not in text else ""
        return prefix, text[len(prefix) : len(text) - len(suffix)], suffix
    m = _BOLD_PREFIX.match(text) or _PLAIN_PREFIX.match(text)
    prefix = m.group(1) if m else ""
    return prefix, text[len(prefix) :], ""


def item_value(gc: GlobalContext, item: Item) -> str:
    return split_item(item_text(gc, item), item.kind)[1]
