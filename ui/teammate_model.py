"""The teammate table's model: one row per teammate, with what a linked Claude Code team adds."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QObject, Signal

from models.claude.following import Followed
from models.claude.status import TeamRow
from models.claude.transcript_read import TeammateContext
from models.session.teammates import Teammate
from models.session.versions import label
from ui.item_models import BACKGROUND, DISPLAY, FOREGROUND, TOOLTIP
from ui.node_model import SORT_ROLE, NodeTreeModel, Spec
from ui.tones import tones

_STATUS_ICONS = {"CONTEXT_LOST": "✖ ", "BLOCKED": "⊘ ", "CONTEXT_PRESSURE": "⚠ ", "COMPLETE": "✔ "}  # in DejaVu Sans
_BAD_STATUSES = frozenset({"CONTEXT_LOST", "BLOCKED"})


class TeammateModel(NodeTreeModel):
    """One row per teammate: what it confirmed, what it was sent, its status, who names it."""

    headers = (
        "Teammate",
        "Confirmed",
        "Last sent",
        "ACK",
        "Status",
        "Due",
        "Delivery",
        "Context",
        "Compacted",
        "Member",
        "State",
        "Sources",
    )
    shown_roles = frozenset({DISPLAY, SORT_ROLE, BACKGROUND, FOREGROUND, TOOLTIP})
    # The key facts first, so that they fit a laptop's width (what is due among them: at the
    # end it was past the pane's edge at 1366 pixels); what a linked team adds comes later.
    CONFIRMED, SENT, ACK, STATUS, DUE = 1, 2, 3, 4, 5
    DELIVERY, CONTEXT, COMPACTIONS, MEMBER, STATE, SOURCES = 6, 7, 8, 9, 10, 11
    TEAM_COLUMNS = (DELIVERY, CONTEXT, COMPACTIONS, MEMBER)  # empty while no team is linked

    linkedChanged = Signal(bool)  # whether a Claude Code team's view fills the team columns

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.current: int | None = None
        self.acks: dict[str, str] = {}
        self.due: dict[str, tuple[str, str]] = {}  # per role: the cell's text, and its tooltip
        self.team: dict[str, TeamRow] = {}  # a linked Claude Code team's view, per role
        self.linked = False  # whether a team is linked: without one the team columns say nothing
        # In the session's order, whatever the table is sorted by: rows that sort alike keep it.
        self._rows: list[Spec] = []
        # Each row's texts, per role, made when first asked for since the table last changed.
        self._texts: dict[str, tuple[Teammate, tuple[str, ...]]] = {}

    def set_teammates(self, teammates: list[Teammate], current: int | None) -> None:
        self.current = current
        self._rows = [Spec(t.role, t) for t in teammates]
        self._texts = {}
        self.sync(self._rows)

    def forget(self) -> None:
        """The teammates shown go with the rows (another session's); the Inbox's and the
        team's columns follow with their own next update."""
        self._rows, self._texts = [], {}

    def set_reviews(self, acks: dict[str, str], due: dict[str, tuple[str, str]]) -> None:
        """The last ACK result and the action due, per teammate (from the Inbox): a word or
        two in the cell, since when and why in its tooltip."""
        self.acks, self.due = acks, due
        self._texts = {}
        self.sync(self._rows)

    def set_team(self, rows: dict[str, TeamRow], linked: bool = True) -> None:
        """Member, delivery, context and compactions per teammate (from the team's view, which
        has a row per role whether or not a team is ``linked``)."""
        self.team = rows
        self._texts = {}
        self.sync(self._rows)
        if linked != self.linked:
            self.linked = linked
            self.linkedChanged.emit(linked)

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

    def row_texts(self, mate: Teammate) -> tuple[str, ...]:
        """The texts of ``mate``'s row, made once per change of the table: a view asks for
        every cell's text on each paint, and each answer made the whole row."""
        made = self._texts.get(mate.role)
        if made is not None and made[0] is mate:
            return made[1]
        due = self.due.get(mate.role, ("", ""))[0]
        cells = team_cells(self.team.get(mate.role))
        texts = (
            mate.role,
            label(mate.confirmed),
            label(mate.sent),
            self.acks.get(mate.role, ""),
            f"{_STATUS_ICONS.get(mate.status or '', '')}{mate.status or ''}",
            f"⚑ {due}" if due else "",
            *cells[1:],
            cells[0],
            mate.state if mate.receives else f"{mate.state} (not sent)",
            ", ".join(mate.sources),
        )
        self._texts[mate.role] = (mate, texts)
        return texts

    def texts(self, first: int, count: int) -> list[tuple[str, ...]]:
        """The texts of ``count`` rows from row ``first``, as shown (sorted): what the columns
        are fitted to."""
        return [self.row_texts(node.payload) for node in self._root.children[first : first + count]]

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Versions as GC-vN; behind or lost teammates are tinted, confirmed-current is green."""
        mate: Teammate = payload
        if role in (DISPLAY, SORT_ROLE):
            if role == SORT_ROLE and column in (self.CONFIRMED, self.SENT):
                version = mate.confirmed if column == self.CONFIRMED else mate.sent
                return -1 if version is None else version
            return self.row_texts(mate)[column]
        if role == BACKGROUND:
            if column == self.STATUS and mate.status in _BAD_STATUSES:
                return tones().bad
            if column == self.STATUS and mate.status == "CONTEXT_PRESSURE":
                return tones().warn
            if column == self.DUE and self.due.get(mate.role):
                return tones().warn
            team = self.team.get(mate.role)
            if team is not None and column == self.COMPACTIONS and team.lost_since:
                return tones().bad
            if team is not None and column == self.CONTEXT and team.context is not None and team.context.pressure:
                return tones().warn
            if team is not None and column == self.DELIVERY and team.followed and _needs_lead(team.followed):
                return tones().warn
            if column == self.CONFIRMED and self._behind(mate):
                return tones().warn
        current = mate.confirmed is not None and mate.confirmed == self.current
        if role == FOREGROUND and column == self.CONFIRMED and current:
            return tones().good
        if role == FOREGROUND and not mate.receives:
            return tones().muted
        if role == TOOLTIP:
            if column == 0:  # what the hidden-by-default columns hold, on the row's name
                row = self.team.get(mate.role) if self.linked else None
                member = f"Claude Code member: {row.member or '(not found)'}\n" if row is not None else ""
                return f"{member}Named in: {', '.join(mate.sources)}"
            if column == self.CONFIRMED and self._behind(mate):
                return f"Confirmed {label(mate.confirmed)}, the GC is at {label(self.current)}"
            if column == self.SENT and mate.last_delta is not None:
                d = mate.last_delta
                when = d.timestamp or "time unknown"
                return f"Sent {label(d.sent_version)}, {d.delta_size or '?'} tokens, {when}"
            if column in (self.MEMBER, self.DELIVERY, self.CONTEXT, self.COMPACTIONS):
                which = (self.MEMBER, self.DELIVERY, self.CONTEXT, self.COMPACTIONS).index(column)
                return team_tooltip(self.team.get(mate.role), which)
            if column == self.DUE and mate.role in self.due:
                return self.due[mate.role][1]
            if column == self.STATE:
                read = [f.describe() for f in mate.state_facts] or [mate.state_source]
                return "Newest first:\n" + "\n".join(read) + "\n(right-click to set the state)"
            if column == self.SOURCES:
                return "Where this teammate is named: " + ", ".join(mate.sources)
        return None


TROUBLE = ("undelivered", "undecided", "lost")  # states the Lead has to act on


def _needs_lead(f: Followed) -> bool:
    """The Lead has to act: not delivered, undecided, lost, or picked up long ago and never seen
    by the model."""
    return f.state in TROUBLE or f.unreceived(datetime.now(UTC))


def window_label(c: TeammateContext) -> str:
    """200k, 1M; with a question mark when the window is assumed, not known."""
    size = f"{c.window / 1_000_000:g}M" if c.window >= 1_000_000 else f"{c.window // 1000}k"
    return size + ("?" if c.window_source.startswith("assumed") else "")


def team_cells(team: TeamRow | None) -> tuple[str, str, str, str]:
    """Member, delivery of the last update, context held, compactions. The context is the
    numbers alone (a context near its window is toned, its tooltip says the share): a bar
    beside them took the width that let the table fit a laptop."""
    if team is None:
        return ("", "", "", "")
    f, c = team.followed, team.context
    delivery = f.state if f is not None else ""
    held = c.tokens if c is not None else None
    context = f"{held / 1000:.0f}k/{window_label(c)}" if c is not None and held is not None else ""
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
        if not team.member:
            return "No member: nothing is delivered to this role"
        return f"Claude Code member {team.member}; it sees the Lead's messages from {team.sender}"
    if which == 1 and f is not None:
        if f.held:
            return f"{f.file}: held until {f.member or 'the teammate'}'s next compaction; then Deliver sends it"
        if f.delivered_ts is None:
            return f"{f.file}: not delivered" + (f" ({f.reason})" if f.reason else "") + "; Deliver retries"
        picked = {None: "pickup unknown", True: "picked up", False: "not picked up yet"}[f.picked_up]
        steps = [f"{f.file} written to {f.member}'s inbox as {f.sender} at {f.delivered_ts}", picked]
        if f.received_ts:
            steps.append(f"received by the model at {f.received_ts} (its transcript)")
        elif f.lost_why:
            steps.append(f"lost: {f.lost_why} (Deliver again)")
        elif f.picked_up:
            steps.append("not in the transcript yet (a busy teammate holds it until its turn ends)")
        steps.append("ACKed" if f.acked else "no ACK yet")
        return "; ".join(steps)
    if which == 2 and c is not None and c.tokens is not None:
        where = c.transcript.name if c.transcript else "?"
        pressure = " — CONTEXT_PRESSURE" if c.pressure else ""
        model = c.model or "model unknown"
        return (
            f"{c.tokens:,} of {c.window:,} tokens ({model}) at {c.last_response}, from {where}{pressure}\n"
            f"Window: {c.window_source}"
        )
    if which == 3 and c is not None and c.compactions:
        lost = (
            f"\nCompacted after its GC was delivered: presumed CONTEXT_LOST (FC-2) since {team.lost_since}"
            if team.lost_since
            else ""
        )
        return "Compactions: " + ", ".join(c.compactions) + lost
    return None
