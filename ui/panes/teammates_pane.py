"""The teammate table: confirmed and last-sent versions, status, last ACK and what is due."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal, SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QWidget

from models.claude.status import TeamRow
from models.publish.teammate_state import STATUS_WORD
from models.review.ledger import Handled
from models.review.validation import Review
from models.session.folder import PLAN_FILE, Session
from models.session.lifecycle import RECEIVING, STATES, State
from models.session.teammates import Teammate
from ui.column_fit import ColumnFit
from ui.column_menu import ColumnMenu
from ui.node_model import PAYLOAD_ROLE
from ui.strips import ProblemBanner
from ui.teammate_model import TeammateModel
from ui.widgets import short_time, stack, table_view

DUE_ACTIONS = ("confirm", "resend", "full", "guide", "lost", "attention")


def _ack_result(r: Review) -> str:
    """``2/3 NEED_CLARIFICATION`` (``?`` for what the ACK did not say)."""
    ack = r.ack
    assert ack is not None
    applied = "?" if ack.applied is None else ack.applied
    total = "?" if ack.total is None else ack.total
    return f"{applied}/{total} {ack.action or '?'}"


class TeammatesPane(QWidget):
    """Every teammate the session names, sortable, with the plan's problems above it."""

    stateRequested = Signal(str, str)  # role, lifecycle state: the Lead sets it (the plan is written)
    stateShown = Signal(str)  # a word for the status bar: the state asked for is the teammate's already
    memberRequested = Signal(str)  # role: the Lead picks its Claude Code member
    pingRequested = Signal(str)  # role: deliver a reminder to ACK into its member's inbox
    againRequested = Signal(str)  # role: write its last update into its member's inbox once more
    decisionRequested = Signal(str)  # role: show what its next update sends, and why (the composer)
    briefRequested = Signal(str)  # role: a spawn brief for the teammate that replaces it

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.plan_banner = ProblemBanner()
        self.teammate_model = TeammateModel(self)
        # The model sorts its own rows (``NodeTreeModel.sort``), without a proxy between.
        self.teammate_view = table_view(self.teammate_model)
        self.column_fit = ColumnFit(self.teammate_view, self.teammate_model.texts)
        model = self.teammate_model
        self.columns = ColumnMenu(
            self.teammate_view,
            settings,
            "teammates/hidden_columns",
            self.column_fit,
            idle=lambda c: "with a linked team" if c in model.TEAM_COLUMNS and not model.linked else None,
            # What a laptop's width leaves out until asked for: the member a role maps to (its
            # row's tooltip says it) and where each teammate was read from.
            default_hidden=("Member", "Sources"),
        )
        model.linkedChanged.connect(self.columns.apply)
        self.teammate_view.setSortingEnabled(True)
        self._restore_sort()
        self.teammate_view.horizontalHeader().sortIndicatorChanged.connect(self._keep_sort)
        self.teammate_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for state in STATES:
            action = QAction(f"Set state: {state}", self.teammate_view)
            action.triggered.connect(lambda _=False, s=state: self._request_state(s))
            self.teammate_view.addAction(action)
        # A double-click or Return on a row: what the teammate is sent next, and why.
        self.teammate_view.activated.connect(lambda _: self._request(self.decisionRequested))
        for text, signal in (
            ("Show what it is sent next (Return)", self.decisionRequested),
            ("Link to Claude Code member…", self.memberRequested),
            ("Ping (deliver a reminder to ACK)", self.pingRequested),
            ("Deliver again (lost, undecided or never received)", self.againRequested),
            ("Spawn brief for its replacement…", self.briefRequested),
        ):
            action = QAction(text, self.teammate_view)
            action.triggered.connect(lambda _=False, sig=signal: self._request(sig))
            self.teammate_view.addAction(action)
        stack(self, self.plan_banner, self.teammate_view)

    def _restore_sort(self) -> None:
        """The order the Lead last sorted by (by column title, so a column added or moved in a
        later version keeps it), else by teammate."""
        saved = self.settings.value("teammates/sort", [])
        title, order = saved if isinstance(saved, list) and len(saved) == 2 else ["Teammate", "ascending"]
        headers = self.teammate_model.headers
        column = headers.index(title) if title in headers else 0
        descending = order == "descending"
        self.teammate_view.sortByColumn(
            column, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        )

    def _keep_sort(self, column: int, order: Qt.SortOrder) -> None:
        descending = order == Qt.SortOrder.DescendingOrder
        title = self.teammate_model.headers[column]
        self.settings.setValue("teammates/sort", [title, "descending" if descending else "ascending"])

    def _request(self, signal: SignalInstance) -> None:
        role = self.selected_role()
        if role is not None:
            signal.emit(role)

    def show_teammates(self, session: Session) -> None:
        self.teammate_model.set_teammates(session.teammates(), session.gc_version)
        self.plan_banner.show_problems(session.problems.get("plan", []))

    def show_team(self, rows: dict[str, TeamRow], linked: bool) -> None:
        """A fresh read of the linked Claude Code team: its columns in the table."""
        self.teammate_model.set_team(rows, linked=linked)

    def _request_state(self, state: State) -> None:
        """Ask, saying what changes for the teammate's updates and what line the plan gets,
        then have the state written. A teammate finished or shut down by a slip of the
        right-click menu would silently stop receiving the GC."""
        index = self.teammate_view.currentIndex()
        mate: Teammate | None = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        if mate is None:
            return
        if mate.state == state:
            self.stateShown.emit(f"{mate.role} is already {state}")
            return
        receives = state in RECEIVING
        if mate.receives and not receives:
            effect = f"{mate.role} will no longer be sent context updates or pinged for ACKs."
        elif receives and not mate.receives:
            effect = f"{mate.role} will be sent context updates again."
        else:
            effect = f"{mate.role} is sent context updates either way."
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Set teammate state",
            f"{mate.role}: {mate.state or 'no state'} → {state}",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(
            f"{effect}\n\nWritten to {PLAN_FILE}'s front matter: teammate_status: {mate.role}: {STATUS_WORD[state]}"
        )
        if self.confirm(box) == QMessageBox.StandardButton.Ok:
            self.stateRequested.emit(mate.role, state)

    def confirm(self, box: QMessageBox) -> QMessageBox.StandardButton:
        """Asks the Lead (tests replace this)."""
        return QMessageBox.StandardButton(box.exec())

    def selected_role(self) -> str | None:
        index = self.teammate_view.currentIndex()
        mate = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        return mate.role if mate is not None else None

    def show_reviews(
        self, reviews: list[Review], handled: Handled, pings: dict[str, str], lost: dict[str, str] | None = None
    ) -> None:
        """The ACK and Due columns: each teammate's newest ACK, and what the Lead owes it
        (``lost``: teammates whose transcript shows a compaction since their GC arrived)."""
        acks: dict[str, str] = {}
        due: dict[str, tuple[str, str]] = {}  # what is due (the cell), and since when (its tooltip)
        for r in reviews:  # oldest first: later messages override earlier ones
            role = r.message.sender
            if role is None:
                continue
            if r.ack is not None:
                acks[role] = _ack_result(r)
            done = (r.message.source, r.message.sha) in handled
            if not done and r.action in DUE_ACTIONS:
                when = short_time(r.message.timestamp) or "a time it does not say"
                due[role] = (r.action, f"{r.action}: its message of {when} in {r.message.source}")
            elif done:
                due.pop(role, None)
        for role, since in (lost or {}).items():
            why = f"compacted after its GC was delivered ({short_time(since)}): send the full GC"
            due.setdefault(role, ("full (FC-2)", why))
        for role, since in pings.items():
            due.setdefault(role, ("ping", f"no ACK since {short_time(since)}"))
        self.teammate_model.set_reviews(acks, due)
