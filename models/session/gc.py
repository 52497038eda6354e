"""The global context (GC): version, title, section tree and keyed items.

Every node keeps its exact character range in the source text, so an edit can replace one
section (or one item) and leave every other byte of the file as it was.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from models.session.gc_items import Item, section_body, section_keys
from models.session.refs import Segment, norm, split_ref
from models.text.frontmatter import FrontMatter
from models.text.problems import Problem
from models.text.textfile import line_count as count_lines
from models.text.textfile import line_starts as starts_of
from models.text.textfile import split_lines


@dataclass(eq=False, slots=True)  # slots: a follow-up of a 20,000-section GC makes thousands
class Section:
    """A heading and everything up to the next heading of the same or a higher level."""

    title: str
    level: int
    line: int
    start: int
    parent: Section | None = field(default=None, repr=False)
    children: list[Section] = field(default_factory=list, repr=False)
    end_line: int = 0
    own_end_line: int = 0
    end: int = 0
    own_end: int = 0  # where the section's own text stops (its first child or its end)
    tokens: int = 0  # this section with all its subsections
    own_tokens: int = 0
    segment: str = ""  # this heading as one segment of a § reference (models.session.refs)
    _items: list[Item] | None = field(default=None, repr=False, compare=False)
    # The section's own text, cut once from the parse's text (the count cache's key is the
    # same string). Sections hold no reference to the whole text: a replaced version of a
    # 10 MB GC is freed with its GlobalContext, not when the cycles of its section tree are.
    _own: str = field(default="", repr=False, compare=False)
    _duplicates: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _child_index: TitleIndex | None = field(default=None, repr=False, compare=False)

    def child_index(self) -> TitleIndex:
        """Subsections by normalised title (in order), built once: resolving thousands of
        references must not rank every sibling list each time."""
        if self._child_index is None:
            self._child_index = TitleIndex(self.children)
        return self._child_index

    @property
    def own_text(self) -> str:
        """The section's text up to its first subsection: what its items are read from.

        Kept: the section tree's rows compare it on every follow-up, and a section that a
        follow-up only moved hands it on (``models.session.gc_follow``)."""
        return self._own

    @property
    def items(self) -> list[Item]:
        """Keyed lines of the section's own text (bullets, bold keys, table rows), in order."""
        if self._items is None:
            rel_items, duplicates = section_body(self.own_text)
            line, start = self.line, self.start
            self._duplicates = duplicates
            self._items = [
                Item(key, value, kind, line + a, line + b, start + c, start + d)
                for key, value, kind, a, b, c, d in rel_items
            ]
        return self._items

    @property
    def duplicate_keys(self) -> list[str]:
        """Keys that stand twice among the items (a diff matches those by position)."""
        _ = self.items
        return list(self._duplicates)

    @property
    def path(self) -> tuple[str, ...]:
        node: Section | None = self
        parts: list[str] = []
        while node is not None:
            parts.append(node.title)
            node = node.parent
        return tuple(reversed(parts))

    @property
    def ref(self) -> str:
        """The ADR-002 reference: ``§Component Map.Pipeline Stages (6)``, with a segment quoted
        where a plain one would be ambiguous (``§"Risks [CRITICAL]"``)."""
        node: Section | None = self
        parts: list[str] = []
        while node is not None:
            parts.append(node.segment or node.title)
            node = node.parent
        return "§" + ".".join(reversed(parts))

    def walk(self) -> Iterator[Section]:
        yield self
        for child in self.children:
            yield from child.walk()

    def find_item(self, key: str) -> Item | None:
        wanted = norm(key)
        return next((it for it in self.items if norm(it.key) == wanted), None)


@dataclass(frozen=True)
class Resolved:
    """What a § reference points at: a section, or one item inside it."""

    section: Section
    item: Item | None = None


