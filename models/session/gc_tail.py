"""The sections of a GC follow-up: those an edit moved are copied when first asked for.

A follow-up (``models.session.gc_follow``) has the shape of the parse it came from: the same
headings in the same order. Above the edit, its sections are that parse's own objects. Below
it, they are the same sections again, moved by the characters and lines the edit added.
Copying all of those took most of a follow-up of a 20,000-section GC, while a view shows a few
dozen rows and the loss check reads the edited section only.

So a follow-up keeps its top-level sections as runs of an earlier parse's sections, each run
with how far it moved, and copies a top-level section's tree the first time anything asks for
it. The copy is kept: asking again gives the same object, as a list would.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from models.session.gc import GlobalContext, Section

# A follow-up that left more runs than this copies every section once and starts over from one
# run: edits all over a file would otherwise make every look-up walk a long list of runs.
MAX_RUNS = 48

# Trees are copied under this lock: the context pane composes in a worker thread, and two
# copies of one section would break identity (a row's section, a parent's children).
_LOCK = threading.Lock()


@dataclass(eq=False, slots=True)
class _Run:
    """The top-level sections ``source[lo:hi]`` of an earlier parse, ``chars`` and ``lines``
    further down than that parse had them."""

    source: list[Section]
    lo: int
    hi: int
    chars: int
    lines: int
    # Each tree as made here, by source index, its sections in file order. Shared with the runs
    # of later follow-ups that did not move these sections again: they are the same objects.
    trees: dict[int, list[Section]]

    @property
    def moved(self) -> bool:
        return bool(self.chars or self.lines)

    def tree(self, i: int) -> list[Section]:
        found = self.trees.get(i)
        if found is None:
            with _LOCK:
                found = self.trees.get(i)
                if found is None:
                    top = self.source[i]
                    found = moved_tree(top.walk(), self.chars, self.lines) if self.moved else list(top.walk())
                    self.trees[i] = found
        return found


@dataclass(frozen=True, slots=True)
class Kept:
    """Top-level sections ``lo`` to ``hi`` (not included) of a ``TopList``, kept in a new one
    ``chars`` and ``lines`` further down."""

    lo: int
    hi: int
    chars: int
    lines: int


def moved_tree(
    tree: Iterable[Section], chars: int, lines: int, stop: int = 0, stop_line: int = 0, edited: Section | None = None
) -> list[Section]:
    """A copy of ``tree`` (a top-level section and its subsections, in file order) with every
    place at or past ``stop`` (``stop_line`` for lines) ``chars`` and ``lines`` further down.
    A section that starts before ``stop`` keeps its items, unless it is ``edited``; the others
    read theirs again on first use (items hold places too)."""
    made: list[Section] = []
    copies: dict[int, Section] = {}
    for old in tree:
        parent = copies[id(old.parent)] if made and old.parent is not None else None
        start = old.start
        keep = start < stop and old is not edited  # its items lie before the edit
        new = Section(
            old.title,
            old.level,
            old.line + lines if old.line >= stop_line else old.line,
            start + chars if start >= stop else start,
            parent,
            [],
            old.end_line + lines if old.end_line >= stop_line else old.end_line,
            old.own_end_line + lines if old.own_end_line >= stop_line else old.own_end_line,
            old.end + chars if old.end >= stop else old.end,
            old.own_end + chars if old.own_end >= stop else old.own_end,
            old.tokens,
            old.own_tokens,
            old.segment,
            old._items if keep else None,
            old._own,
            old._duplicates if keep else (),
        )
        if parent is not None:
            parent.children.append(new)
        copies[id(old)] = new
        made.append(new)
    return made


def _start(section: Section) -> int:
    return section.start


class _Sections(Sequence[Section]):
    """A read-only list of sections whose items are found (and copied) one at a time, until
    something walks them all: then all are copied, once, into a plain list, which later walks
    (a diff walks the top-level list several times) and look-ups use."""

    __slots__ = ("_all",)

    def __init__(self) -> None:
        self._all: list[Section] | None = None

    def _at(self, i: int) -> Section:
        raise NotImplementedError

    def _every(self) -> list[Section]:
        raise NotImplementedError

    def __iter__(self) -> Iterator[Section]:
        if self._all is None:
            self._all = self._every()
        return iter(self._all)

    @overload
    def __getitem__(self, key: int) -> Section: ...

    @overload
    def __getitem__(self, key: slice) -> list[Section]: ...

    def __getitem__(self, key: int | slice) -> Section | list[Section]:
        size = len(self)
        if isinstance(key, slice):
            return [self[i] for i in range(*key.indices(size))]
        i = key + size if key < 0 else key
        if not 0 <= i < size:
            raise IndexError("section index out of range")
        return self._at(i) if self._all is None else self._all[i]


class TopList(_Sections):
    """The top-level sections of a GC as runs of earlier parses' sections; a tree is copied
    when something first asks for it or for one of its sections."""

    __slots__ = ("_firsts", "_runs", "places")

    def __init__(self, runs: list[_Run], places: list[int]) -> None:
        super().__init__()
        self._runs = runs
        firsts = [0]
        for run in runs:
            firsts.append(firsts[-1] + run.hi - run.lo)
        self._firsts = firsts  # the index of each run's first section, and the count at the end
        self.places = places  # where each tree starts in file order, and the count of all sections

    @classmethod
    def of(cls, gc: GlobalContext) -> TopList:
        """``gc``'s top-level sections as runs (a follow-up's already are)."""
        if isinstance(gc.sections, TopList):
            return gc.sections
        return cls([_Run(list(gc.sections), 0, len(gc.sections), 0, 0, {})], gc.places())

    def __len__(self) -> int:
        return self._firsts[-1]

    def _find(self, j: int) -> tuple[_Run, int]:
        """The run holding top-level section ``j``, and the section's index in its source."""
        r = bisect.bisect_right(self._firsts, j) - 1
        run = self._runs[r]
        return run, run.lo + j - self._firsts[r]

    def _at(self, i: int) -> Section:
        return self.tree(i)[0]

    def _every(self) -> list[Section]:
        return [run.tree(i)[0] for run in self._runs for i in range(run.lo, run.hi)]

    def bounds(self) -> list[int]:
        """Where each top-level section starts, and where the last one ends, read from the
        sources' places without copying anything (a diff compares the sections' texts first)."""
        found = [s.start + run.chars for run in self._runs for s in run.source[run.lo : run.hi]]
        if found:
            last = self._runs[-1]
            found.append(last.source[last.hi - 1].end + last.chars)
        return found

    def line_bounds(self) -> list[int]:
        """The line each top-level section starts on, and the last one's end line, as
        ``bounds()`` gives their offsets."""
        found = [s.line + run.lines for run in self._runs for s in run.source[run.lo : run.hi]]
        if found:
            last = self._runs[-1]
            found.append(last.source[last.hi - 1].end_line + last.lines)
        return found

    def unmoved(self, j: int) -> Section:
        """Top-level section ``j`` as the earlier parse has it, not copied: for what a move
        leaves as it was (title, level, tokens), never for places."""
        run, i = self._find(j)
        return run.source[i]

    def spliced(self, pieces: Sequence[Kept | list[list[Section]]]) -> TopList:
        """New top-level sections from ``pieces`` in order: a ``Kept`` range of these (moved as
        it says, copied when first asked for), or new trees (each in file order). Nothing of
        these is copied here."""
        runs: list[_Run] = []
        places = [0]
        for piece in pieces:
            if isinstance(piece, Kept):
                for first, run in zip(self._firsts, self._runs, strict=False):
                    lo, hi = max(first, piece.lo), min(first + run.hi - run.lo, piece.hi)
                    if lo < hi:
                        moved = bool(piece.chars or piece.lines)
                        chars, lines = run.chars + piece.chars, run.lines + piece.lines
                        trees = {} if moved else run.trees
                        _append(runs, _Run(run.source, run.lo + lo - first, run.lo + hi - first, chars, lines, trees))
                base = places[-1] - self.places[piece.lo]
                places += [self.places[k] + base for k in range(piece.lo + 1, piece.hi + 1)]
            elif piece:
                runs.append(_Run([tree[0] for tree in piece], 0, len(piece), 0, 0, dict(enumerate(piece))))
                for tree in piece:
                    places.append(places[-1] + len(tree))
        if len(runs) > MAX_RUNS:
            tops = list(TopList(runs, places))
            runs = [_Run(tops, 0, len(tops), 0, 0, {})]
        return TopList(runs, places)

    def titles(self) -> list[str]:
        """Each top-level section's title, without copying anything."""
        return [s.title for run in self._runs for s in run.source[run.lo : run.hi]]

    def tree(self, j: int) -> list[Section]:
        """Top-level section ``j`` and its subsections, in file order."""
        run, i = self._find(j)
        return run.tree(i)

    def top_at(self, offset: int) -> int:
        """The last top-level section that starts at or before ``offset`` (-1 if none), found
        from the sources' places without copying anything."""
        firsts = [run.source[run.lo].start + run.chars for run in self._runs]
        r = bisect.bisect_right(firsts, offset) - 1
        if r < 0:
            return -1
        run = self._runs[r]
        i = bisect.bisect_right(run.source, offset - run.chars, run.lo, run.hi, key=_start) - 1
        return self._firsts[r] + i - run.lo

    def moved(self, at: int, tree: list[Section], chars: int, lines: int) -> TopList:
        """These sections after an edit inside top-level section ``at``: ``tree`` (its new copy,
        in file order) in its place, and every section below it ``chars`` and ``lines`` further
        down. Nothing is copied here."""
        runs: list[_Run] = []
        for first, run in zip(self._firsts, self._runs, strict=False):
            last = first + run.hi - run.lo
            if first < at:  # above the edit: as it was, with the copies made so far
                _append(runs, _Run(run.source, run.lo, run.lo + min(last, at) - first, run.chars, run.lines, run.trees))
            if first <= at < last:
                runs.append(_Run([tree[0]], 0, 1, 0, 0, {0: tree}))
            if last > at + 1:
                lo = run.lo + max(at + 1 - first, 0)
                _append(runs, _Run(run.source, lo, run.hi, run.chars + chars, run.lines + lines, {}))
        if len(runs) > MAX_RUNS:
            tops = list(TopList(runs, self.places))
            runs = [_Run(tops, 0, len(tops), 0, 0, {})]
        return TopList(runs, self.places)


def _append(runs: list[_Run], run: _Run) -> None:
    """Add ``run``, joined to the last one when it simply continues it."""
    last = runs[-1] if runs else None
    if (
        last is not None
        and last.source is run.source
        and last.hi == run.lo
        and (last.chars, last.lines) == (run.chars, run.lines)
        and (last.trees is run.trees or not run.moved)
    ):
        last.hi = run.hi
        if last.trees is not run.trees:
            last.trees.update(run.trees)
        return
    runs.append(run)


class FlatList(_Sections):
    """Every section of a follow-up in file order, over its ``TopList``."""

    __slots__ = ("_tops",)

    def __init__(self, tops: TopList) -> None:
        super().__init__()
        self._tops = tops

    def __len__(self) -> int:
        return self._tops.places[-1]

    def _at(self, i: int) -> Section:
        places = self._tops.places
        j = bisect.bisect_right(places, i) - 1
        return self._tops.tree(j)[i - places[j]]

    def _every(self) -> list[Section]:
        return [s for j in range(len(self._tops)) for s in self._tops.tree(j)]
