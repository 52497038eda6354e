"""The window's item models: thin adapters from ``models/`` objects to rows and columns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtGui import QFont

from models.session.gates import GateRecord
from models.session.memory_entries import MemoryEntry
from models.session.team_memory import MemoryQuery, MemorySection, TeamMemory
from models.session.versions import label
from ui.lazy_specs import LazySpecs
from ui.node_model import NodeTreeModel, Spec, keyed
from ui.tones import tones

DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
ALIGN = Qt.ItemDataRole.TextAlignmentRole
FOREGROUND = Qt.ItemDataRole.ForegroundRole
BACKGROUND = Qt.ItemDataRole.BackgroundRole
FONT = Qt.ItemDataRole.FontRole
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _more_than(limit: int, groups: Iterable[Sequence[Spec]]) -> bool:
    """Whether the groups hold more than ``limit`` rows in all, counted only until they do."""
    total = 0
    for group in groups:
        total += len(group)
        if total > limit:
            return True
    return False


DEFER_ENTRIES = 2_000  # above this many entries, a section's rows are made when it is expanded


class MemoryModel(NodeTreeModel):
    """TEAM-MEMORY as sections with their entries as children, filtered by a ``MemoryQuery``.

    The filter lives here rather than in a QSortFilterProxyModel: with recursive filtering,
    the proxy re-examined all 20,000 rows of a large file on every insert (over a second per
    live update), while syncing only the matching entries costs a diff of what changed.
    With a query active, sections without a matching entry are left out.
    """

    headers = ("Entry", "Tag")
    shown_roles = frozenset({DISPLAY, FONT, TOOLTIP, FOREGROUND})

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.memory: TeamMemory | None = None
        self.query = MemoryQuery()
        # The entry rows of each section by its body (held, so that its id stays its own), for
        # the query they were built for: a follow-up re-parses one section, the others share
        # their bodies, and their rows are handed over as the same specs, which the sync skips.
        self._rows: dict[int, tuple[str, Sequence[Spec]]] = {}

    def set_memory(self, memory: TeamMemory | None) -> None:
        shown, self.memory = self.memory, memory
        if memory is not None and shown is not None and self._follow_edit(memory, shown):
            return
        self._refresh()

    def forget(self) -> None:
        """The TEAM-MEMORY shown and its sections' rows go with the rows (another session's)."""
        self.memory = None
        self._rows = {}

    def entry_count(self) -> int:
        """Entries shown right now (after the query), fetched as rows or not."""
        return sum(len(section.children) or len(section.pending or ()) for section in self.node(QModelIndex()).children)

    def set_query(self, query: MemoryQuery) -> None:
        if query != self.query:
            self.query = query
            self._rows = {}
            self._refresh()

    def _refresh(self) -> None:
        if self.memory is None:
            self.sync([])
            return
        if self._follow(self.memory):
            return
        specs = []
        active = self.query.active
        rows: dict[int, tuple[str, Sequence[Spec]]] = {}
        for section in self.memory.sections:
            body = section.body
            known = self._rows.get(id(body))
            children = known[1] if known is not None and known[0] is body else self._entry_rows(section)
            rows[id(body)] = (body, children)
            if children or not active:
                specs.append((section.header, section, children))
        self._rows = rows
        # A file far past ADR-001's limit is shown collapsed (MemoryPane): its entries become
        # rows when their section is expanded, not 20,000 of them on every open.
        self.defer_children = _more_than(DEFER_ENTRIES, (c for _, _, c in specs))
        self.sync(keyed(specs))

    def _follow(self, memory: TeamMemory) -> bool:
        """Show ``memory`` when every top-level row already shows its section: the same headers
        in the same order and no query (a follow-up of an edit inside a section). A row whose
        section has the body it was built from takes the new section object (its lines moved);
        only the others are synced. False, and nothing done, otherwise: the full sync walked
        every row of a ten-times TEAM-MEMORY, 1 ms of each append."""
        rows, sections = self._root.children, memory.sections
        if self.query.active or len(rows) != len(sections):
            return False
        if any(row.key != (section.header, row.key[1]) for row, section in zip(rows, sections, strict=True)):  # type: ignore[index]
            return False  # keys are (header, occurrence): the same headers in order give the same keys
        changed: list[int] = []
        for number, (row, section) in enumerate(zip(rows, sections, strict=True)):
            if section.body is row.payload.body:
                row.payload = section
            else:
                changed += self._take(number, section)
        self._announce(changed, QModelIndex())
        return True

    def _follow_edit(self, memory: TeamMemory, shown: TeamMemory) -> bool:
        """``_follow`` for a follow-up that says it changed one section of the version shown
        (``TeamMemory.follow_up``): the headers are known to be the same, so only that row is
        synced, and the rows below take their moved section objects without a look at each."""
        edit = memory.follow_up
        rows, sections = self._root.children, memory.sections
        if edit is None or edit.previous() is not shown or self.query.active or len(rows) != len(sections):
            return False
        k = edit.index
        for row, section in zip(rows[k + 1 :], sections[k + 1 :], strict=True):
            row.payload = section
        self._announce(self._take(k, sections[k]), QModelIndex())
        return True

    def _take(self, number: int, section: MemorySection) -> list[int]:
        """Row ``number`` shows ``section``, whose body changed; ``[number]`` when what the row
        shows changed, else none."""
        row = self._root.children[number]
        was = row.payload.body
        if self._rows.get(id(was), ("",))[0] is was:
            del self._rows[id(was)]
        children = self._entry_rows(section)
        self._rows[id(section.body)] = (section.body, children)
        return [number] if self._sync_row(row, Spec(row.key, section, children), QModelIndex()) else []

    def _entry_rows(self, section: MemorySection) -> Sequence[Spec]:
        """The section's entry rows; without a query, made (and the entries read) when the
        section is expanded, its count known before."""
        query = self.query
        if query.active:
            return keyed([(e.text, e, ()) for e in section.entries if query.matches(e)])
        return LazySpecs(
            lambda: keyed([(e.text, e, ()) for e in section.entries]),
            lambda: section.entry_count,
            lambda: section.has_entries,
        )

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Header, body (its count is what the row shows of it, counted only for the rows on
        screen) and marker for sections; text, tag and archived flag for entries."""
        if isinstance(payload, MemorySection):
            return (payload.header, payload.body, payload.replaced)
        return (payload.text, payload.tag, payload.archived)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Sections show their header and count; archived entries are grey and italic."""
        if isinstance(payload, MemorySection):
            if role == DISPLAY:
                if column == 0:
                    return f"{payload.header}  ({payload.entry_count})"
                return ""
            if role == FONT:
                font = QFont()
                font.setBold(True)
                font.setStrikeOut(payload.replaced)
                return font
            if role == TOOLTIP:
                return f"Lines {payload.line + 1}–{payload.end_line}" + (" · replaced" if payload.replaced else "")
            return None
        entry: MemoryEntry = payload
        if role == DISPLAY:
            return (entry.summary, entry.tag or "")[column]
        if role == TOOLTIP:
            return entry.text
        if role == FOREGROUND and (entry.archived or (column == 1 and not entry.known_tag)):
            return tones().muted
        if role == FONT and entry.archived:
            font = QFont()
            font.setItalic(True)
            return font
        return None


class GateModel(NodeTreeModel):
    """Gate history: phase, verdict, date, the GC versions the gate moved between, and the file
    (or the plan's line) each was read from: a phase may have several records."""

    headers = ("Phase", "Verdict", "Date", "GC", "Read from")

    def set_gates(self, gates: list[GateRecord]) -> None:
        self.sync(keyed([(g.path, g, ()) for g in gates]))

    def signature(self, payload: Any) -> tuple[object, ...]:
        gate: GateRecord = payload
        return (gate.phase, gate.verdict, gate.date, gate.gc_in, gate.gc_out)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Verdicts are coloured: green approved, amber conditional, red anything else. A record
        in its own phase's folder is named by its file alone (the Phase column says the folder;
        the tooltip, the whole path): the name tells a phase's records apart at a laptop's width."""
        gate: GateRecord = payload
        if role == DISPLAY:
            moved = f"{label(gate.gc_in)} → {label(gate.gc_out)}" if gate.gc_in or gate.gc_out else ""
            phase = "?" if gate.phase is None else str(gate.phase)
            path = gate.path.removeprefix(f"phase-{phase}/")
            return (phase, gate.verdict or "?", gate.date or "", moved, path)[column]
        if role == FOREGROUND and column == 1 and gate.verdict:
            verdict = gate.verdict.upper()
            if verdict in ("APPROVED", "PASS", "PASSED"):
                return tones().good
            return tones().amber if "CONDITIONAL" in verdict else tones().red
        if role == TOOLTIP:
            return gate.path
        return None