@dataclass(frozen=True)
class FollowUp:
    """How a GC read by a follow-up relates to the parse it came from, for those that can
    update from that parse rather than start over (the loss check, the section tree)."""

    previous: Callable[[], GlobalContext | None]  # weakly: a chain of versions must not stay alive
    items_before: list[tuple[str, str]]  # (§ref, key) of the edited section's items in ``previous``
    edited: Section  # the edited section, here; the tree has ``previous``'s shape (no heading
    # changed), with ``previous``'s own objects above the edited section's top-level one
    top: int  # the index of that top-level section among ``sections``


@dataclass(eq=False)
class GlobalContext:
    """A parsed global-context.md."""

    text: str
    front: FrontMatter
    version: int | None
    title: str | None
    # A list, or for a follow-up a ``models.session.gc_tail.TopList`` that copies the sections an
    # edit moved when first asked for.
    sections: Sequence[Section]
    _line_starts: list[int] | None
    tokens: int
    tokenizer: str
    problems: list[Problem]
    # Whether the block scan found nothing wrong, and every section in file order: what a
    # follow-up needs to re-read only the section an edit lies in (models.session.gc_follow).
    scan_clean: bool = field(default=False, repr=False)
    _flat: Sequence[Section] | None = field(default=None, repr=False)
    follow_up: FollowUp | None = field(default=None, repr=False)  # set by models.session.gc_follow
    _places: list[int] | None = field(default=None, repr=False)
    _top_index: TitleIndex | None = field(default=None, init=False, repr=False)
    # How many top-level sections have each normalised title: what a follow-up over several
    # stretches checks its new titles against (models.session.gc_regions).
    top_norms: Counter[str] | None = field(default=None, init=False, repr=False)
    _nested_index: TitleIndex | None = field(default=None, init=False, repr=False)
    _top_titles: frozenset[str] | None = field(default=None, init=False, repr=False)
    _found_in: list[tuple[str, Section]] | None = field(default=None, init=False, repr=False)

    def walk(self) -> Iterator[Section]:
        for section in self.sections:
            yield from section.walk()

    def flat(self) -> Sequence[Section]:
        """Every section in file order (parents before their subsections)."""
        if self._flat is None:
            self._flat = list(self.walk())
        return self._flat

    def places(self) -> list[int]:
        """Where each top-level section's tree starts in ``flat()``, and the number of all
        sections at the end; the follow-ups of this parse have the same."""
        if self._places is None:
            flat = self.flat()
            self._places = [n for n, s in enumerate(flat) if s.parent is None] + [len(flat)]
        return self._places

    @property
    def line_starts(self) -> list[int]:
        """Character offset of each line's start, and the text's length at the end; worked out
        when first asked for, since a follow-up that moved every line below an edit has no use
        for them."""
        if self._line_starts is None:
            self._line_starts = starts_of(split_lines(self.text))
        return self._line_starts

    @property
    def line_count(self) -> int:
        """How many lines ``split_lines`` cuts the text into. The last top-level section ends at
        the last line, so the sections say it without counting: the composer's Message tab
        asks after every re-plan, and counting the ten-times GC's line ends took 3.4 ms."""
        if self._line_starts is not None:
            return len(self._line_starts) - 1
        if self.sections:
            return self.sections[-1].end_line
        return count_lines(self.text)

    def top_titles(self) -> frozenset[str]:
        """The titles of the top-level sections. A follow-up that re-read one section has the
        headings of the parse it came from, and takes that parse's set: the composer's FC-4
        share asks after every edit, and reading 13,000 titles again took 2.6 ms."""
        if self._top_titles is None:
            previous = self.follow_up.previous() if self.follow_up is not None else None
            if previous is not None:
                self._top_titles = previous.top_titles()
            else:
                sections = self.sections
                titles = sections.titles() if isinstance(sections, _Titled) else [s.title for s in sections]
                self._top_titles = frozenset(titles)
        return self._top_titles

    def title_index(self, parent: Section | None) -> TitleIndex:
        """The top-level sections (``parent`` None) or ``parent``'s subsections by normalised
        title, in order; built once per parse."""
        if parent is not None:
            return parent.child_index()
        if self._top_index is None:
            sections = self.sections
            titles = sections.titles() if isinstance(sections, _Titled) else None
            self._top_index = TitleIndex(sections, titles)
        return self._top_index

    @property
    def section_count(self) -> int:
        return len(self.flat())

    def heading_end(self, section: Section) -> int:
        """Where ``section``'s heading line ends (its body starts), found from the heading
        alone: the line starts of a GC read by a follow-up are worked out only when asked for,
        by splitting the whole text."""
        end = self.text.find("\n", section.start)
        return len(self.text) if end < 0 else end + 1

    def line_of(self, offset: int) -> int:
        """0-based line index of a character offset."""
        return bisect.bisect_right(self.line_starts, offset) - 1

    def find(self, text: str) -> list[Section]:
        """The sections whose title or § reference holds ``text`` (any case, any § and
        spacing around it), in file order: the section tree's Go to section and
        ``lead-console section --find``."""
        needle = " ".join(text.strip().lstrip("§").split()).casefold()
        if not needle:
            return []
        if self._found_in is None:  # once per parse: the window asks at every keystroke
            # The reference as written, and without the quotes a segment takes where it would
            # be ambiguous; a needle holds no line break, so it matches within one of them.
            self._found_in = [(f"{'.'.join(s.path)}\n{s.ref}".casefold(), s) for s in self.flat()]
        return [s for where, s in self._found_in if needle in where]

    def written(self, found: Resolved) -> str:
        """What a § reference names, as the file holds it: the section with its subsections,
        or the item's lines."""
        if found.item is not None:
            return self.text[found.item.start : found.item.end]
        return self.text[found.section.start : found.section.end]

    def resolve(self, ref: str) -> Resolved | None:
        """Resolve ``§Decisions.D-5``, ``§Scope.in_scope`` or ``§A.B (1.2).key``.

        Heading text may contain dots, so at each level the longest heading that matches a
        prefix of the reference wins; what is left after the deepest heading names an item.
        A reference whose first part is no top-level heading may still name a unique nested
        heading directly (``§Pipeline Stages (6)``).
        """
        segments = split_ref(ref)
        if segments is not None:
            return _resolve_segments(self.title_index(None), segments)
        wanted = norm(ref.strip().lstrip("§"))
        if not wanted:
            return None
        found = _resolve_in(self.title_index(None), wanted)
        if found is not None:
            return found
        if self._nested_index is None:
            self._nested_index = TitleIndex([s for s in self.walk() if s.parent is not None])
        nested = self._nested_index
        # Only a nested heading whose title is the reference or a dotted prefix of it can match.
        candidates = [s for prefix in _prefixes(wanted) for s in nested.get(prefix, ())]
        matches = [r for s in candidates for r in [_resolve_in(TitleIndex([s]), wanted)] if r is not None]
        return matches[0] if len(matches) == 1 else None


