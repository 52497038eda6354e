"""A thin QAbstractItemModel over a tree of plain nodes, updated by diffing, reset only for
another session.

The session is re-parsed on every change on disk, which yields new objects each time. Resetting
the model would drop the user's selection, expansion and scroll position, so ``sync`` compares
the new children of each node with the old ones by key and turns the difference into
``beginRemoveRows``/``beginInsertRows`` calls (before touching the data, as Qt requires) and
``dataChanged`` only for rows whose shown values changed: views answer every ``dataChanged``
by asking for the data again, which on a 20,000-row tree costs more than the parse itself.
Subclasses say how a payload is displayed and what of it is shown (its ``signature``).
"""

from __future__ import annotations

import html
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

AnyIndex = QModelIndex | QPersistentModelIndex

PAYLOAD_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2  # what a sortable column orders by, where it is not the text


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip that shows it literally: escaped, line breaks kept."""
    return "<qt><p style='white-space:pre-wrap'>" + html.escape(text) + "</p></qt>"


@dataclass(eq=False, slots=True)
class Node:
    """One row: a stable key among its siblings, what it shows, and its children."""

    key: Hashable
    payload: Any
    parent: Node | None = field(default=None, repr=False)
    children: list[Node] = field(default_factory=list, repr=False)
    signature: Hashable = None
    row: int = 0  # kept current by the model: views ask for parents of every visible row
    # The children specs this node was last synced with: a subclass that hands the very same
    # sequence again (a TEAM-MEMORY section the edit did not touch) has its subtree skipped.
    synced: Sequence[Spec] | None = field(default=None, repr=False)
    # Children not made into rows yet (a model with ``defer_children``): Qt asks for them with
    # fetchMore when the row is expanded, so a collapsed section of 500 entries costs nothing.
    pending: Sequence[Spec] | None = field(default=None, repr=False)


class Spec(NamedTuple):
    """What a node should become after a sync.

    A named tuple rather than a frozen dataclass: a sync of a large TEAM-MEMORY builds one
    per entry (20,000 of them), and a frozen dataclass's ``__init__`` costs three times as much.
    """

    key: Hashable
    payload: Any
    children: Sequence[Spec] = ()


def keyed(pairs: Sequence[tuple[str, Any, Sequence[Spec]]]) -> list[Spec]:
    """Specs whose keys stay unique when names repeat (``Notes``, ``Notes#2``, ...)."""
    seen: dict[str, int] = {}
    out: list[Spec] = []
    for name, payload, children in pairs:
        number = seen[name] = seen.get(name, 0) + 1
        out.append(Spec((name, number), payload, children))
    return out


def _sort_key(value: Any) -> tuple[int, Any]:
    """Numbers before text, each in its own order, so that a column holding both never fails."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value)
    return (1, "" if value is None else str(value))


def _renumber(node: Node) -> None:
    for number, child in enumerate(node.children):
        child.row = number


class NodeTreeModel(QAbstractItemModel):
    """Base for every item model of the window; subclasses implement ``display``."""

    headers: tuple[str, ...] = ()
    # The roles ``display`` may answer, where a subclass says (None: any). A view asks for
    # seven roles of every cell on each paint (font, alignment, two colours, check state, icon,
    # text), and a model that answers three made the other four into Python calls for nothing:
    # a tenth of painting the section tree.
    shown_roles: frozenset[int] | None = None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = Node(None, None)
        # Whether top-level rows built from now on keep their children as ``pending`` until
        # fetchMore: a subclass sets it for a large tree that is shown collapsed.
        self.defer_children = False
        self._sorted: tuple[int, Qt.SortOrder] | None = None  # set by a view that sorts
        self._given: dict[Hashable, int] = {}  # each top-level key's place in the last sync

    # -- what subclasses provide ---------------------------------------------------------

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Data for ``role`` in ``column`` of a row showing ``payload`` (None: no data)."""
        raise NotImplementedError

    def signature(self, payload: Any) -> Hashable:
        """What of ``payload`` the row shows; a row is repainted only when this changes."""
        raise NotImplementedError

    def texts(self, first: int, count: int) -> list[tuple[str, ...]]:
        """The shown texts of ``count`` top-level rows from row ``first``: what a table's
        columns are fitted to (``ui.column_fit``)."""
        columns = range(len(self.headers))
        display = Qt.ItemDataRole.DisplayRole
        return [
            tuple(str(self.display(node.payload, c, display) or "") for c in columns)
            for node in self._root.children[first : first + count]
        ]

    def resolve(self, payload: Any) -> Any:
        """The model object a row's payload stands for (``PAYLOAD_ROLE``, ``payload``): the
        payload itself, unless a subclass keeps its rows' objects elsewhere."""
        return payload

    # -- Qt overrides ----------------------------------------------------------------------

    def index(self, row: int, column: int, parent: AnyIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Index of a child; the internal pointer is the Node, kept alive by the tree."""
        node = self.node(parent)
        # Bounds checked here rather than with hasIndex(), which calls back into Python twice.
        if not (0 <= row < len(node.children) and 0 <= column < len(self.headers)):
            return QModelIndex()
        if parent.isValid() and parent.column() != 0:
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: AnyIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Parent of ``index``; top-level rows have the invalid index as parent."""
        if not index.isValid():
            return QModelIndex()
        node: Node = index.internalPointer()
        up = node.parent
        if up is None or up is self._root:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        """Children of ``parent``; only column 0 has children, as Qt's views expect."""
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        """The same columns at every level."""
        return len(self.headers)

    def hasChildren(self, parent: AnyIndex = QModelIndex()) -> bool:  # noqa: B008
        """Cheaper than rowCount for views that only draw expanders; rows not fetched yet count."""
        if not parent.isValid():
            node = self._root
        elif parent.column() != 0:
            return False
        else:
            node = parent.internalPointer()
        return bool(node.children) or bool(node.pending)

    def canFetchMore(self, parent: AnyIndex) -> bool:
        """True for a row whose children are still pending (see ``defer_children``)."""
        return parent.isValid() and parent.column() == 0 and bool(self.node(parent).pending)

    def fetchMore(self, parent: AnyIndex) -> None:
        """Make a row's pending children into rows (the view asks when the row is expanded)."""
        if not self.canFetchMore(parent):
            return
        node = self.node(parent)
        pending = node.pending or ()
        self.beginInsertRows(parent, 0, len(pending) - 1)
        node.pending = None
        node.children = [self._build(s, node) for s in pending]
        _renumber(node)
        self.endInsertRows()

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Delegates to ``display`` (roles outside ``shown_roles`` have no data);
        ``PAYLOAD_ROLE`` returns the model object itself.

        Tooltips hold text from session files; Qt would render one that looks like HTML (and
        load its ``<img>``), so each is handed over as escaped rich text, shown as written.
        """
        roles = self.shown_roles
        if roles is not None and role not in roles and role != PAYLOAD_ROLE:
            return None
        if not index.isValid():
            return None
        node: Node = index.internalPointer()
        if role == PAYLOAD_ROLE:
            return self.resolve(node.payload)
        value = self.display(node.payload, index.column(), role)
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(value, str) and value:
            return plain_tooltip(value)
        return value

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Column titles for horizontal headers."""
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.headers)
        ):
            return self.headers[section]
        return None

    # -- helpers -------------------------------------------------------------------------

    def node(self, index: AnyIndex) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    def payload(self, index: AnyIndex) -> Any:
        return self.resolve(self.node(index).payload) if index.isValid() else None

    def find(self, predicate: Any, parent: QModelIndex | None = None) -> QModelIndex:
        """First index (depth first) whose payload satisfies ``predicate``."""
        parent = parent or QModelIndex()
        for row in range(self.rowCount(parent)):
            idx = self.index(row, 0, parent)
            if predicate(self.payload(idx)):
                return idx
            deeper = self.find(predicate, idx)
            if deeper.isValid():
                return deeper
        return QModelIndex()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Order the top-level rows by ``column`` (``SORT_ROLE``, else the text) and keep them
        so through every sync; equal rows keep the order of the specs ``sync`` was last handed,
        which is therefore the session's, never the order shown.

        Sorting here rather than in a QSortFilterProxyModel: the proxy asks this model for an
        index and then its data for every cell a view touches, twice the calls into Python, and
        laying out and fitting the teammate table through it cost a tenth of opening a session.
        """
        self._sorted = (column, order)
        self._apply_sort()

    def clear(self) -> None:
        """Drop every row as one reset, for another session: its rows have nothing to keep
        of the last one's, neither selection nor expansion nor rows already made, while a sync
        compared them row by row and made, under each TEAM-MEMORY section named as one of the
        last session's, every entry a large file would have kept pending."""
        if not self._root.children:
            return
        self.beginResetModel()
        self._root.children = []
        self._given = {}
        self.forget()
        self.endResetModel()

    def forget(self) -> None:
        """Drop what a subclass keeps of the rows shown (``clear``, inside its reset)."""

    def sync(self, specs: Sequence[Spec]) -> None:
        """Make the tree match ``specs`` with the fewest structural signals."""
        if self._sorted is not None:
            # Rows already shown keep their places, new ones come last; the sort then moves
            # them as one layout change, which keeps the selection on the rows it was on.
            self._given = {spec.key: n for n, spec in enumerate(specs)}
            shown = {child.key: n for n, child in enumerate(self._root.children)}
            specs = sorted(specs, key=lambda spec: shown.get(spec.key, len(shown)))
        self._sync_children(self._root, QModelIndex(), specs)
        if self._sorted is not None:
            self._apply_sort()

    def _apply_sort(self) -> None:
        assert self._sorted is not None
        column, order = self._sorted
        root = self._root
        given = self._given
        by_session = sorted(root.children, key=lambda child: given.get(child.key, len(given)))
        rows = sorted(
            by_session,
            key=lambda child: _sort_key(self._sort_value(child.payload, column)),
            reverse=order == Qt.SortOrder.DescendingOrder,  # stable: equal rows keep their order
        )
        if all(a is b for a, b in zip(rows, root.children, strict=True)):
            return
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        places = [(index.internalPointer(), index.column()) for index in before]
        root.children = rows
        _renumber(root)
        self.changePersistentIndexList(before, [self.createIndex(node.row, col, node) for node, col in places])
        self.layoutChanged.emit()

    def _sort_value(self, payload: Any, column: int) -> Any:
        value = self.display(payload, column, SORT_ROLE)
        return self.display(payload, column, Qt.ItemDataRole.DisplayRole) if value is None else value

    def _sync_children(self, node: Node, index: QModelIndex, specs: Sequence[Spec]) -> None:
        old_keys = [c.key for c in node.children]
        new_keys = [s.key for s in specs]
        built: set[int] = set()  # rows made from their specs here: nothing to compare
        if old_keys != new_keys:
            matcher = SequenceMatcher(None, old_keys, new_keys, autojunk=False)
            # Back to front, so that the rows of earlier opcodes keep their numbers.
            for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
                if tag in ("delete", "replace"):
                    self.beginRemoveRows(index, i1, i2 - 1)
                    del node.children[i1:i2]
                    _renumber(node)
                    self.endRemoveRows()
                if tag in ("insert", "replace"):
                    self.beginInsertRows(index, i1, i1 + (j2 - j1) - 1)
                    made = [self._build(s, node) for s in specs[j1:j2]]
                    built.update(map(id, made))
                    node.children[i1:i1] = made
                    _renumber(node)
                    self.endInsertRows()
        changed = [
            row
            for row, pair in enumerate(zip(node.children, specs, strict=True))
            if id(pair[0]) not in built and self._sync_row(*pair, index)
        ]
        self._announce(changed, index)

    def _sync_row(self, child: Node, spec: Spec, index: QModelIndex) -> bool:
        """Make ``child`` (a row under ``index``) show ``spec``; whether its shown values changed."""
        child.payload = spec.payload
        signature = self.signature(spec.payload)
        changed = signature != child.signature
        child.signature = signature
        if spec.children is child.synced:
            return changed  # the same specs as last time: nothing below can have changed
        if child.pending is not None:  # not fetched: no rows below to change, nor to announce
            child.pending = spec.children
        elif child.children or spec.children:
            self._sync_children(child, self.index(child.row, 0, index), spec.children)
        child.synced = spec.children
        return changed

    def _announce(self, rows: list[int], index: QModelIndex) -> None:
        """One ``dataChanged`` over the rows (under ``index``) whose shown values changed."""
        if rows:
            last_column = len(self.headers) - 1
            self.dataChanged.emit(self.index(rows[0], 0, index), self.index(rows[-1], last_column, index))

    def _build(self, spec: Spec, parent: Node) -> Node:
        node = Node(spec.key, spec.payload, parent, signature=self.signature(spec.payload), synced=spec.children)
        if self.defer_children and parent is self._root and spec.children:
            node.pending = spec.children
            return node
        node.children = [self._build(child, node) for child in spec.children]
        _renumber(node)
        return node
