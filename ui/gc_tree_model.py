"""The GC's section tree as rows: title, tokens and item count, updated in place.

Each row holds its section's place in the shown GC's file order, not the section itself. A
follow-up of an edit inside one section keeps the tree's shape (no heading changed), so every
row keeps its place: the model takes the new version's sections, and only the rows of the
edited section and its parents are looked at (``GcTreeModel._follow``). Pointing every row at
its moved copy had cost 40 ms of an edit of a 20,000-section GC.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject

from models.session.gc import GlobalContext, Section
from ui.item_models import ALIGN, DISPLAY, RIGHT, TOOLTIP
from ui.node_model import SORT_ROLE, Node, NodeTreeModel, Spec, keyed


def _section_specs(sections: Sequence[Section], place: dict[int, int]) -> Sequence[Spec]:
    """Rows for ``sections`` and their subsections; a section without any has no call of its
    own (most have none: 13,000 calls of the ten-times GC's put-off rows)."""
    return keyed([(s.title, place[id(s)], _section_specs(s.children, place) if s.children else ()) for s in sections])


class GcTreeModel(NodeTreeModel):
    """The GC section tree with tokens and item counts per section."""

    headers = ("Section", "Tokens", "Items")
    shown_roles = frozenset({DISPLAY, SORT_ROLE, ALIGN, TOOLTIP})

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.total_tokens = 0
        # The shown GC's sections in file order; a row's payload is its section's place here.
        self._flat: Sequence[Section] = []
        # Subsection rows of each top-level section, with its place (held, so that its id stays
        # its own): a follow-up keeps the sections above an edit as they were, and the sync
        # skips them.
        self._subrows: dict[int, tuple[Section, int, Sequence[Spec]]] = {}
        self._shown: GlobalContext | None = None

    def set_gc(self, gc: GlobalContext | None, rows: int | None = None) -> bool:
        """Show ``gc``; whether every top-level section has its row. A follow-up of the GC
        shown takes its sections without touching the rows; any other version is synced by
        title, which keeps selection and expansion. ``rows`` (an open) makes the first so
        many top-level rows only: a call without it makes the others, as one insertion."""
        self.total_tokens = gc.tokens if gc else 0
        shown, self._shown = self._shown, gc
        if gc is None:
            self._flat, self._subrows = [], {}
            self.sync([])
            return True
        follow_up = gc.follow_up
        if (
            follow_up is not None
            and shown is not None
            and follow_up.previous() is shown
            and self._follow(gc, follow_up.edited, follow_up.top)
        ):
            return True
        self._flat = gc.flat()
        place = {id(s): n for n, s in enumerate(self._flat)}
        tops = gc.sections if rows is None or rows >= len(gc.sections) else gc.sections[:rows]
        subrows = {}
        for top in tops:
            at = place[id(top)]
            known = self._subrows.get(id(top))
            reuse = known is not None and known[0] is top and known[1] == at
            if known is not None and reuse:
                children = known[2]
            else:
                children = _section_specs(top.children, place) if top.children else ()
            subrows[id(top)] = (top, at, children)
        self._subrows = subrows
        self.sync(keyed([(s.title, place[id(s)], subrows[id(s)][2]) for s in tops]))
        return len(tops) == len(gc.sections)

    def forget(self) -> None:
        """The GC shown and its rows' sections go with the rows (another session's)."""
        self.total_tokens = 0
        self._flat, self._subrows, self._shown = [], {}, None

    @property
    def shown_gc(self) -> GlobalContext | None:
        """The GC the rows stand for (the last ``set_gc``)."""
        return self._shown

    def _follow(self, gc: GlobalContext, edited: Section, top: int) -> bool:
        """Show ``gc``, a follow-up of the shown GC, if its rows are those of the shown one:
        the edited section (under top-level section ``top``) and its parents get their new
        numbers, the other rows show their moved copies through their places. False (nothing
        changed) when a row does not match, which a follow-up never gives (no heading
        changed); the caller then syncs.
        """
        flat = gc.flat()
        if len(flat) != len(self._flat) or len(self._root.children) != len(gc.sections):
            return False
        chain: list[Section] = []
        node: Section | None = edited
        while node is not None:
            chain.insert(0, node)  # top-level section first
            node = node.parent
        numbers = [top, *(parent.children.index(child) for parent, child in itertools.pairwise(chain))]
        rows: list[Node] = []
        under = self._root.children
        for section, number in zip(chain, numbers, strict=True):
            if number >= len(under) or flat[under[number].payload] is not section:
                return False
            rows.append(under[number])
            under = under[number].children
        self._flat = flat
        last = len(self.headers) - 1
        for row in rows:
            signature = self.signature(row.payload)
            if signature != row.signature:
                row.signature = signature
                self.dataChanged.emit(self.createIndex(row.row, 0, row), self.createIndex(row.row, last, row))
        return True

    def index_of(self, section: Section) -> QModelIndex:
        """The row of ``section`` of the GC shown (invalid when it has none yet: an open makes
        the top-level rows past the first screenful after its first paint). Rows stand in the
        file's order, so each level's row is the section's place among its siblings."""
        chain: list[Section] = []
        node: Section | None = section
        while node is not None:
            chain.append(node)
            node = node.parent
        gc, index = self._shown, QModelIndex()
        if gc is None:
            return index
        siblings: Sequence[Section] = gc.sections
        for step in reversed(chain):
            row = next((n for n, s in enumerate(siblings) if s is step), -1)
            if not 0 <= row < self.rowCount(index):
                return QModelIndex()
            index = self.index(row, 0, index)
            siblings = step.children
        return index

    def resolve(self, payload: Any) -> Any:
        """The section a row stands for, in the GC shown now.

        While a sync is under way, rows it has not reached yet still hold their places in the
        last GC: one asked for in between stands for the section now at that place, or for
        None past the end (no data). Views paint after the sync, which sets every place."""
        return self._flat[payload] if payload < len(self._flat) else None

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Title, tokens and the own text the item count is read from: what the row shows,
        without reading every section's items (only the rows on screen ask for theirs)."""
        section = self._flat[payload]
        return (section.title, section.tokens, section.own_text)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Title, tokens (with share of the GC in the tooltip) and keyed-item count."""
        section: Section | None = self.resolve(payload)
        if section is None:
            return None
        if role == DISPLAY:
            return (
                section.title,
                f"{section.tokens:,}",
                str(len(section.items)) if section.items else "",
            )[column]
        if role == SORT_ROLE:
            return (section.line, section.tokens, len(section.items))[column]
        if role == ALIGN and column:
            return RIGHT
        if role == TOOLTIP:
            share = section.tokens / self.total_tokens * 100 if self.total_tokens else 0
            dup = f"\nDuplicate keys: {', '.join(section.duplicate_keys)}" if section.duplicate_keys else ""
            where = f"line {section.line + 1}"
            return f"{section.ref}\n{section.tokens:,} tokens ({share:.1f}% of the GC), {where}{dup}"
        return None
