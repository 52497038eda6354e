"""The GC's section tree as rows: title, tokens and item count, updated in place.

A follow-up of an edit inside one section keeps the tree's shape (no heading changed), so the
rows are pointed at the new version's sections rather than diffed (``GcTreeModel._rebind``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from models.session.gc import GlobalContext, Section
from ui.item_models import ALIGN, DISPLAY, RIGHT, SORT_ROLE, TOOLTIP
from ui.node_model import Node, NodeTreeModel, Spec, keyed


def _section_specs(sections: list[Section]) -> list[Spec]:
    return keyed([(s.title, s, _section_specs(s.children)) for s in sections])


class _ShapeChanged(Exception):
    """The section tree no longer matches the rows (a follow-up never does this)."""


class GcTreeModel(NodeTreeModel):
    """The GC section tree with tokens and item counts per section."""

    headers = ("Section", "Tokens", "Items")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.total_tokens = 0
        # Subsection rows of each top-level section (held, so that its id stays its own): a
        # follow-up keeps the sections above an edit as they were, and the sync skips them.
        self._subrows: dict[int, tuple[Section, list[Spec]]] = {}
        self._shown: GlobalContext | None = None

    def set_gc(self, gc: GlobalContext | None) -> None:
        self.total_tokens = gc.tokens if gc else 0
        shown, self._shown = self._shown, gc
        if gc is None:
            self._subrows = {}
            self.sync([])
            return
        follow_up = gc.follow_up
        if follow_up is not None and shown is not None and follow_up.previous() is shown:
            try:
                self._rebind(gc, follow_up.first_copied)
                return
            except _ShapeChanged:
                pass  # cannot happen for a follow-up (no heading changed); a sync mends it
        subrows = {}
        for top in gc.sections:
            known = self._subrows.get(id(top))
            children = known[1] if known is not None and known[0] is top else _section_specs(top.children)
            subrows[id(top)] = (top, children)
        self._subrows = subrows
        self.sync(keyed([(s.title, s, subrows[id(s)][1]) for s in gc.sections]))

    def _rebind(self, gc: GlobalContext, first: int) -> None:
        """Point the rows of the sections a follow-up copied at the copies.

        A follow-up changes no heading, so the tree keeps its shape: the rows from the first
        copied top-level section on show the same sections, moved, and only the edited
        section and its parents show new numbers. Walking rows and sections side by side costs
        far less than building and diffing specs for every moved row.
        """
        rows = self._root.children
        if len(rows) != len(gc.sections):
            raise _ShapeChanged
        for row, top in zip(rows[first:], gc.sections[first:], strict=True):
            self._subrows.pop(id(row.payload), None)
            self._rebind_row(row, top)

    def _rebind_row(self, node: Node, section: Section) -> None:
        if node.payload.title != section.title or len(node.children) != len(section.children):
            raise _ShapeChanged
        node.payload = section
        node.synced = None  # its specs name the old sections: a later sync builds them anew
        signature = self.signature(section)
        if signature != node.signature:
            node.signature = signature
            last = len(self.headers) - 1
            self.dataChanged.emit(self.createIndex(node.row, 0, node), self.createIndex(node.row, last, node))
        for child, sub in zip(node.children, section.children, strict=True):
            self._rebind_row(child, sub)

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Title, tokens and the own text the item count is read from: what the row shows,
        without reading every section's items (only the rows on screen ask for theirs)."""
        return (payload.title, payload.tokens, payload.own_text)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Title, tokens (with share of the GC in the tooltip) and keyed-item count."""
        section: Section = payload
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
