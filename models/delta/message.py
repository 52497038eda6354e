"""[CONTEXT-UPDATE] messages: a delta written as text, in ADR-002 §4's forms.

The multi-line form is ADR-002 §4's. What the ADR leaves open is pinned down so that
``parse(render(delta)) == delta`` holds for every delta:

- A body (REPLACED content, an ADDED section, the continuation lines of a value) follows its
  item line, each line indented by two spaces; an empty body line is written as two spaces.
- CHANGED is ``key: old → new`` when both values are one line without an arrow; otherwise
  the item line ends at the key and the body holds ``old:`` and ``new:`` blocks, their lines
  indented by two more spaces.
- References and keys are written plain where that reads back unambiguously, and quoted
  otherwise (``§"Risks [CRITICAL]"``, ``"R-1: Mathpix API"``; see ``models.session.refs``).
  Hand-written brackets (``§[R-1: Mathpix API]``) are still read.
- A new section says where it goes: ``(after §X)``, ``(first in §P)`` or ``(at the start)``;
  a new item says so after its key when it does not go last: ``D-9 (after D-4)``, ``D-0 (first)``.
- A version bump that changes nothing else is ``- (no content change)``.

``models.delta.message_parse`` reads both forms back.
"""

from __future__ import annotations

import re

from models.delta.items import AT_START, FIRST_ITEM, Delta, DeltaItem
from models.delta.scope import Scope
from models.session.refs import POSITION_LIKE, quote, split_ref

ARROW = "→"
CHANGED_FORMS = "CHANGED needs 'key: old → new', or old: and new: lines below it"
ARROWS = re.compile(r"\s+(?:→|->)\s+")
INDENT = "  "
NO_CONTENT_CHANGE = "(no content change)"
NOTHING_IN_SCOPE = "nothing in your sections"
SCOPE_HEADING = "## Not Sent"


def _ref_text(ref: str) -> str:
    if split_ref(ref) is not None:  # a reference the GC wrote, quoted where it must be
        return f"§{ref}"
    plain = ": " not in ref and not ref.endswith(":") and "]" not in ref and "**" not in ref
    return f"§{ref}" if plain and not POSITION_LIKE.search(ref) else f"§[{ref}]"


def _key_text(key: str) -> str:
    plain = (
        ": " not in key
        and not key.endswith(":")
        and not key.startswith(("[", '"'))
        and "*" not in key
        and key == key.strip()
        and not ARROWS.search(f" {key} ")
        and not POSITION_LIKE.search(key)
    )
    return key if plain else quote(key)


def _item_position_text(position: str | None) -> str:
    if position == FIRST_ITEM:
        return " (first)"
    if position is not None and position.startswith("after:"):
        anchor = position[len("after:") :]
        text = _key_text(anchor)
        return f" (after {quote(anchor) if text == anchor and ')' in anchor else text})"
    return ""


def _body(text: str, extra: str = "") -> list[str]:
    return [INDENT + extra + line for line in text.split("\n")]


def _position_text(position: str | None) -> str:
    if position is None:
        return ""
    if position.startswith("after:"):
        return f" (after {_ref_text(position[len('after:') :])})"
    if position.startswith("first-in:"):
        return f" (first in {_ref_text(position[len('first-in:') :])})"
    return " (at the start)" if position == AT_START else ""


def _inline_value(value: str) -> bool:
    return "\n" not in value and not ARROWS.search(f" {value} ") and value == value.strip()


def render_item(item: DeltaItem) -> list[str]:
    """Lines of one delta item in the multi-line form."""
    head = f"- {item.op} {_ref_text(item.ref)}"
    if item.key is None:
        if item.op == "REPLACED":
            return [f"{head}: (full section content below)", *_body(item.content or "")]
        if item.op == "ADDED":
            return [head + _position_text(item.position), *_body(item.content or "")]
        return [head]
    head += f": {_key_text(item.key)}"
    if item.op == "REMOVED":
        return [head]
    if item.op == "ADDED":
        first, *rest = (item.new or "").split("\n")
        head += _item_position_text(item.position)
        return [f"{head}:" + (f" {first}" if first else ""), *[INDENT + line for line in rest]]
    old, new = item.old or "", item.new or ""
    if _inline_value(old) and _inline_value(new) and old and new:
        return [f"{head}: {old} {ARROW} {new}"]
    old_block = [f"{INDENT}old:", *_body(old, INDENT)] if item.old is not None else []
    return [head, *old_block, f"{INDENT}new:", *_body(new, INDENT)]


