"""Reading a [CONTEXT-UPDATE] back into a delta, in either form (``models.delta.message``
says how it is written).

Parsing is lenient with what people and models write (``->`` for ``→``, ``**bold**``
markers, bullets ``*``/``+``, prose around the message, hand-written ``§[R-1: X]`` brackets)
and reports every line it could not read instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from models.delta.items import AT_START, FIRST_ITEM, OPS, Delta, DeltaItem, Impact
from models.delta.message import ARROWS, CHANGED_FORMS, INDENT, NO_CONTENT_CHANGE, NOTHING_IN_SCOPE, SCOPE_HEADING
from models.session.gc import GlobalContext
from models.session.refs import read_quoted

_HEADER = re.compile(r"\[CONTEXT-UPDATE\]\**\s*(?:GC-v(?P<old>\d+)\s*(?:→|->)\s*)?GC-v(?P<new>\d+)", re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?P<op>ADDED|CHANGED|REMOVED|REPLACED)(?:\*\*)?:?\s+(?P<rest>.*?)\s*$")
_POSITION = re.compile(r"\s*\((?:(?P<kind>after|first in)\s+(?P<ref>§.+?)|(?P<start>at the start))\)\s*$")
_NO_CHANGE_LINES = ("(no change)", NO_CONTENT_CHANGE, "none", "no change", "no content change")
_SCOPE = SCOPE_HEADING.lstrip("#").strip().lower()


@dataclass(frozen=True)
class Unreadable:
    """A line of a message that was not understood, and why."""

    line: int  # 1-based
    text: str
    reason: str


@dataclass
class ParsedUpdate:
    """What a message said, and every line that could not be read."""

    delta: Delta
    form: str  # "full" or "oneline"
    unreadable: list[Unreadable] = field(default_factory=list)
    says_no_change: bool = False  # an explicit "(no change)" / "(no content change)" line


def _unbold(text: str) -> str:
    return text.replace("**", "").strip()


def _take_ref(rest: str, gc: GlobalContext | None) -> tuple[str, str]:
    """Split ``§Ref: more`` into the reference and what follows it."""
    rest = rest.strip()
    if rest.startswith("**"):
        rest = rest[2:]
    rest = rest.removeprefix("§").lstrip()
    canonical = _take_canonical_ref(rest)
    if canonical is not None:
        return canonical
    if rest.startswith("["):
        close = rest.find("]")
        if close > 0:
            return rest[1:close], rest[close + 1 :].lstrip("*").removeprefix(":").strip()
    cuts = [m.start() for m in re.finditer(r"\*{0,2}:\s", rest + " ")]
    if gc is not None:  # a hand-written reference may contain ": "; prefer one the GC knows
        for cut in reversed(cuts):
            if gc.resolve(_unbold(rest[:cut])) is not None:
                return _unbold(rest[:cut]), rest[cut:].lstrip("*").lstrip(":").strip()
    if cuts:
        return _unbold(rest[: cuts[0]]), rest[cuts[0] :].lstrip("*").lstrip(":").strip()
    return _unbold(rest.rstrip(":")), ""


def _take_canonical_ref(rest: str) -> tuple[str, str] | None:
    """A reference as the app writes it, with at least one quoted segment, and what follows."""
    if '"' not in rest:
        return None
    i, quoted = 0, False
    while True:
        if rest.startswith('"', i):
            read = read_quoted(rest, i)
            if read is None:
                return None
            i, quoted = read[1], True
        else:
            j = i
            while j < len(rest) and rest[j] not in '.:"':
                j += 1
            if j == i or rest.startswith('"', j):
                return None
            i = j
        if not rest.startswith(".", i):
            break
        i += 1
    if not quoted:
        return None
    return rest[:i].strip(), rest[i:].lstrip("*").removeprefix(":").strip()


_ITEM_POSITION = re.compile(r"^\s*\((?:after\s+(?P<after>.+?)|(?P<first>first))\)")


def _take_position(rest: str) -> tuple[str | None, str]:
    """An item's ``(after KEY)`` or ``(first)`` at the start of ``rest``, and what follows."""
    m = _ITEM_POSITION.match(rest)
    if m is None:
        return None, rest
    if m.group("first"):
        return FIRST_ITEM, rest[m.end() :]
    start = rest.index("after", m.start()) + len("after")
    anchor = rest[start:].lstrip()
    if anchor.startswith('"'):
        read = read_quoted(anchor, 0)
        if read is None or not anchor[read[1] :].startswith(")"):
            return None, rest
        return "after:" + read[0].text, anchor[read[1] + 1 :]
    return "after:" + m.group("after").strip(), rest[m.end() :]


