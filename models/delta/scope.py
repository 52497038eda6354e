"""A role's view of an update: only what changed in the GC sections it follows.

``models.session.subscriptions`` says which top-level sections a role follows. Its delta keeps
the items whose top-level section is one of them, and the front matter's and preamble's (the
version line every teammate keeps); the rest are named by section in the message, so the
teammate knows what it was not sent. A full injection for such a role is the GC's front matter
and preamble with its sections, and the titles of the others.

Sections are matched by title the way § references are (``models.session.refs.norm``: case,
emphasis and spacing aside). An item is placed by resolving its reference in the new GC, or
in the old for what was removed, and walking up to its top-level section, as FC-4's share does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from models.delta.items import Delta, DeltaItem, structure
from models.session.gc import GlobalContext
from models.session.refs import norm


@dataclass(frozen=True)
class Scope:
    """What one role follows of the GC, and what of an update it was not sent."""

    follows: tuple[str, ...]  # the GC's titles of the sections it follows, in the GC's order
    unknown: tuple[str, ...] = ()  # names in subscriptions.yaml that no top-level section has
    left_out: tuple[str, ...] = ()  # sections whose changes it is not sent, in the GC's order
    items_left_out: int = 0
    others: tuple[str, ...] = ()  # for a full injection: the titles of the sections not sent

    def describe(self) -> str:
        """One line for the Lead: what the role follows and what it was not sent."""
        follows = ", ".join(f"§{t}" for t in self.follows) or "no section"
        said = f"follows {follows}"
        if self.items_left_out:
            said += f"; not sent {_items(self.items_left_out)} in " + ", ".join(f"§{t}" for t in self.left_out)
        if self.unknown:
            said += "; " + ", ".join(f"§{t}" for t in self.unknown) + " not in the GC"
        return said


def _items(n: int) -> str:
    return f"{n} item" + ("" if n == 1 else "s")


def top_titles(gc: GlobalContext) -> list[str]:
    """The titles of the top-level sections, in the GC's order."""
    return [s.title for s in gc.sections]


def matched(names: Iterable[str], titles: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the titles among ``titles`` that ``names`` name, in their order; the names none has)."""
    wanted = {norm(n): n for n in names}
    found = tuple(t for t in titles if norm(t) in wanted)
    seen = {norm(t) for t in found}
    return found, tuple(n for key, n in wanted.items() if key not in seen)


def _top_title(item: DeltaItem, old: GlobalContext, new: GlobalContext) -> str | None:
    """The top-level section ``item`` touches; None for the front matter, the preamble, or a
    reference neither version resolves (sent to every role, as one that cannot be placed)."""
    found = new.resolve(item.ref) or old.resolve(item.ref)
    if found is None:
        return None
    node = found.section
    while node.parent is not None:
        node = node.parent
    return node.title


def scoped(delta: Delta, names: tuple[str, ...], old_text: str, new_text: str) -> tuple[Delta, Scope, int]:
    """``delta`` as the role following ``names`` is sent it, its scope, and how many of the
    sections it follows the delta touches (its FC-4 share is that of ``len(scope.follows)``)."""
    old, new = structure(old_text), structure(new_text)
    titles = list(dict.fromkeys([*top_titles(old), *top_titles(new)]))
    follows, unknown = matched(names, titles)
    wanted = {norm(t) for t in follows}
    kept: list[DeltaItem] = []
    left: dict[str, int] = {}
    touched: set[str] = set()
    for item in delta.items:
        title = _top_title(item, old, new)
        if title is None or norm(title) in wanted:
            kept.append(item)
            if title is not None:
                touched.add(norm(title))
        else:
            left[title] = left.get(title, 0) + 1
    left_out = tuple(t for t in titles if t in left)
    scope = Scope(follows, unknown, left_out, sum(left.values()))
    return Delta(delta.old_version, delta.new_version, tuple(kept), delta.impact), scope, len(touched)


def role_text(text: str, names: tuple[str, ...]) -> tuple[str, Scope]:
    """The GC as a role following ``names`` is sent it in full: everything before the first
    section (front matter, title, preamble) and its sections; the scope names the others."""
    gc = structure(text)
    follows, unknown = matched(names, top_titles(gc))
    wanted = {norm(t) for t in follows}
    first = gc.sections[0].start if gc.sections else len(text)
    parts = [text[:first]]
    others: list[str] = []
    for section in gc.sections:
        if norm(section.title) in wanted:
            parts.append(text[section.start : section.end])
        else:
            others.append(section.title)
    return "".join(parts), Scope(follows, unknown, others=tuple(others))
