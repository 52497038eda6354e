"""Applying a GC delta (ADR-002 §4) to a GC, byte for byte.

Text is carried with ``\\n`` line ends and written back in the file's own line-end style. A new
item goes after the item its position names (``after:<key>``), before the section's first
item (``first``), or after its last item, in the format of the item it goes next to; new
sections say where they go (``after §X``, ``first in §P``, ``at the start``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from models.delta.align import gaps, same_runs
from models.delta.items import (
    AT_START,
    FIRST_ITEM,
    FRONT_MATTER,
    PREAMBLE,
    PSEUDO_REFS,
    ApplyError,
    Delta,
    DeltaItem,
    item_text,
    split_item,
    structure,
)
from models.session.gc import GlobalContext, Section
from models.session.gc_items import Item
from models.session.refs import norm, split_ref
from models.session.versions import parse_version
from models.text.common import same_after
from models.text.frontmatter import split_front_matter
from models.text.textfile import newline_of


def _native(text: str, newline: str) -> str:
    return text.replace("\n", newline) if newline != "\n" else text


def _section(gc: GlobalContext, ref: str, item: DeltaItem) -> Section:
    found = gc.resolve(ref)
    if found is None or found.item is not None:
        raise ApplyError(item, f"no section §{ref} in this GC")
    return found.section


def _find_item(section: Section, key: str) -> Item | None:
    return section.find_item(key)


_VERSION_LINE = re.compile(r"^(version:[ \t]*)(\S[^\r\n]*?)([ \t]*)(?=\r?$)", re.M)


def _version_edit(text: str, version: int) -> tuple[int, str, str] | None:
    """Where ``set_version`` changes ``text`` (the front matter's first place in it), the front
    matter as it is and as it becomes; None where it leaves ``text`` as it is."""
    front, _ = split_front_matter(text, "global-context.md")
    if not front.present or "version" not in front.data:
        return None
    raw = _VERSION_LINE.sub(lambda m: f"{m.group(1)}GC-v{version}{m.group(3)}", front.raw, count=1)
    return text.find(front.raw), front.raw, raw


def set_version(text: str, version: int) -> str:
    edit = _version_edit(text, version)
    if edit is None:
        return text
    _, was, raw = edit
    if raw == was:  # already this version: ``str.replace`` would still copy the whole GC
        return text
    return text.replace(was, raw, 1)  # its first place, as found; one copy of the GC, not two


def same_apart_from_version(a: str, b: str) -> bool:
    """``set_version(a, 0) == set_version(b, 0)``, without making either: the composer asks
    after every edit whether the working GC is still the published one, and each copy of a
    10 MB GC is a fresh 20 MB block (9 ms, two of them on every edit)."""
    edit_a, edit_b = _version_edit(a, 0), _version_edit(b, 0)
    if edit_a is None and edit_b is None:
        return a == b
    if edit_a is not None and edit_b is not None and edit_a[0] == edit_b[0] and edit_a[2] == edit_b[2]:
        at, stop_a, stop_b = edit_a[0], edit_a[0] + len(edit_a[1]), edit_b[0] + len(edit_b[1])
        return a[:at] == b[:at] and same_after(a, stop_a, b, stop_b)  # the same new front matter, in place
    return set_version(a, 0) == set_version(b, 0)  # it moved, or only one has a version: as defined


def is_version_bump(a: str, version: int | None, b: str) -> bool:
    """``set_version(a, version) == b`` (``a == b`` without a version), without making the
    bumped copy: a delta that only bumps the version is proven this way, and on a 10 MB GC
    the copy was a fresh 20 MB block on every re-plan of the composer."""
    edit = _version_edit(a, version) if version is not None else None
    if edit is None:
        return a == b
    at, was, raw = edit
    stop_a, stop_b = at + len(was), at + len(raw)
    return a.startswith(b[:at]) and b.startswith(raw, at) and same_after(a, stop_a, b, stop_b)


def apply_item(text: str, item: DeltaItem) -> str:
    """Apply one item to a GC's text; raise ``ApplyError`` naming the item when it does not fit."""
    gc = structure(text)
    nl = newline_of(text)
    if item.ref == FRONT_MATTER:
        if item.op != "REPLACED" or item.content is None or not gc.front.present:
            raise ApplyError(item, "only REPLACED of the front matter of a GC that has one")
        start = text.find(gc.front.raw)
        return text[:start] + _native(item.content, nl) + text[start + len(gc.front.raw) :]
    if item.ref == PREAMBLE:
        if item.op != "REPLACED" or item.content is None:
            raise ApplyError(item, "only REPLACED of the preamble")
        end = gc.sections[0].start if gc.sections else len(text)
        return text[: gc.front.body_start] + _native(item.content, nl) + text[end:]
    if item.key is None:
        return _apply_section_op(text, gc, item, nl)
    section = _section(gc, item.ref, item)
    existing = _find_item(section, item.key)
    if item.op == "ADDED":
        if existing is not None:
            raise ApplyError(item, f"the section already has {item.key}")
        return _add_item(text, gc, section, item, nl)
    if existing is None:
        raise ApplyError(item, f"the section has no item {item.key}")
    if item.op == "REMOVED":
        return text[: existing.start] + text[existing.end :]
    if item.op == "CHANGED":
        return text[: existing.start] + changed_text(gc, existing, item, nl) + text[existing.end :]
    raise ApplyError(item, "REPLACED takes a section, not an item")


def changed_text(gc: GlobalContext, existing: Item, item: DeltaItem, nl: str) -> str:
    """What ``existing``'s span of ``gc.text`` becomes once CHANGED by ``item``."""
    raw = item_text(gc, existing)
    prefix, value, suffix = split_item(raw, existing.kind)
    if item.old is not None and value != item.old:
        if value + suffix != item.old:
            raise ApplyError(item, f"expected old value {item.old!r}, the GC has {value!r}")
        suffix = ""  # the change includes the item's end (a table row's closing pipe, spacing)
    ending = gc.text[existing.start : existing.end][len(_native(raw, nl)) :]
    return _native(prefix + (item.new or "") + suffix, nl) + ending


def _add_item(text: str, gc: GlobalContext, section: Section, item: DeltaItem, nl: str) -> str:
    """Insert a new item line where its position says, in the format of its neighbour."""
    if not section.items:
        if item.position is not None:
            raise ApplyError(item, "the section has no items to place it among")
        at = section.start + len(text[section.start : section.own_end].rstrip("\r\n"))
        return text[:at] + nl + _native(f"- {item.key}: {item.new or ''}", nl) + text[at:]
    in_order = sorted(section.items, key=lambda it: it.start)
    if item.position == FIRST_ITEM:
        first = in_order[0]
        return text[: first.start] + _native(_like(gc, first, item), nl) + nl + text[first.start :]
    if item.position is not None and item.position.startswith("after:"):
        anchor_key = item.position[len("after:") :]
        anchor = _find_item(section, anchor_key)
        if anchor is None:
            raise ApplyError(item, f"the section has no item {anchor_key} to put it after")
    elif item.position is None:
        anchor = in_order[-1]
    else:
        raise ApplyError(item, f"an item cannot go {item.position!r}")
    at = anchor.start + len(text[anchor.start : anchor.end].rstrip("\r\n"))
    return text[:at] + nl + _native(_like(gc, anchor, item), nl) + text[at:]


def _like(gc: GlobalContext, template: Item, item: DeltaItem) -> str:
    """The new item's text in ``template``'s format: its prefix with the key swapped, its suffix."""
    prefix, _, suffix = split_item(item_text(gc, template), template.kind)
    key_at = prefix.find(template.key)
    if key_at >= 0:
        prefix = prefix[:key_at] + (item.key or "") + prefix[key_at + len(template.key) :]
    return prefix + (item.new or "") + suffix


def _apply_section_op(text: str, gc: GlobalContext, item: DeltaItem, nl: str) -> str:
    if item.op == "REMOVED":
        section = _section(gc, item.ref, item)
        return text[: section.start] + text[section.end :]
    if item.op == "REPLACED":
        section = _section(gc, item.ref, item)
        heading_end = gc.heading_end(section)
        return text[:heading_end] + _native(item.content or "", nl) + text[section.own_end :]
    if item.op == "ADDED":
        if item.content is None:
            raise ApplyError(item, "an ADDED section needs its content")
        at = _insert_point(gc, item, text)
        content = _native(item.content, nl)
        if at > 0 and not text[:at].endswith("\n"):
            content = nl + content
        return text[:at] + content + text[at:]
    raise ApplyError(item, "CHANGED takes an item: §Section: key: old → new")


def _insert_point(gc: GlobalContext, item: DeltaItem, text: str) -> int:
    position = item.position or AT_START
    title = item.content.split("\n", 1)[0].lstrip("# ").strip() if item.content else ""
    if position.startswith("after:"):
        sibling = _section(gc, position[len("after:") :], item)
        _refuse_duplicate(gc, sibling.parent, title, item)
        return sibling.end
    if position.startswith("first-in:"):
        parent = _section(gc, position[len("first-in:") :], item)
        _refuse_duplicate(gc, parent, title, item)
        return parent.own_end
    _refuse_duplicate(gc, None, title, item)
    return gc.sections[0].start if gc.sections else len(text)


def _refuse_duplicate(gc: GlobalContext, parent: Section | None, title: str, item: DeltaItem) -> None:
    """A section is not added twice by a hand-written reference. A GC may hold two sections with
    one title, and the app's own (quoted) reference says which one it means, so it may add one.
    Looked up in the title index: walking the top-level sections of a follow-up copies them."""
    segments = split_ref(item.ref)
    if segments is not None and segments[-1].exact:
        return
    if gc.title_index(parent).get(norm(title)):
        raise ApplyError(item, f"a section called {title!r} is already there")


def _keyed(item: DeltaItem) -> bool:
    return item.key is not None and item.ref not in PSEUDO_REFS


def apply_delta(text: str, delta: Delta) -> str:
    """The GC after ``delta``; raises ``ApplyError`` (naming the item) when anything does not fit,
    or when the result would damage what the delta does not name (``check_result``)."""
    front, _ = split_front_matter(text, "global-context.md")
    version = parse_version(front.data.get("version"))
    if delta.old_version is not None and version is not None and version != delta.old_version:
        raise ApplyError(None, f"the delta is for GC-v{delta.old_version}, this GC is GC-v{version}")
    refuse_contradictions(delta.items)
    from models.delta.batches import apply_items  # it builds on this module's single steps

    result = apply_items(text, delta)
    check_result(text, result, delta)
    return result


def refuse_contradictions(items: tuple[DeltaItem, ...]) -> None:
    """Two items about the same item, or a section replaced twice, cannot both be meant;
    applying them one after the other would silently keep whichever came last.

    A section added or removed may renumber sections of the same title (``"Notes"#2``), so the
    items on either side of it are compared separately.
    """
    seen: dict[tuple[str, str | None], DeltaItem] = {}
    for item in items:
        if item.key is None and item.op in ("ADDED", "REMOVED"):
            seen.clear()
            continue
        key = (item.ref, norm(item.key) if item.key is not None else None)
        if key in seen:
            raise ApplyError(item, f"contradicts {seen[key].label}")
        seen[key] = item


Shape = Counter[tuple[tuple[str, ...], str]]


def _shape(tops: Sequence[Section], skip: set[tuple[str, ...]]) -> Shape:
    """(title path, own text) of every section under ``tops`` whose path is not in ``skip``;
    each path is its parent's plus a title (``Section.path`` climbs to the top for every
    section)."""
    shape: Shape = Counter()
    level: list[tuple[tuple[str, ...], Sequence[Section]]] = [((), tops)]
    while level:
        below: list[tuple[tuple[str, ...], Sequence[Section]]] = []
        for prefix, sections in level:
            for section in sections:
                path = (*prefix, section.title)
                if path not in skip:
                    shape[(path, section.own_text)] += 1
                if section.children:
                    below.append((path, section.children))
        level = below
    return shape


def check_result(old_text: str, new_text: str, delta: Delta) -> None:
    """Refuse a result that damages what the delta does not name: the front matter must still
    parse as it did, and every section no item names must be there, byte for byte, with no
    section appearing that no ADDED brings (a heading glued to a REPLACED body, or one hidden
    in an ADDED item's value).

    Sections are named by their title path: items may address one of several sections with the
    same title (``"Notes"#2``) as the document is while they apply, so the check names them all.
    """
    old, new = structure(old_text), structure(new_text)
    if front_breaks(old, new):
        raise ApplyError(None, "the result's front matter would no longer parse; nothing was applied")
    named: set[tuple[str, ...]] = set()
    for item in delta.items:
        if item.ref in PSEUDO_REFS:
            continue
        for gc in (old, new):
            found = gc.resolve(item.ref)
            if found is None:
                continue
            whole = item.key is None and item.op in ("ADDED", "REMOVED")
            named |= {s.path for s in found.section.walk()} if whole else {found.section.path}
    # Top-level sections with the same text on both sides have the same shape: left out of both.
    windows = list(gaps(same_runs(old, new), len(old.sections), len(new.sections)))
    was = _shape([old.sections[k] for w in windows for k in range(w[0], w[1])], named)
    now = _shape([new.sections[k] for w in windows for k in range(w[2], w[3])], named)
    if was != now:
        missing, extra = was - now, now - was
        path = next(iter(missing or extra))[0]
        verb = "changes or removes" if missing else "adds"
        raise ApplyError(None, f"the result {verb} §{'.'.join(path)}, which no item names; nothing was applied")


def front_breaks(old: GlobalContext, new: GlobalContext) -> bool:
    """Whether going from ``old`` to ``new`` breaks a front matter that parsed."""
    return old.front.present and not _front_broken(old) and (not new.front.present or _front_broken(new))


def _front_broken(gc: GlobalContext) -> bool:
    return any(p.message.startswith("front matter") for p in gc.problems)