def _take_key(rest: str) -> tuple[str, str | None, str | None]:
    """Split ``key (position): value`` (the key plain, quoted or in brackets) into the key, the
    position (or None) and the value (None when there is no colon)."""
    key: str | None = None
    if rest.startswith('"'):
        read = read_quoted(rest, 0)
        if read is not None:
            key, rest = read[0].text, rest[read[1] :]
    elif rest.startswith("["):
        close = rest.find("]")
        if close > 0:
            key, rest = rest[1:close], rest[close + 1 :]
    if key is None:
        m = re.match(r"^(?P<key>.+?)(?=\s+\((?:after\s|first\))|\*{0,2}:(?:\s|$)|$)", rest)
        assert m is not None  # the pattern matches any text
        key, rest = _unbold(m.group("key")), rest[m.end() :]
    position, rest = _take_position(rest)
    rest = rest.lstrip("*")
    if not rest.startswith(":"):
        return key, position, None
    return key, position, rest[1:].removeprefix(" ")


def _item_from(op: str, rest: str, body: list[str], gc: GlobalContext | None) -> DeltaItem:
    position: str | None = None
    if op == "ADDED":
        pos = _POSITION.search(rest)
        if pos and not _take_ref(rest[: pos.start()], None)[1]:  # a new section, not an item's value
            if pos.group("start"):
                position = AT_START
            else:
                where = _take_ref(pos.group("ref"), None)[0]
                position = ("after:" if pos.group("kind") == "after" else "first-in:") + where
            ref, _ = _take_ref(rest[: pos.start()], None)
            return DeltaItem("ADDED", ref, content="\n".join(body), position=position)
    ref, more = _take_ref(rest, gc)
    content = "\n".join(body)
    if op == "REPLACED":
        return DeltaItem("REPLACED", ref, content=content if body else None)
    if not more:
        if op == "ADDED" and body:
            return DeltaItem("ADDED", ref, content=content)
        if op == "CHANGED":
            raise ValueError("CHANGED needs a key")
        return DeltaItem(op, ref)  # type: ignore[arg-type]
    key, item_position, value = _take_key(more)
    if item_position is not None and op != "ADDED":
        raise ValueError("only an ADDED item says where it goes")
    if op == "REMOVED":
        return DeltaItem("REMOVED", ref, key, old=value or None)
    if op == "ADDED":
        lines = [value or "", *body]
        return DeltaItem("ADDED", ref, key, new="\n".join(lines), position=item_position)
    if value is None:  # block form: old:/new: in the body
        return _changed_block(ref, key, body)
    halves = ARROWS.split(value, maxsplit=1)
    if len(halves) != 2:
        raise ValueError(CHANGED_FORMS)
    return DeltaItem("CHANGED", ref, key, halves[0].strip(), halves[1].strip())


def _changed_block(ref: str, key: str, body: list[str]) -> DeltaItem:
    if not body:
        raise ValueError(CHANGED_FORMS)
    values: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if line.rstrip() in ("old:", "new:"):
            current = values.setdefault(line.rstrip()[:-1], [])
        elif current is not None:
            current.append(line.removeprefix(INDENT))
        else:
            raise ValueError("expected old: or new:")
    if "new" not in values:
        raise ValueError("CHANGED needs a new: block")
    old = "\n".join(values["old"]) if "old" in values else None
    return DeltaItem("CHANGED", ref, key, old, "\n".join(values["new"]))


