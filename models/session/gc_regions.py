"""A GC read again after edits in several places: only the stretches that changed are parsed.

A new version of a GC differs from the last one in its front matter (the version bump) and in a
few top-level sections; so does the composer's working GC from its base. The one-section
follow-up (``models.session.gc_follow``) takes neither, and a full parse of a 200,000-line GC
takes most of a second. Here the top-level sections of the last parse whose text stands
unchanged in the new text are kept (moved, and copied when first asked for:
``models.session.gc_tail``), and each stretch between them is parsed on its own.

Why that is the full parse: the block scanner (``models.text.mdblocks``) carries nothing from one
line to the next outside a fence or a comment, and a heading pops every open section of its
level or deeper. So a stretch that starts with a heading no deeper than the top-level section
before it, ends at a line end outside any fence or comment, and parses without a problem, reads
as it would inside the whole text; and a kept section after it reads as it did before. Anything
else (a changed preamble, a stretch that starts inside a section, titles that clash, a problem
anywhere) gives None, and the caller reads the whole file.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from models.session.gc import GlobalContext, Section
from models.session.gc_tail import FlatList, Kept, TopList, moved_tree
from models.session.refs import norm
from models.session.versions import parse_version
from models.text.common import common_from
from models.text.frontmatter import FrontMatter, split_front_matter
from models.text.tokens import Tokenizer

# How many top-level sections past a changed one are looked at for the next one the new text
# still holds; past that, the rest of the file is one stretch.
RESYNC = 8
# More changed stretches than this: the edits are all over the file, and a full parse is as fast.
MAX_STRETCHES = 32
# How far past where a section stood (plus what the file grew by) it is looked for.
_SLACK = 1 << 16

# Parses a stretch on its own: the parse, and whether its last line is inside a fence or comment.
PartParser = Callable[[str], tuple[GlobalContext, bool]]


@dataclass
class _Old:
    """What the alignment reads of the last parse, without copying a section."""

    gc: GlobalContext
    tops: TopList
    bounds: list[int]
    lines: list[int]

    def text_of(self, i: int) -> str:
        return self.gc.text[self.bounds[i] : self.bounds[i + 1]]


def reparse_regions(
    previous: GlobalContext, text: str, tokenizer: Tokenizer, parse_part: PartParser
) -> GlobalContext | None:
    """``text`` parsed from ``previous`` by parsing only the stretches between the top-level
    sections it kept, or None (read it all)."""
    if not previous.scan_clean or previous.problems or previous.tokenizer != tokenizer.name:
        return None
    tops = TopList.of(previous)
    if not tops:
        return None
    front, problems = split_front_matter(text, "global-context.md")
    version = parse_version(front.data.get("version"))
    if problems or (front.data.get("version") is not None and version is None):
        return None
    if front.body_start and text[front.body_start - 1] != "\n":
        return None
    old = _Old(previous, tops, tops.bounds(), tops.line_bounds())
    preamble = previous.text[previous.front.body_start : old.bounds[0]]
    if not text.startswith(preamble, front.body_start):
        return None
    start = front.body_start + len(preamble)
    pieces = _align(old, text, start, text.count("\n", 0, start) - old.lines[0], parse_part)
    if pieces is None or not _nest_as_before(old, pieces, previous.title is not None):
        return None
    return _assemble(previous, old, text, front, version, start, pieces, tokenizer)


@dataclass
class _Fresh:
    """A changed stretch, parsed: it stands where old top-level sections ``lo`` to ``hi`` stood."""

    lo: int
    hi: int
    trees: list[list[Section]]


def _align(old: _Old, text: str, at: int, lines: int, parse_part: PartParser) -> list[Kept | _Fresh] | None:
    """The kept runs and parsed stretches that make ``text`` from ``at`` on, or None."""
    n = len(old.bounds) - 1
    pieces: list[Kept | _Fresh] = []
    i = 0
    while i < n:
        same = common_from(old.gc.text, old.bounds[i], text, at)
        j = bisect.bisect_right(old.bounds, old.bounds[i] + same, i) - 1
        if j == n and at + old.bounds[n] - old.bounds[i] != len(text):
            j = n - 1  # the last section may end in an open comment: kept only when still last
        if j > i:
            pieces.append(Kept(i, j, at - old.bounds[i], lines))
            at += old.bounds[j] - old.bounds[i]
            i = j
            if i == n:
                break
        stop, end = _resync(old, i, text, at)
        if i == 0 and stop == n:
            return None  # nothing kept: the whole file is one stretch
        fresh = _stretch(old, i, stop, text, at, end, lines + old.lines[i], parse_part)
        if fresh is None or len(pieces) >= 2 * MAX_STRETCHES:
            return None
        pieces.append(fresh)
        lines += text.count("\n", at, end) - (old.lines[stop] - old.lines[i])
        i, at = stop, end
    return pieces if at == len(text) else None


def _resync(old: _Old, i: int, text: str, at: int) -> tuple[int, int]:
    """The first old top-level section from ``i`` on that ``text`` holds from a line start
    after ``at``, and where; (the section count, the text's end) when none is near."""
    n = len(old.bounds) - 1
    grown = max(len(text) - len(old.gc.text), 0)
    for k in range(i, min(i + 1 + RESYNC, n)):  # ``i`` itself: sections put in before it
        wanted = old.text_of(k)
        window = at + old.bounds[k] - old.bounds[i] + len(wanted) + grown + _SLACK
        found = text.find(wanted, at, window)
        # Further on (or right here, when sections before it went): each step moves on.
        at_line_start = (found > at and text[found - 1] == "\n") or (found == at and k > i)
        if at_line_start and (k < n - 1 or found + len(wanted) == len(text)):  # the last stays last
            return k, found
    return n, len(text)


def _stretch(
    old: _Old, lo: int, hi: int, text: str, at: int, end: int, line: int, parse_part: PartParser
) -> _Fresh | None:
    """The stretch ``text[at:end]`` (from ``line`` on) parsed and moved into place, or None
    when it may not read as it would in the whole text."""
    if at == end:
        return _Fresh(lo, hi, [])
    part, open_at_end = parse_part(text[at:end])
    sections = list(part.sections)
    if part.problems or part.front.present or part.title is not None or not sections or sections[0].start:
        return None
    if open_at_end and end < len(text):
        return None  # a fence or comment that would run on into the kept section below
    return _Fresh(lo, hi, [moved_tree(list(top.walk()), at, line) for top in sections])


def _nest_as_before(old: _Old, pieces: list[Kept | _Fresh], titled: bool) -> bool:
    """Whether each piece's first top-level section is no deeper than the one before it (a
    heading closes the open sections of its level and deeper only), and, without a title, the
    first is not a level-1 heading (which would become the title)."""
    before: int | None = None
    for piece in pieces:
        if isinstance(piece, Kept):
            first, last = old.tops.unmoved(piece.lo).level, old.tops.unmoved(piece.hi - 1).level
        elif piece.trees:
            first, last = piece.trees[0][0].level, piece.trees[-1][0].level
        else:
            continue
        if (first > before) if before is not None else (first == 1 and not titled):
            return False
        before = last
    return True


def _assemble(
    previous: GlobalContext,
    old: _Old,
    text: str,
    front: FrontMatter,
    version: int | None,
    start: int,
    pieces: list[Kept | _Fresh],
    tokenizer: Tokenizer,
) -> GlobalContext | None:
    """The new parse from its pieces, when no two top-level titles clash (the segments of
    references and the sibling check would change for sections this does not read)."""
    norms = _top_norms(previous, old.tops)
    tokens = previous.tokens - tokenizer.count(previous.text[: old.bounds[0]]) + tokenizer.count(text[:start])
    for piece in pieces:
        if isinstance(piece, _Fresh):
            for k in range(piece.lo, piece.hi):
                gone = old.tops.unmoved(k)
                norms[norm(gone.title)] -= 1
                tokens -= gone.tokens
    for piece in pieces:
        if isinstance(piece, _Fresh):
            for tree in piece.trees:
                key = norm(tree[0].title)
                if norms[key] > 0:
                    return None
                norms[key] += 1
                tokens += tree[0].tokens
    new_tops = old.tops.spliced([p if isinstance(p, Kept) else p.trees for p in pieces])
    gc = GlobalContext(
        text,
        front,
        version,
        previous.title,
        new_tops,
        None,
        tokens,
        previous.tokenizer,
        [],
        True,
        FlatList(new_tops),
        _places=new_tops.places,
    )
    gc.top_norms = +norms
    return gc


def _top_norms(gc: GlobalContext, tops: TopList) -> Counter[str]:
    """How many top-level sections have each normalised title (a copy: the caller changes it)."""
    if gc.top_norms is None:
        gc.top_norms = Counter(norm(title) for title in tops.titles())
    return Counter(gc.top_norms)