def vanished_items(old: GlobalContext, new: GlobalContext) -> list[tuple[str, str]]:
    """(§ref, key) of every keyed item of ``old`` that ``new`` holds nowhere (moved is kept).

    Only a section whose own text ``new`` no longer holds can have lost an item, so after a
    one-line edit the items of one section are looked at, against each section's key set
    (memoised by its text), not every item of both versions. After a follow-up that re-read
    one section, only that section can have lost an item: when it still holds every key it
    had, nothing vanished.
    """
    follow_up = new.follow_up
    if follow_up is not None and follow_up.previous() is old:
        kept = {norm(it.key) for it in follow_up.edited.items}
        if all(norm(key) in kept for _, key in follow_up.items_before):
            return []
    still = {s.own_text for s in new.walk()}
    changed = [s for s in old.walk() if s.own_text not in still]
    if not changed:
        return []
    keys = [section_keys(s.own_text) for s in new.walk()]
    return [(s.ref, it.key) for s in changed for it in s.items if not any(norm(it.key) in held for held in keys)]


@runtime_checkable
class _Titled(Protocol):
    """Sections that give their titles without being copied (``models.session.gc_tail``)."""

    def titles(self) -> list[str]: ...


class TitleIndex:
    """Sections of one level by normalised title, in order.

    It holds positions and fetches the sections a look-up names: a follow-up's top-level
    sections are copied when first asked for (``models.session.gc_tail``), and an index of the
    section objects copied every tree of a GC to resolve one reference."""

    __slots__ = ("_at", "_exact", "_sections", "_titles")

    def __init__(self, sections: Sequence[Section], titles: Sequence[str] | None = None) -> None:
        self._sections = sections
        self._titles = titles
        self._at: dict[str, list[int]] = {}
        self._exact: dict[str, list[int]] | None = None  # made at the first exact look-up
        for j, title in enumerate(titles if titles is not None else [s.title for s in sections]):
            self._at.setdefault(norm(title), []).append(j)

    def get(self, key: str, default: Sequence[Section] = ()) -> Sequence[Section]:
        """The sections whose normalised title is ``key``, in order (``default`` if none)."""
        found = self._at.get(key)
        return default if found is None else [self._sections[j] for j in found]

    def count(self, key: str) -> int:
        """How many sections have the normalised title ``key`` (without fetching them)."""
        return len(self._at.get(key, ()))

    def nth(self, title: str, occurrence: int) -> Section | None:
        """The ``occurrence``-th section (from 1) titled exactly ``title``, from an index by exact
        title made when first asked: a GC that repeats its titles a thousand times names each
        ``"Scope"#N``, and picking one from a list of every "Scope" would make a delta naming
        them all quadratic."""
        exact = self._exact
        if exact is None:
            exact = {}
            titles = self._titles if self._titles is not None else [s.title for s in self._sections]
            for j, t in enumerate(titles):
                exact.setdefault(t, []).append(j)
            self._exact = exact
        found = exact.get(title)
        return self._sections[found[occurrence - 1]] if found is not None and 0 < occurrence <= len(found) else None