def render_message(delta: Delta, scope: Scope | None = None) -> str:
    """The ADR-002 §4 multi-line [CONTEXT-UPDATE]; for a role that follows some sections
    (``scope``), what it was not sent, and a one-line version bump when nothing in its
    sections changed."""
    old = f"GC-v{delta.old_version}" if delta.old_version is not None else "GC-v?"
    if scope is not None and not delta.items:
        return render_bump(delta)
    lines = [f"[CONTEXT-UPDATE] {old} {ARROW} GC-v{delta.new_version}", "", "## Delta"]
    for item in delta.items:
        lines += render_item(item)
    if not delta.items:
        lines.append(f"- {_no_change_text(delta)}")
    if scope is not None:
        lines += ["", *scope_lines(scope)]
    lines += [
        "",
        "## Impact Assessment",
        f"- Affected teammates: {', '.join(delta.impact.affected) or 'none'}",
        f"- Required actions: {delta.impact.actions}",
    ]
    return "\n".join(lines) + "\n"


def scope_lines(scope: Scope) -> list[str]:
    """The block that tells a role what of the GC it was not sent: the items left out, by
    section, or (a full injection) the sections, which it may ask for by name."""
    lines = [SCOPE_HEADING]
    if scope.items_left_out:
        n = scope.items_left_out
        where = ", ".join(_ref_text(t) for t in scope.left_out)
        lines.append(f"- {n} item{'' if n == 1 else 's'} in {where} (sections you do not follow)")
    if scope.others:
        names = ", ".join(_ref_text(t) for t in scope.others)
        lines.append(f"- {names} (sections you do not follow; ask the Lead for any by name)")
    return lines


def render_bump(delta: Delta) -> str:
    """The one line a role gets when nothing in its sections changed: the version to ACK."""
    old = f"GC-v{delta.old_version}" if delta.old_version is not None else "GC-v?"
    return f"[CONTEXT-UPDATE] {old} {ARROW} GC-v{delta.new_version} | Delta: {NOTHING_IN_SCOPE} | Impact: NONE\n"


def _no_change_text(delta: Delta) -> str:
    bumped = delta.old_version is not None and delta.old_version != delta.new_version
    return NO_CONTENT_CHANGE if bumped else "(no change)"


def oneline_exact(delta: Delta) -> bool:
    """Whether the one-line form carries the whole delta (no bodies, no multi-line values)."""
    return all(len(render_item(item)) == 1 for item in delta.items)


def render_oneline(delta: Delta) -> str:
    """``[CONTEXT-UPDATE] GC-v5 → GC-v6 | Delta: ...; ... | Impact: NONE (a, b)``.

    Items that need a body (REPLACED content, new sections, multi-line values) are named
    without it; ``oneline_exact`` says whether anything was left out.
    """
    parts = []
    for item in delta.items:
        line = render_item(item)[0][2:]
        if len(render_item(item)) > 1 and item.key is None:
            line = line.split(": (full section content", 1)[0] + " (content in the full message)"
        parts.append(line)
    old = f"GC-v{delta.old_version}" if delta.old_version is not None else "GC-v?"
    affected = f" ({', '.join(delta.impact.affected)})" if delta.impact.affected else ""
    items = "; ".join(parts) or _no_change_text(delta).strip("()")
    return (
        f"[CONTEXT-UPDATE] {old} {ARROW} GC-v{delta.new_version} | Delta: "
        f"{items} | Impact: {delta.impact.actions}{affected}"
    )
