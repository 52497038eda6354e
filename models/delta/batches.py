"""Applying runs of delta items with one parse where one item at a time would re-parse the GC
after each: sections added one after another, items added one after another in a section,
section removals that cannot change each other's references, and item-level ops (which change
no section boundaries). Each run gives the bytes applying its items one by one gives.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from models.delta.apply import (
    _find_item,
    _insert_point,
    _keyed,
    _native,
    _section,
    apply_item,
    changed_text,
    set_version,
)
from models.delta.items import (
    AT_START,
    FIRST_ITEM,
    PSEUDO_REFS,
    ApplyError,
    Delta,
    DeltaItem,
    item_text,
    split_item,
    structure,
    structure_after,
)
from models.session.gc import Section
from models.session.gc_items import Item
from models.session.refs import Segment, norm, split_ref
from models.text.textfile import newline_of


def apply_to_section(own_text: str, items: list[DeltaItem]) -> str:
    """Apply item-level ops to one section's own text, as a one-section document. Items added
    one after another go in together: a thousand new rows parse the section once."""
    sections = structure(own_text).sections
    if not sections:
        # A level-1 section read on its own is the document's title: under a title of its own
        # it is a section again (a GC may hold several "# " sections after its title).
        nl = newline_of(own_text)
        title = f"# (section){nl}"
        if not own_text.startswith("# ") or not structure(title + own_text).sections:
            raise ApplyError(items[0], "the section's heading does not read as one on its own")
        return apply_to_section(title + own_text, items)[len(title) :]
    ref = sections[0].ref[1:]
    i = 0
    while i < len(items):
        added, changed = _item_chain(items, i), _change_run(items, i)
        run = max(added, changed)
        local = [replace(it, ref=ref) for it in items[i : i + run]]
        try:
            if added > 1:
                own_text = _add_item_chain(own_text, local)
            elif changed > 1:
                own_text = _change_items(own_text, local)
            else:
                own_text = apply_item(own_text, local[0])
        except ApplyError as exc:
            at = local.index(exc.item) if exc.item in local else 0
            raise ApplyError(items[i + at], exc.reason) from None  # named as the delta names it
        i += run
    return own_text


def _item_chain(items: list[DeltaItem], i: int) -> int:
    """How many items from ``i`` add items each right after the one added before it."""
    first = items[i]
    if first.op != "ADDED" or first.key is None or first.position == FIRST_ITEM:
        return 1
    j = i + 1
    while j < len(items) and items[j].op == "ADDED" and items[j].position == f"after:{items[j - 1].key}":
        j += 1
    return j - i


def _change_run(items: list[DeltaItem], i: int) -> int:
    """How many items from ``i`` change values of distinct keys: none of them moves, adds or
    removes a line another one reads (a key changed twice is applied one change at a time)."""
    seen: set[str] = set()
    j = i
    while j < len(items) and items[j].op == "CHANGED" and items[j].key is not None and norm(items[j].key) not in seen:
        seen.add(norm(items[j].key))
        j += 1
    return j - i


def _change_items(text: str, run: list[DeltaItem]) -> str:
    """The changes of a run on one parse of the section, each item found by its key once: a
    thousand changed rows cost one parse, not a thousand. The bytes are those applying them one
    by one gives; where a run does not fit that way (an item not there), it is applied one by
    one, so the error is the one that names the item."""
    gc = structure(text)
    nl = newline_of(text)
    section = _section(gc, run[0].ref, run[0])
    by_key: dict[str, Item] = {}
    for found in section.items:
        by_key.setdefault(norm(found.key), found)
    edits = []
    for item in run:
        existing = by_key.get(norm(item.key or ""))
        if existing is None:
            return _one_by_one(text, run)
        edits.append((existing.start, existing.end, changed_text(gc, existing, item, nl)))
    edits.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(edits)):
        return _one_by_one(text, run)  # spans that overlap: not one item each
    out: list[str] = []
    at = 0
    for start, end, replacement in edits:
        out += (text[at:start], replacement)
        at = end
    out.append(text[at:])
    return "".join(out)


def _one_by_one(text: str, run: list[DeltaItem]) -> str:
    for item in run:
        text = apply_item(text, item)
    return text


def _add_item_chain(text: str, chain: list[DeltaItem]) -> str:
    """The chained items as one insertion after the first one's anchor, each formatted like the
    line before it, exactly as adding them one by one would."""
    gc = structure(text)
    nl = newline_of(text)
    section = gc.sections[0]
    if not section.items:
        return _apply_one_by_one(text, chain)
    first = chain[0]
    in_order = sorted(section.items, key=lambda it: it.start)
    anchor = in_order[-1]
    if first.position is not None:
        found = _find_item(section, first.position[len("after:") :]) if first.position.startswith("after:") else None
        if found is None:
            return _apply_one_by_one(text, chain)  # let the one-by-one path name the problem
        anchor = found
    keys = {norm(it.key) for it in section.items}
    template, template_key, kind = item_text(gc, anchor), anchor.key, anchor.kind
    lines = []
    for item in chain:
        assert item.key is not None
        if norm(item.key) in keys:
            raise ApplyError(item, f"the section already has {item.key}")
        keys.add(norm(item.key))
        prefix, _, suffix = split_item(template, kind)
        key_at = prefix.find(template_key)
        if key_at >= 0:
            prefix = prefix[:key_at] + item.key + prefix[key_at + len(template_key) :]
        line = prefix + (item.new or "") + suffix
        lines.append(nl + _native(line, nl))
        template, template_key = line, item.key
    at = anchor.start + len(text[anchor.start : anchor.end].rstrip("\r\n"))
    return text[:at] + "".join(lines) + text[at:]


def _apply_one_by_one(text: str, items: list[DeltaItem]) -> str:
    for item in items:
        text = apply_item(text, item)
    return text


def _apply_item_run(text: str, items: list[DeltaItem]) -> str:
    """Item-level ops change no section boundaries: one parse serves them all, and each
    section's ops run on that section alone, spliced back from the end of the file first."""
    gc = structure(text)
    groups: dict[int, tuple[Section, list[DeltaItem]]] = {}
    for item in items:
        section = _section(gc, item.ref, item)
        groups.setdefault(section.start, (section, []))[1].append(item)
    changes = []
    for start in sorted(groups, reverse=True):  # back to front, as before: the same item fails first
        section, ops = groups[start]
        changes.append((start, section.own_end, apply_to_section(text[start : section.own_end], ops)))
    result = _spliced(text, changes)
    # The next item needs the result's structure: it differs from this one in a few sections,
    # so it is read from this one (``models.session.gc_regions``) rather than in full.
    structure_after(result, gc)
    return result


