"""Which top-level sections two versions of a GC have in common, found from their text.

The versions a diff compares (the base and the working GC) and those its proof compares (a GC
and the delta applied to it) differ in a few sections out of hundreds or thousands. Walking
every section in Python took most of a composer's re-plan (0.2 s for the diff and 0.09 s for
its proof at 13,000 top-level sections), and on a GC read by a follow-up it copied every
section (``models.session.gc_tail``). Here runs of top-level sections whose text is the same
in both versions are found by comparing text at memory speed. A top-level section with the same
text has the same subsections and items (a heading always starts outside code and comments,
and its tree is read from its own text), so a diff skips it and a proof counts it on neither
side.
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from models.session.gc import GlobalContext
from models.session.gc_tail import TopList
from models.text.common import common_from

# How many top-level sections past a changed one, on either side, are looked at for the next
# section the versions have in common; past that, the rest is left to the caller's own matching.
RESYNC = 8


@dataclass(frozen=True)
class Same:
    """``count`` top-level sections, from ``old`` in one version and ``new`` in the other,
    whose text is the same byte for byte."""

    old: int
    new: int
    count: int


def top_bounds(gc: GlobalContext) -> list[int]:
    """Where each top-level section starts, and where the last one ends ([] when none)."""
    if isinstance(gc.sections, TopList):
        return gc.sections.bounds()
    sections = gc.sections
    return [s.start for s in sections] + [sections[-1].end] if sections else []


def same_runs(old: GlobalContext, new: GlobalContext) -> tuple[Same, ...]:
    """The runs of top-level sections ``old`` and ``new`` have in common, in order. The last
    pair's are kept: a diff asks for them, and its proof again for the same two parses."""
    last = _LAST[0]
    if last is not None and last[0]() is old and last[1]() is new:
        return last[2]
    runs = _runs(old, new)
    _LAST[0] = (weakref.ref(old), weakref.ref(new), runs)
    return runs


# The last pair asked for, held weakly: a memo must not keep a 10 MB GC alive.
_LAST: list[tuple[weakref.ref[GlobalContext], weakref.ref[GlobalContext], tuple[Same, ...]] | None] = [None]


def _runs(old: GlobalContext, new: GlobalContext) -> tuple[Same, ...]:
    if old is new or old.text is new.text:  # one text has one set of sections: all in one run
        # A composer whose working GC is the one on disk plans the teammates one version
        # behind from that very parse; reading 13,000 sections' bounds to find that they all
        # agree took 5 ms of each re-plan on the ten-times GC.
        count = len(new.sections)
        return (Same(0, 0, count),) if count else ()
    ob, nb = top_bounds(old), top_bounds(new)
    if not ob or not nb:
        return ()
    ot, nt = old.text, new.text
    no, nn = len(ob) - 1, len(nb) - 1
    runs: list[Same] = []
    i = j = 0
    while i < no and j < nn:
        count = _whole_within(ob, i, nb, j, common_from(ot, ob[i], nt, nb[j]), min(no - i, nn - j))
        if count:
            runs.append(Same(i, j, count))
            i, j = i + count, j + count
            continue
        found = _resync(ot, ob, i, nt, nb, j)
        if found is None:
            break
        i, j = found
    return tuple(runs)


def gaps(runs: Sequence[Same], olds: int, news: int) -> Iterator[tuple[int, int, int, int]]:
    """The index ranges between ``runs`` (old from, old to, new from, new to), empty ones left
    out; with no runs, everything."""
    i = j = 0
    for run in runs:
        if run.old > i or run.new > j:
            yield i, run.old, j, run.new
        i, j = run.old + run.count, run.new + run.count
    if olds > i or news > j:
        yield i, olds, j, news


def _whole_within(ob: list[int], i: int, nb: list[int], j: int, agreed: int, most: int) -> int:
    """How many sections from ``i`` (old) and ``j`` (new) lie whole inside the first ``agreed``
    characters, which are the same in both, and end at the same places."""
    count = bisect.bisect_right(ob, ob[i] + agreed, i, i + most + 1) - 1 - i
    shift = nb[j] - ob[i]
    for k in range(count + 1):
        if nb[j + k] != ob[i + k] + shift:
            return k - 1 if k else 0
    return count


def _resync(ot: str, ob: list[int], i: int, nt: str, nb: list[int], j: int) -> tuple[int, int] | None:
    """The nearest pair of sections past ``i`` and ``j`` with the same text: up to ``RESYNC``
    sections changed, added or removed on either side."""
    no, nn = len(ob) - 1, len(nb) - 1
    for t in range(1, 2 * RESYNC + 1):
        for a in range(max(0, t - RESYNC), min(t, RESYNC) + 1):
            x, y = i + a, j + t - a
            if x >= no or y >= nn:
                continue
            size = ob[x + 1] - ob[x]
            if size == nb[y + 1] - nb[y] and ot.startswith(nt[nb[y] : nb[y + 1]], ob[x]):
                return x, y
    return None
