"""The teammate table: confirmed and last-sent versions, status, last ACK and what is due."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from models.review.ledger import Handled
from models.review.validation import Review
from models.session.folder import Session
from models.session.lifecycle import STATES
from ui.column_fit import ColumnFit
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
    memberRequested = Signal(str)  # role: the Lead picks its Claude Code member
    pingRequested = Signal(str)  # role: deliver a reminder to ACK into its member's inbox

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan_banner = ProblemBanner()
        self.teammate_model = TeammateModel(self)
        # The model sorts its own rows (``NodeTreeModel.sort``), without a proxy between.
        self.teammate_view = table_view(self.teammate_model)
        self.column_fit = ColumnFit(self.teammate_view, self.teammate_model.texts)
        self.teammate_view.setSortingEnabled(True)
        self.teammate_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.teammate_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for state in STATES:
            action = QAction(f"Set state: {state}", self.teammate_view)
            action.triggered.connect(lambda _=False, s=state: self._request_state(s))
            self.teammate_view.addAction(action)
        for text, signal in (
            ("Link to Claude Code member…", self.memberRequested),
            ("Ping (deliver a reminder to ACK)", self.pingRequested),
        ):
            action = QAction(text, self.teammate_view)
            action.triggered.connect(lambda _=False, sig=signal: self._request(sig))
            self.teammate_view.addAction(action)
        stack(self, self.plan_banner, self.teammate_view)

    def _request(self, signal: Signal) -> None:
        role = self.selected_role()
        if role is not None:
            signal.emit(role)  # type: ignore[attr-defined]

    def show_teammates(self, session: Session) -> None:
        self.teammate_model.set_teammates(session.teammates(), session.gc_version)
        self.plan_banner.show_problems(session.problems.get("plan", []))

    def _request_state(self, state: str) -> None:
        role = self.selected_role()
        if role is not None:
            self.stateRequested.emit(role, state)

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
        due: dict[str, str] = {}
        for r in reviews:  # oldest first: later messages override earlier ones
            role = r.message.sender
            if role is None:
                continue
            if r.ack is not None:
                acks[role] = _ack_result(r)
            done = (r.message.source, r.message.sha) in handled
            if not done and r.action in DUE_ACTIONS:
                due[role] = f"{r.action} since {short_time(r.message.timestamp) or '?'}"
            elif done:
                due.pop(role, None)
        for role in lost or {}:
            due.setdefault(role, "full (FC-2)")  # why and when: the Compacted column and its tooltip
        for role, since in pings.items():
            due.setdefault(role, f"ping (no ACK since {short_time(since)})")
        self.teammate_model.set_reviews(acks, due)