def _added_chain(items: list[DeltaItem], i: int) -> int:
    """How many items from ``i`` on add sections one after the other (each placed after the one
    added before it, by a plain reference): they go in as one insertion, so that adding a
    thousand sections parses the GC once, not a thousand times."""
    first = items[i]
    if first.key is not None or first.op != "ADDED" or first.content is None:
        return 1
    j = i + 1
    while j < len(items):
        prev, item = items[j - 1], items[j]
        if not (
            _plain_siblings(prev.ref, item.ref)
            and item.key is None
            and item.op == "ADDED"
            and item.content is not None
            and item.position == f"after:{prev.ref}"
        ):
            break
        j += 1
    return j - i


def _plain_siblings(a: str, b: str) -> bool:
    """Two references to sections under one parent: two plain top-level titles, or quoted ones
    with the same path above them (``"Scope"#2`` among others of its title, as the app writes a
    GC that repeats a title; the chain then proves each names the section it adds)."""
    return _parent(a) is not None and _parent(a) == _parent(b)


def _parent(ref: str) -> tuple[Segment, ...] | None:
    """The path above the section ``ref`` names; None when that is not known without the GC (a
    plain reference with a dot, which may be a title's own)."""
    if '"' not in ref:
        return () if "." not in ref else None
    found = split_ref(ref)
    return None if found is None else found[:-1]


def _apply_added_chain(text: str, chain: list[DeltaItem]) -> str | None:
    """The chained sections as one insertion at the first one's place; each title is checked
    against the siblings it joins, as adding them one by one would. None when a plain title
    meets a sibling of the same lenient name beside quoted references, or when a reference does
    not name the very section its item adds in the result (a ``#N`` counted otherwise): one by
    one, each reference then decides as the GC is at its turn.

    A delta of a GC that repeats its sections a thousand times adds a thousand sections of the
    same titles, each placed after the one before (``"Scope"#2 (after §"Open Questions")``):
    one by one, each would parse the whole GC again."""
    gc = structure(text)
    nl = newline_of(text)
    at = _insert_point(gc, chain[0], text)
    anchor = chain[0].position or AT_START
    if anchor.startswith("after:"):
        sibling = _section(gc, anchor[len("after:") :], chain[0])
        siblings = sibling.parent.children if sibling.parent else gc.sections
    elif anchor.startswith("first-in:"):
        siblings = _section(gc, anchor[len("first-in:") :], chain[0]).children
    else:
        siblings = gc.sections
    titles = {norm(s.title) for s in siblings}
    quoted = any('"' in i.ref for i in chain)
    pieces: list[str] = []
    starts: list[int] = []  # where each added section's text begins and ends in the result
    ends: list[int] = []
    joined_end = ""  # the last character of the pieces so far: a join of them all per item was quadratic
    offset = at
    for item in chain:
        title = (item.content or "").split("\n", 1)[0].lstrip("# ").strip()
        segments = split_ref(item.ref)
        exact = segments is not None and segments[-1].exact  # one by one, never refused as a duplicate
        if not exact and norm(title) in titles and item is not chain[0]:
            if quoted:
                return None
            raise ApplyError(item, f"a section called {title!r} is already there")
        titles.add(norm(title))
        content = _native(item.content or "", nl)
        prior = joined_end if pieces else text[at - 1 : at]
        lead = nl if (pieces or at > 0) and prior != "\n" else ""
        starts.append(offset + len(lead))
        content = lead + content
        offset += len(content)
        pieces.append(content)
        joined_end = content[-1:] or joined_end
        ends.append(offset)
    result = text[:at] + "".join(pieces) + text[at:]
    return result if _each_names_its_own(result, chain, starts, ends) else None


