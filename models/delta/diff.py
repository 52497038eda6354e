"""Compute the delta between two GC versions, and prove it by applying it.

The ADR's weak point is a Lead who miscounts a hand-written delta. Here a delta is computed
from the two versions; every section whose keyed items can express the change gets
ADDED/CHANGED/REMOVED items (checked by applying them to that section), every other changed
section a REPLACED, and sections that appear, vanish, move or are renamed an ADDED or REMOVED
with their full text. Finally the whole delta is applied to the old version: ``exact`` says
whether that gave the new version byte for byte. A delta that is not exact is never sent.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from models.delta.align import Same, gaps, same_runs
from models.delta.apply import apply_delta, front_breaks, is_version_bump
from models.delta.batches import apply_to_section
from models.delta.items import (
    AT_START,
    FIRST_ITEM,
    FRONT_MATTER,
    PREAMBLE,
    ApplyError,
    Delta,
    DeltaItem,
    item_text,
    item_value,
    lf,
    split_item,
    structure,
)
from models.session.gc import GlobalContext, Section
from models.session.gc_items import Item
from models.session.gc_parse import front_version
from models.session.refs import norm

_VERSION_LINE = re.compile(r"^version:.*$", re.M)


@dataclass(frozen=True)
class DiffResult:
    """A computed delta and whether applying it reproduces the new version exactly."""

    delta: Delta
    exact: bool
    problem: str | None = None


def _ref(section: Section) -> str:
    return section.ref[1:]


def _own_text(gc: GlobalContext, section: Section) -> str:
    return lf(gc.text[section.start : section.own_end])


def _body(gc: GlobalContext, section: Section) -> str:
    """The section's own text after its heading line (what REPLACED carries)."""
    return lf(gc.text[gc.heading_end(section) : section.own_end])


def _heading(gc: GlobalContext, section: Section) -> str:
    return lf(gc.text[section.start : gc.heading_end(section)])


def _preamble(gc: GlobalContext) -> str:
    end = gc.sections[0].start if gc.sections else len(gc.text)
    return lf(gc.text[gc.front.body_start : end])


def _item_ops(old: GlobalContext, o: Section, new: GlobalContext, n: Section) -> list[DeltaItem] | None:
    """Item-level ops turning ``o``'s items into ``n``'s, or None when keys are ambiguous."""
    if o.duplicate_keys or n.duplicate_keys:
        return None
    ref = _ref(n)
    old_items = {norm(it.key): it for it in o.items}
    new_items = {norm(it.key): it for it in n.items}
    ops: list[DeltaItem] = []
    for key, it in old_items.items():
        if key not in new_items:
            ops.append(DeltaItem("REMOVED", ref, it.key))
    for key, it in new_items.items():
        before = old_items.get(key)
        if before is not None and item_text(old, before) != item_text(new, it):
            ops.append(DeltaItem("CHANGED", ref, it.key, *_changed_values(old, before, new, it)))
    in_order = sorted(n.items, key=lambda it: it.start)
    for index, it in enumerate(in_order):
        if norm(it.key) in old_items:
            continue
        if index == len(in_order) - 1:
            position = None  # after the last item, the default
        elif index == 0:
            position = FIRST_ITEM
        else:
            position = f"after:{in_order[index - 1].key}"
        ops.append(DeltaItem("ADDED", ref, it.key, new=item_value(new, it), position=position))
    return ops


LONG_VALUE_LINES = 4


def _changed_values(old: GlobalContext, o: Item, new: GlobalContext, n: Item) -> tuple[str | None, str]:
    """Old and new value of a CHANGED item; when the change reaches past the value into the
    item's end (a table row's closing ``|``, spaces before it), the end goes with the value."""
    _, o_value, o_suffix = split_item(item_text(old, o), o.kind)
    _, n_value, n_suffix = split_item(item_text(new, n), n.kind)
    if o_suffix != n_suffix:
        o_value, n_value = o_value + o_suffix, n_value + n_suffix
    # A long block (a bold key and its list) is sent with its new text only: repeating the old
    # one doubles the cost for a check that applying does not need.
    return (o_value if o_value.count("\n") < LONG_VALUE_LINES else None), n_value