def parse_message(text: str, gc: GlobalContext | None = None) -> ParsedUpdate:
    """Read a [CONTEXT-UPDATE] in either form; ``gc`` helps split hand-written references."""
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    header_at = next((i for i, line in enumerate(lines) if _HEADER.search(line)), None)
    if header_at is None:
        return ParsedUpdate(Delta(None, None), "full", [Unreadable(1, lines[0][:200], "no [CONTEXT-UPDATE] header")])
    header = _HEADER.search(lines[header_at])
    assert header is not None
    old = int(header.group("old")) if header.group("old") else None
    new = int(header.group("new"))
    after_header = lines[header_at][header.end() :]
    if re.search(r"\|\s*\**Delta\**:", after_header, re.IGNORECASE):
        return _parse_oneline(after_header, old, new, header_at, gc)
    unreadable = [
        Unreadable(i + 1, line, "prose outside the update, ignored")
        for i, line in enumerate(lines[:header_at])
        if line.strip()
    ]
    items: list[DeltaItem] = []
    affected: tuple[str, ...] = ()
    actions = "NONE"
    section = "delta"
    says_no_change = False
    i = header_at + 1
    while i < len(lines):
        line = lines[i]
        stripped = _unbold(line.strip().lstrip("#").strip())
        if line.lstrip().startswith("#"):
            lowered = stripped.lower()
            section = (
                "delta"
                if lowered.startswith("delta")
                else "impact"
                if lowered.startswith("impact")
                else "scope"
                if lowered == _SCOPE
                else "other"
            )
            i += 1
            continue
        if not line.strip():
            i += 1
            continue
        if section == "scope":
            i += 1  # what the role follows and was not sent: said to it, not part of the delta
            continue
        if section == "impact":
            m = re.match(r"^[-*+]?\s*(affected teammates|required actions)\s*:\s*(.*)$", stripped, re.I)
            if m and m.group(1).lower().startswith("affected"):
                names = [n.strip() for n in m.group(2).split(",") if n.strip()]
                affected = () if names in ([], ["none"]) else tuple(names)
            elif m:
                actions = m.group(2).strip() or "NONE"
            else:
                unreadable.append(Unreadable(i + 1, line, "not an Impact Assessment line"))
            i += 1
            continue
        match = _ITEM.match(line)
        if section != "delta" or not match:
            reason = "not a delta item" if section == "delta" else "outside the Delta section"
            bare = re.sub(r"^[-*+]\s*", "", stripped).lower()
            if section == "delta" and bare in _NO_CHANGE_LINES:
                says_no_change = True
            else:
                unreadable.append(Unreadable(i + 1, line, reason))
            i += 1
            continue
        item_line = i + 1
        body, i = _collect_body(lines, i + 1)
        try:
            items.append(_item_from(match.group("op").upper(), match.group("rest"), body, gc))
        except ValueError as exc:
            unreadable.append(Unreadable(item_line, line, str(exc)))
    delta = Delta(old, new, tuple(items), Impact(affected, actions))
    return ParsedUpdate(delta, "full", unreadable, says_no_change)


def _collect_body(lines: list[str], i: int) -> tuple[list[str], int]:
    """Lines indented by two spaces after an item, even ones that look like items (they are
    content); an empty line belongs to the body only when more body follows it."""
    body: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.startswith(INDENT):
            body.append(line[len(INDENT) :])
        elif not line and i + 1 < len(lines) and lines[i + 1].startswith(INDENT):
            body.append("")
        else:
            break
        i += 1
    return body, i


def _parse_oneline(rest: str, old: int | None, new: int, at: int, gc: GlobalContext | None) -> ParsedUpdate:
    unreadable: list[Unreadable] = []
    delta_part, impact_part = rest, ""
    impact = re.search(r"\|\s*\**Impact\**:(?!.*\|\s*\**Impact\**:)", rest, re.IGNORECASE)
    if impact:
        delta_part, impact_part = rest[: impact.start()], rest[impact.end() :].strip()
    delta_part = re.split(r"\|\s*\**Delta\**:", delta_part, maxsplit=1, flags=re.IGNORECASE)[1].strip()
    items: list[DeltaItem] = []
    says_no_change = delta_part.lower() in _NO_CHANGE_LINES or delta_part.lower().startswith(NOTHING_IN_SCOPE)
    if delta_part and not says_no_change:
        for chunk in re.split(r";\s+(?=(?:\*\*)?(?:" + "|".join(OPS) + r")\b)", delta_part):
            match = _ITEM.match(chunk)
            if not match:
                unreadable.append(Unreadable(at + 1, chunk, "not a delta item"))
                continue
            body_note = " (content in the full message)"
            rest_text = match.group("rest").removesuffix(body_note)
            try:
                items.append(_item_from(match.group("op").upper(), rest_text, [], gc))
            except ValueError as exc:
                unreadable.append(Unreadable(at + 1, chunk, str(exc)))
    actions: str = impact_part or "NONE"
    affected: tuple[str, ...] = ()
    m = re.match(r"^(?P<actions>.*?)\s*\((?P<names>[^()]*)\)\s*$", impact_part)
    if m:
        actions = m.group("actions").strip() or "NONE"
        affected = tuple(n.strip() for n in m.group("names").split(",") if n.strip())
    delta = Delta(old, new, tuple(items), Impact(affected, actions))
    return ParsedUpdate(delta, "oneline", unreadable, says_no_change)
