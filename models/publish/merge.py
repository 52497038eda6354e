"""Merging the Lead's unpublished draft of the GC with what an agent wrote on disk meanwhile.

Three versions: the GC the draft was taken from (base), the draft (mine), the GC on disk now
(theirs). They are compared by top-level section (with its subsections), and the front matter
and preamble as units of their own: a unit one side changed takes that side; a unit both
changed the same way is taken once; a unit both changed differently is a conflict the Lead
decides, seeing both.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.session.gc_parse import parse_gc
from models.text.tokens import EstimateTokenizer

_STRUCTURE = EstimateTokenizer()
FRONT, PREAMBLE = "(front matter)", "(preamble)"


@dataclass(frozen=True)
class Conflict:
    """A unit both sides changed differently; ``None`` text means that side removed it."""

    key: str
    mine: str | None
    theirs: str | None


def _units(text: str) -> list[tuple[str, str]]:
    """(key, text) of the front matter, the preamble and each top-level section, in order; the
    units concatenate to ``text``."""
    gc = parse_gc(text, _STRUCTURE)
    out = [(FRONT, text[: gc.front.body_start])]
    first = gc.sections[0].start if gc.sections else len(text)
    out.append((PREAMBLE, text[gc.front.body_start : first]))
    seen: dict[str, int] = {}
    for s in gc.sections:
        seen[s.title] = seen.get(s.title, 0) + 1
        key = s.title if seen[s.title] == 1 else f"{s.title} #{seen[s.title]}"
        out.append((key, text[s.start : s.end]))
    return out


def merge_drafts(base: str, mine: str, theirs: str, choose: dict[str, str] | None = None) -> tuple[str, list[Conflict]]:
    """The merged GC and the conflicts; ``choose`` maps a conflict's key to "mine" or "theirs"
    (a conflict without a choice keeps mine, and is returned)."""
    b, m, t = dict(_units(base)), dict(_units(mine)), dict(_units(theirs))
    order = [k for k, _ in _units(theirs)]
    mine_order = [k for k, _ in _units(mine)]
    for i, key in enumerate(mine_order):  # sections only the draft has go after their predecessor
        if key not in t and key not in b:
            before = next((mine_order[j] for j in range(i - 1, -1, -1) if mine_order[j] in order), None)
            order.insert(order.index(before) + 1 if before is not None else len(order), key)
    for key in mine_order:
        if key in b and key not in t and key not in order:
            order.append(key)  # the agent removed it: decided below
    conflicts: list[Conflict] = []
    merged: list[str] = []
    for key in order:
        was, mine_now, theirs_now = b.get(key), m.get(key), t.get(key)
        if mine_now == was:
            take = theirs_now
        elif theirs_now in (was, mine_now):
            take = mine_now
        else:
            conflict = Conflict(key, mine_now, theirs_now)
            choice = (choose or {}).get(key)
            if choice is None:
                conflicts.append(conflict)
            take = theirs_now if choice == "theirs" else mine_now
        if take:
            merged.append(take)
    # A unit that was last (no final line break) and is no longer last gets one.
    fixed = [u if u.endswith("\n") or i == len(merged) - 1 else u + "\n" for i, u in enumerate(merged)]
    return "".join(fixed), conflicts