class _Differ:
    def __init__(self, old: GlobalContext, new: GlobalContext) -> None:
        self.old = old
        self.new = new
        self.items: list[DeltaItem] = []

    def children(
        self, olds: Sequence[Section], news: Sequence[Section], parent: Section | None, same: Sequence[Same] = ()
    ) -> None:
        """Items for ``olds`` becoming ``news``; the runs ``same`` hold the same text in both
        and are neither matched nor walked (``models.delta.align``)."""

        def key(gc: GlobalContext, s: Section) -> tuple[int, str]:
            return (s.level, _heading(gc, s))

        windows = list(gaps(same, len(olds), len(news)))
        matched: dict[int, Section] = {}
        removed: list[DeltaItem] = []
        for o_lo, o_hi, n_lo, n_hi in windows:
            old_keys = [key(self.old, olds[k]) for k in range(o_lo, o_hi)]
            new_keys = [key(self.new, news[k]) for k in range(n_lo, n_hi)]
            for tag, i1, i2, j1, _ in SequenceMatcher(None, old_keys, new_keys, autojunk=False).get_opcodes():
                if tag == "equal":
                    for k in range(i2 - i1):
                        matched[n_lo + j1 + k] = olds[o_lo + i1 + k]
                else:
                    removed += [DeltaItem("REMOVED", _ref(olds[o_lo + k])) for k in range(i1, i2)]
        # Last first: removing a section must not renumber the ones still to remove ("Notes"#2).
        self.items += reversed(removed)
        for _, _, n_lo, n_hi in windows:
            for index in range(n_lo, n_hi):
                section = news[index]
                before = matched.get(index)
                if before is not None:
                    self.section(before, section)
                    continue
                if index:
                    position = f"after:{_ref(news[index - 1])}"
                elif parent is not None:
                    position = f"first-in:{_ref(parent)}"
                else:
                    position = AT_START
                content = lf(self.new.text[section.start : section.end])
                self.items.append(DeltaItem("ADDED", _ref(section), content=content, position=position))

    def section(self, o: Section, n: Section) -> None:
        # A section whose text, subsections included, is the old one byte for byte holds no
        # change: its subsections are cut from the same bytes, and its items from its own text.
        # Most of a GC is such sections, and walking them cost most of a diff.
        if o.end - o.start == n.end - n.start and self.old.text[o.start : o.end] == self.new.text[n.start : n.end]:
            return
        # Subsections first: the section's new text may open a fence that hides their headings.
        self.children(o.children, n.children, n)
        old_own, new_own = _own_text(self.old, o), _own_text(self.new, n)
        if old_own != new_own:
            ops = _item_ops(self.old, o, self.new, n)
            if ops and _reproduces(old_own, ops, new_own):
                self.items += ops
            else:
                self.items.append(DeltaItem("REPLACED", _ref(n), content=_body(self.new, n)))


def _reproduces(old_own: str, ops: list[DeltaItem], new_own: str) -> bool:
    try:
        return apply_to_section(old_own, ops) == new_own
    except ApplyError:
        return False


def diff_gc(old_text: str, new_text: str) -> DiffResult:
    """The delta from ``old_text`` to ``new_text``, proven by applying it.

    A new text that is the old one with its version bumped (the composer's state until the Lead
    edits, and a first publish's base) is the empty delta, known without parsing either: what
    the parse would give, in a comparison's time (on a 200,000-line GC, 5 ms against 30)."""
    if old_text is new_text:  # the GC itself: nothing to compare
        version = front_version(old_text)
        return DiffResult(Delta(version, version, ()), True)
    return _diff(old_text, new_text)


def _diff(old_text: str, new_text: str) -> DiffResult:
    version = front_version(new_text)
    if is_version_bump(old_text, version, new_text):
        return DiffResult(Delta(front_version(old_text), version, ()), True)
    old, new = structure(old_text), structure(new_text)
    differ = _Differ(old, new)
    if _VERSION_LINE.sub("", lf(old.front.raw)) != _VERSION_LINE.sub("", lf(new.front.raw)):
        differ.items.append(DeltaItem("REPLACED", FRONT_MATTER, content=lf(new.front.raw)))
    differ.children(old.sections, new.sections, None, same_runs(old, new))
    # Last: a new preamble may open a fence that would hide the old sections' headings.
    if _preamble(old) != _preamble(new):
        differ.items.append(DeltaItem("REPLACED", PREAMBLE, content=_preamble(new)))
    delta = Delta(old.version, new.version, tuple(differ.items))
    if not delta.items and is_version_bump(old_text, delta.new_version, new_text) and not front_breaks(old, new):
        return DiffResult(delta, True)  # what applying it proves, without the bumped copy
    try:
        result = apply_delta(old_text, delta)
    except ApplyError as exc:
        return DiffResult(delta, False, str(exc))
    if result != new_text:
        return DiffResult(delta, False, _first_difference(result, new_text))
    return DiffResult(delta, True)


def _first_difference(got: str, want: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
    line = want.count("\n", 0, at) + 1
    return f"applying the delta does not reproduce the new GC (first difference on line {line})"


def touched_top_sections(delta: Delta) -> set[str]:
    """Top-level sections a delta touches (pseudo-sections excluded)."""
    return {item.top_section for item in delta.items if item.ref not in (FRONT_MATTER, PREAMBLE)}


def op_counts(delta: Delta) -> dict[str, int]:
    return dict(Counter(item.op for item in delta.items))
