"""The window's item models: thin adapters from ``models/`` objects to rows and columns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from models.claude.status import TeamRow
from models.session.gates import GateRecord
from models.session.memory_entries import MemoryEntry
from models.session.team_memory import MemoryQuery, MemorySection, TeamMemory
from models.session.teammates import Teammate
from models.session.versions import label
from ui.node_model import SORT_ROLE, LazySpecs, NodeTreeModel, Spec, keyed

DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
ALIGN = Qt.ItemDataRole.TextAlignmentRole
FOREGROUND = Qt.ItemDataRole.ForegroundRole
BACKGROUND = Qt.ItemDataRole.BackgroundRole
FONT = Qt.ItemDataRole.FontRole
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

WARN_BG = QColor("#fff3cd")
BAD_BG = QColor("#f8d7da")
GOOD_FG = QColor("#1e7b34")
MUTED_FG = QColor("#7a7a7a")
# Made once: a view asks for every visible cell's colours on each paint and each fit of the
# columns, and making a brush per answer was most of what those answers cost.
WARN_BRUSH, BAD_BRUSH, GOOD_BRUSH, MUTED_BRUSH = (QBrush(c) for c in (WARN_BG, BAD_BG, GOOD_FG, MUTED_FG))


_STATUS_ICONS = {"CONTEXT_LOST": "✖ ", "BLOCKED": "⛔ ", "CONTEXT_PRESSURE": "⚠ ", "COMPLETE": "✔ "}
_STATUS_BRUSHES = {
    "CONTEXT_LOST": BAD_BRUSH,
    "BLOCKED": BAD_BRUSH,
    "CONTEXT_PRESSURE": WARN_BRUSH,
}


class TeammateModel(NodeTreeModel):
    """One row per teammate: what it confirmed, what it was sent, its status, who names it."""

    headers = (
        "Teammate",
        "Confirmed",
        "Last sent",
        "ACK",
        "Status",
        "Delivery",
        "Context",
        "Compacted",
        "Due",
        "Member",
        "State",
        "Sources",
    )
    # The key facts first, so that they fit a laptop's width; who the member is comes later.
    DELIVERY, CONTEXT, COMPACTIONS, DUE, MEMBER = 5, 6, 7, 8, 9

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.current: int | None = None
        self.acks: dict[str, str] = {}
        self.due: dict[str, str] = {}
        self.team: dict[str, TeamRow] = {}  # a linked Claude Code team's view, per role
        # In the session's order, whatever the table is sorted by: rows that sort alike keep it.
        self._rows: list[Spec] = []

    def set_teammates(self, teammates: list[Teammate], current: int | None) -> None:
        self.current = current
        self._rows = [Spec(t.role, t) for t in teammates]
        self.sync(self._rows)

    def set_reviews(self, acks: dict[str, str], due: dict[str, str]) -> None:
        """The last ACK result and the action due, per teammate (from the Inbox)."""
        self.acks, self.due = acks, due
        self.sync(self._rows)

    def set_team(self, rows: dict[str, TeamRow]) -> None:
        """Member, delivery, context and compactions per teammate (from a linked team)."""
        self.team = rows
        self.sync(self._rows)

    def _behind(self, mate: Teammate) -> bool:
        return self.current is not None and mate.confirmed is not None and mate.confirmed < self.current

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Every shown field, and whether the teammate is behind the current GC (the tint)."""
        mate: Teammate = payload
        due = (self.acks.get(mate.role), self.due.get(mate.role))
        state = (mate.state, tuple(f.describe() for f in mate.state_facts))
        team = self.team.get(mate.role)
        linked = team.data() if team is not None else None
        return (
            mate.role,
            mate.confirmed,
            mate.sent,
            mate.status,
            tuple(mate.sources),
            self.current,
            due,
            state,
            str(linked),
        )

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Versions as GC-vN; behind or lost teammates are tinted, confirmed-current is green."""
        mate: Teammate = payload
        if role in (DISPLAY, SORT_ROLE):
            due = self.due.get(mate.role, "")
            team = self.team.get(mate.role)
            cells = team_cells(team)
            values = (
                mate.role,
                label(mate.confirmed),
                label(mate.sent),
                self.acks.get(mate.role, ""),
                f"{_STATUS_ICONS.get(mate.status or '', '')}{mate.status or ''}",
                *cells[1:],
                f"⚑ {due}" if due else "",
                cells[0],
                mate.state if mate.receives else f"{mate.state} (not sent)",
                ", ".join(mate.sources),
            )
            if role == SORT_ROLE and column in (1, 2):
                version = mate.confirmed if column == 1 else mate.sent
                return -1 if version is None else version
            return values[column]
        if role == BACKGROUND:
            if column == 4 and mate.status in _STATUS_BRUSHES:
                return _STATUS_BRUSHES[mate.status]
            if column == self.DUE and self.due.get(mate.role):
                return WARN_BRUSH
            team = self.team.get(mate.role)
            if team is not None and column == self.COMPACTIONS and team.lost_since:
                return BAD_BRUSH
            if team is not None and column == self.CONTEXT and team.context is not None and team.context.pressure:
                return WARN_BRUSH
            if team is not None and column == self.DELIVERY and team.followed and team.followed.delivered_ts is None:
                return WARN_BRUSH
            if column == 1 and self._behind(mate):
                return WARN_BRUSH
        if role == FOREGROUND and column == 1 and mate.confirmed is not None and mate.confirmed == self.current:
            return GOOD_BRUSH
        if role == FOREGROUND and not mate.receives:
            return MUTED_BRUSH
        if role == TOOLTIP:
            if column == 1 and self._behind(mate):
                return f"Confirmed {label(mate.confirmed)}, the GC is at {label(self.current)}"
            if column == 2 and mate.last_delta is not None:
                d = mate.last_delta
                when = d.timestamp or "time unknown"
                return f"Sent {label(d.sent_version)}, {d.delta_size or '?'} tokens, {when}"
            if column in (self.MEMBER, self.DELIVERY, self.CONTEXT, self.COMPACTIONS):
                which = (self.MEMBER, self.DELIVERY, self.CONTEXT, self.COMPACTIONS).index(column)
                return team_tooltip(self.team.get(mate.role), which)
            if column == 10:
                read = [f.describe() for f in mate.state_facts] or [mate.state_source]
                return "Newest first:\n" + "\n".join(read) + "\n(right-click to set the state)"
            if column == 11:
                return "Where this teammate is named: " + ", ".join(mate.sources)
        return None


def _more_than(limit: int, groups: Iterable[Sequence[Spec]]) -> bool:
    """Whether the groups hold more than ``limit`` rows in all, counted only until they do."""
    total = 0
    for group in groups:
        total += len(group)
        if total > limit:
            return True
    return False


def _bar(share: float, cells: int = 5) -> str:
    full = min(cells, round(share * cells))
    return "▰" * full + "▱" * (cells - full)


def team_cells(team: TeamRow | None) -> tuple[str, str, str, str]:
    """Member, delivery of the last update, context held (with a bar), compactions."""
    if team is None:
        return ("", "", "", "")
    f, c = team.followed, team.context
    delivery = f.state if f is not None else ""
    held = c.tokens if c is not None else None
    context = f"{_bar(c.share)} {held / 1000:.0f}k/{c.window // 1000}k" if c is not None and held is not None else ""
    compactions = ""
    if c is not None and c.compactions:
        compactions = f"{len(c.compactions)}" + (" ⚠ lost" if team.lost_since else "")
    return (team.member or "—", delivery, context, compactions)


def team_tooltip(team: TeamRow | None, which: int) -> str | None:
    """What lies behind each team cell: where it was read and what it means."""
    if team is None:
        return None
    f, c = team.followed, team.context
    if which == 0:
        return f"Claude Code member {team.member}" if team.member else "No member: nothing is delivered to this role"
    if which == 1 and f is not None:
        if f.delivered_ts is None:
            return f"{f.file}: not delivered" + (f" ({f.reason})" if f.reason else "") + "; Deliver retries"
        picked = {None: "pickup unknown", True: "picked up", False: "not picked up yet"}[f.picked_up]
        return f"{f.file} written to the inbox at {f.delivered_ts}; {picked}; {'ACKed' if f.acked else 'no ACK yet'}"
    if which == 2 and c is not None and c.tokens is not None:
        where = c.transcript.name if c.transcript else "?"
        pressure = " — CONTEXT_PRESSURE" if c.pressure else ""
        model = c.model or "model unknown"
        return f"{c.tokens:,} of {c.window:,} tokens ({model}) at {c.last_response}, from {where}{pressure}"
    if which == 3 and c is not None and c.compactions:
        lost = (
            f"\nCompacted after its GC was delivered: presumed CONTEXT_LOST (FC-2) since {team.lost_since}"
            if team.lost_since
            else ""
        )
        return "Compactions: " + ", ".join(c.compactions) + lost
    return None


DEFER_ENTRIES = 2_000  # above this many entries, a section's rows are made when it is expanded


class MemoryModel(NodeTreeModel):
    """TEAM-MEMORY as sections with their entries as children, filtered by a ``MemoryQuery``.

    The filter lives here rather than in a QSortFilterProxyModel: with recursive filtering,
    the proxy re-examined all 20,000 rows of a large file on every insert (over a second per
    live update), while syncing only the matching entries costs a diff of what changed.
    With a query active, sections without a matching entry are left out.
    """

    headers = ("Entry", "Tag")

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
            return MUTED_BRUSH
        if role == FONT and entry.archived:
            font = QFont()
            font.setItalic(True)
            return font
        return None


class GateModel(NodeTreeModel):
    """Gate history: phase, verdict, date and the GC versions the gate moved between."""

    headers = ("Phase", "Verdict", "Date", "GC")

    def set_gates(self, gates: list[GateRecord]) -> None:
        self.sync(keyed([(g.path, g, ()) for g in gates]))

    def signature(self, payload: Any) -> tuple[object, ...]:
        gate: GateRecord = payload
        return (gate.phase, gate.verdict, gate.date, gate.gc_in, gate.gc_out)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Verdicts are coloured: green approved, amber conditional, red anything else."""
        gate: GateRecord = payload
        if role == DISPLAY:
            moved = f"{label(gate.gc_in)} → {label(gate.gc_out)}" if gate.gc_in or gate.gc_out else ""
            phase = "?" if gate.phase is None else str(gate.phase)
            return (phase, gate.verdict or "?", gate.date or "", moved)[column]
        if role == FOREGROUND and column == 1 and gate.verdict:
            verdict = gate.verdict.upper()
            if verdict in ("APPROVED", "PASS", "PASSED"):
                return GOOD_BRUSH
            return QBrush(QColor("#9a6700") if "CONDITIONAL" in verdict else QColor("#b42318"))
        if role == TOOLTIP:
            return gate.path
        return None