def _each_names_its_own(result: str, chain: list[DeltaItem], starts: list[int], ends: list[int]) -> bool:
    """Whether each item's reference names, in ``result``, exactly the text it added (from
    its heading to where the next one's begins): then so it did at its own turn one by one,
    and the next went where it goes here (the sections added after it come after it, and change
    no count of the titles before it)."""
    gc = structure(result)
    for item, start, end in zip(chain, starts, ends, strict=True):
        found = gc.resolve(item.ref)
        if found is None or found.item is not None or (found.section.start, found.section.end) != (start, end):
            return False
    return True


def _removed_run(items: list[DeltaItem], i: int) -> int:
    """How many section removals start at ``i``."""
    j = i
    while j < len(items) and items[j].key is None and items[j].op == "REMOVED" and items[j].ref not in PSEUDO_REFS:
        j += 1
    return j - i


def _remove_sections(text: str, run: list[DeltaItem]) -> str | None:
    """Several sections removed with one parse, when removing one cannot change what another's
    reference means: distinct, none inside another, and each either the only one of its title
    among its siblings or a top-level one no earlier removal of its title comes before (a
    delta back from a GC that repeats its sections removes ``"Scope"#1000`` before
    ``"Scope"#999``: removing a later one renumbers none before it). None when that does not
    hold: then they go one by one."""
    gc = structure(text)
    targets: list[Section] = []
    first_removed: dict[str, int] = {}  # a repeated top-level title → the earliest removal of it so far
    for item in run:
        found = gc.resolve(item.ref)
        if found is None or found.item is not None:
            return None
        section = found.section
        key = norm(section.title)
        if gc.title_index(section.parent).count(key) > 1:
            if section.parent is not None or _parent(item.ref) != ():
                return None
            if first_removed.get(key, len(text) + 1) < section.start:
                return None  # an earlier removal renumbered this title's later sections
            first_removed[key] = section.start  # none so far came before it (just checked)
        targets.append(section)
    spans = sorted({(s.start, s.end) for s in targets}, reverse=True)
    if len(spans) != len(targets) or any(a[0] < b[1] for a, b in itertools.pairwise(spans)):
        return None  # the same section twice, or one inside another
    return _spliced(text, [(start, end, "") for start, end in spans])


def _spliced(text: str, changes: list[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end) span, none overlapping another, replaced by its new text:
    one join, where a concatenation per change would copy the whole GC each time."""
    pieces, cut = [], len(text)
    for start, end, new in sorted(changes, reverse=True):  # back to front
        pieces += [text[end:cut], new]
        cut = start
    pieces.append(text[:cut])
    return "".join(reversed(pieces))


# A line that could begin or hide a heading: an ATX heading, a fence, a comment, a setext underline.
_STRUCTURAL = re.compile(r"^ {0,3}(?:#|```|~~~|<!--|=+[ \t]*\r?$|-+[ \t]*\r?$)", re.M)


def _in_place(item: DeltaItem) -> bool:
    """Whether ``item`` changes one section's own text and no section's bounds or name: an
    item-level op, or a section's text REPLACED by lines that hold no heading and end with a
    line end. A run of them is applied on one parse (``_apply_item_run``), so that a delta
    rewriting every section of a large GC (``savings``' "major restructure") does not parse it
    once per section."""
    if _keyed(item):
        return True
    content = item.content
    return (
        item.op == "REPLACED"
        and item.key is None
        and item.ref not in PSEUDO_REFS
        and content is not None
        and content.endswith("\n")
        and _STRUCTURAL.search(content) is None
    )


def apply_items(text: str, delta: Delta) -> str:
    items = list(delta.items)
    i = 0
    while i < len(items):
        if not _in_place(items[i]):
            removed = _removed_run(items, i)
            if removed > 1:
                batched = _remove_sections(text, items[i : i + removed])
                if batched is not None:
                    text = batched
                    i += removed
                    continue
            run = _added_chain(items, i)
            chained = _apply_added_chain(text, items[i : i + run]) if run > 1 else None
            text = chained if chained is not None else _apply_one_by_one(text, items[i : i + run])
            i += run
            continue
        j = i
        while j < len(items) and _in_place(items[j]):
            j += 1
        text = _apply_item_run(text, items[i:j])
        i = j
    if delta.new_version is not None:
        text = set_version(text, delta.new_version)
    return text
