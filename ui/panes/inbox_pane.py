"""The Inbox pane: every message teammates sent, what it says, what is wrong, what to do.

Unreadable messages are listed too, shown raw with the reason; nothing is dropped. A DELTA
report with needs_consult or a critical/high risk is highlighted and counted in the status bar.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QInputDialog,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from models.review.ledger import Handled
from models.review.validation import Review
from ui.item_models import BAD_BG, DISPLAY, TOOLTIP, WARN_BG
from ui.node_model import PAYLOAD_ROLE, NodeTreeModel, Spec
from ui.widgets import button, button_bar, column, count, needing_attention, plain_label, table_view

BACKGROUND = Qt.ItemDataRole.BackgroundRole
_BADGE = {"critical": "‼ critical", "high": "⚠ high", "medium": "medium", "low": "low"}


NEEDS_LEAD = frozenset({"confirm", "resend", "full", "guide", "lost", "attention"})


class ReviewModel(NodeTreeModel):
    """Reviewed messages, newest last, filtered by sender and kind while syncing."""

    headers = ("Time", "From", "Kind", "Summary", "Problems", "Action")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.reviews: list[Review] = []
        self.handled: Handled = {}
        self.sender_filter: str | None = None
        self.reports_only = False

    def set_reviews(self, reviews: list[Review], handled: Handled) -> None:
        self.reviews, self.handled = reviews, handled
        self._refresh()

    def set_filter(self, sender: str | None, reports_only: bool) -> None:
        self.sender_filter, self.reports_only = sender, reports_only
        self._refresh()

    def _refresh(self) -> None:
        shown = [
            r
            for r in self.reviews
            if (self.sender_filter is None or r.message.sender == self.sender_filter)
            and (not self.reports_only or r.report is not None)
            and r.message.kind != "protocol"
        ]
        self.sync([Spec((r.message.source, r.message.sha), r) for r in shown])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """The review's findings and whether the Lead already acted on it."""
        r: Review = payload
        return (r.summary, tuple(r.problems), r.action, (r.message.source, r.message.sha) in self.handled)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Risk badges in the summary of DELTA reports; attention in red, problems in amber."""
        r: Review = payload
        done = (r.message.source, r.message.sha) in self.handled
        if role == DISPLAY:
            summary = r.summary
            if r.report is not None:
                badges = " ".join(_BADGE.get(k.level or "", "?") for k in r.report.risks)
                summary = f"{summary}  [{badges}]" if badges else summary
            key = (r.message.source, r.message.sha)
            action = (
                f"done: {self.handled[key]}"
                if done
                else ("" if r.action in ("none", "record") and not r.problems else r.action)
            )
            values = (
                r.message.timestamp or "",
                r.message.sender or "?",
                r.message.kind,
                summary,
                "; ".join(r.problems),
                action,
            )
            return values[column]
        if role == TOOLTIP:
            return r.message.text
        if role == BACKGROUND and not done:
            if r.action == "attention":
                return QBrush(BAD_BG)
            if r.problems:
                return QBrush(WARN_BG)
        return None


class ReviewPane(QWidget):
    """Messages in, the Lead's actions out (the controller carries them out)."""

    carryOut = Signal(object)
    pasted = Signal(str, str)
    teamRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ReviewModel(self)
        self.view = table_view(self.model, fit_columns=True)
        self.view.selectionModel().currentChanged.connect(self._show_raw)
        self.header = plain_label("No messages yet")
        self.reports_only = QCheckBox("DELTA reports only")
        self.reports_only.toggled.connect(lambda on: self.model.set_filter(self.model.sender_filter, on))
        self.raw = QPlainTextEdit()
        self.raw.setReadOnly(True)
        self.raw.setFont(QFont("Monospace"))
        self.raw.setPlaceholderText("The selected message, as it was received")
        # Their keys are the window's (Session menu), so that they work from any pane.
        self.carry_button = button("Carry out", self._carry, None, self, "Carry out the selected message (Ctrl+Return)")
        buttons = button_bar(
            self.header,
            self.reports_only,
            self.carry_button,
            button("Paste message…", self._paste, None, self, "Paste a teammate's message (Ctrl+Shift+V)"),
            button("Watch Claude Code team…", self.teamRequested.emit, None, self),
        )
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.raw)
        split.setSizes([700, 300])
        layout_box = column(buttons, split)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(layout_box)

    def show_reviews(self, reviews: list[Review], handled: Handled) -> int:
        """Show the reviews; return how many need the Lead's attention."""
        self.model.set_reviews(reviews, handled)
        pending = [r for r in reviews if (r.message.source, r.message.sha) not in handled]
        # Everything the Lead has to act on: a NEED_CLARIFICATION waiting is as much as a risk badge.
        attention = sum(1 for r in pending if r.action in NEEDS_LEAD or (r.report is not None and r.report.attention))
        self.header.setText(f"{count(len(reviews), 'message')}, {needing_attention(attention)}")
        return attention

    def selected(self) -> Review | None:
        index = self.view.currentIndex()
        return index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None

    def _show_raw(self) -> None:
        r = self.selected()
        if r is None:
            self.raw.clear()
            return
        notes = "\n".join(f"# {p}" for p in r.problems)
        self.raw.setPlainText(f"{r.message.text}\n\n{notes}".rstrip() + f"\n# from {r.message.source}")

    def _carry(self) -> None:
        r = self.selected()
        if r is not None:
            self.carryOut.emit(r)

    def _paste(self) -> None:
        text, ok = QInputDialog.getMultiLineText(self, "Paste a message", "The message as the teammate sent it:")
        if not ok or not text.strip():
            return
        sender, ok = QInputDialog.getText(self, "Paste a message", "From (role id):")
        if ok:
            self.pasted.emit(text, sender.strip())