def _prefixes(wanted: str) -> Iterator[str]:
    """``wanted``, then each part of it before a dot, longest first: the only titles that
    can match it (a title matches when it is the reference or a prefix followed by a dot)."""
    yield wanted
    end = len(wanted)
    while (end := wanted.rfind(".", 0, end)) >= 0:
        yield wanted[:end]


def _resolve_in(index: TitleIndex, wanted: str) -> Resolved | None:
    """The longest matching title wins (titles may hold dots); among equal titles, the first.
    Looked up by the reference's prefixes, so the cost follows the reference, not the GC."""
    for title in _prefixes(wanted):
        for section in index.get(title, ()):
            if title == wanted:
                return Resolved(section)
            rest = wanted[len(title) + 1 :]
            deeper = _resolve_in(section.child_index(), rest)
            if deeper is not None:
                return deeper
            item = section.find_item(rest)
            if item is not None:
                return Resolved(section, item)
    return None


def _resolve_segments(index: TitleIndex, segments: Sequence[Segment]) -> Resolved | None:
    """Follow a reference with quoted segments: exactly, one level per segment; a last segment
    that names no heading may name an item of the section before it. An exact title has the
    normalised one too, so the index narrows the search before the exact comparison."""
    first, rest = segments[0], segments[1:]
    if first.exact:
        found = index.nth(first.text, first.occurrence)
        if found is None:
            return None
        section = found
    else:
        matching = [s for s in index.get(norm(first.text), ()) if first.matches(s.title)]
        if len(matching) < first.occurrence:
            return None
        section = matching[first.occurrence - 1]
    if not rest:
        return Resolved(section)
    deeper = _resolve_segments(section.child_index(), rest)
    if deeper is not None or len(rest) > 1:
        return deeper
    key = rest[0]
    exact = next((it for it in section.items if it.key == key.text), None) if key.exact else None
    item = exact or section.find_item(key.text)
    return Resolved(section, item) if item is not None else None
