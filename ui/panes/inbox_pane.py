"""The Inbox pane: every message teammates sent, what it says, what is wrong, what to do.

Unreadable messages are listed too, shown raw with the reason; nothing is dropped. A DELTA
report with needs_consult or a critical/high risk is highlighted and counted in the status bar.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QInputDialog,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from models.review.ledger import Handled
from models.review.rows import action_line, kind_label, summary_line
from models.review.validation import Review
from models.text.problems import Problem
from ui.font_follow import follow_font
from ui.item_models import DISPLAY, TOOLTIP
from ui.node_model import PAYLOAD_ROLE, NodeTreeModel, Spec
from ui.strips import ProblemBanner
from ui.tones import tones
from ui.widgets import (
    button,
    button_bar,
    column,
    count,
    needing_attention,
    plain_label,
    row,
    short_time,
    table_view,
)

BACKGROUND = Qt.ItemDataRole.BackgroundRole


NEEDS_LEAD = frozenset({"confirm", "resend", "full", "guide", "lost", "attention"})


class ReviewModel(NodeTreeModel):
    """Reviewed messages, newest last, filtered by sender and kind while syncing.

    The key facts (who, what it says, what is wrong, what to do) come first and the
    timestamp last and short, so that a row reads whole in a pane 500 px wide; the full
    timestamp and the handled time are in the tooltip and the raw pane.
    """

    headers = ("From", "Kind", "Summary", "Action", "Time")
    SUMMARY, ACTION, TIME = 2, 3, 4

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
        """Risk badges lead the summary of DELTA reports, problems follow it; attention in red,
        problems in amber."""
        r: Review = payload
        done = self.handled.get((r.message.source, r.message.sha))
        if role == DISPLAY:
            values = (
                r.message.sender or "?",
                kind_label(r),
                summary_line(r),
                action_line(r, done),
                short_time(r.message.timestamp),
            )
            return values[column]
        if role == TOOLTIP:
            when = f"sent {r.message.timestamp}\n" if r.message.timestamp else ""
            return f"{when}done: {done}\n\n{r.message.text}" if done else f"{when}\n{r.message.text}".lstrip()
        if role == BACKGROUND and not done:
            if r.action == "attention":
                return tones().bad
            if r.problems:
                return tones().warn
        return None


UNKNOWN_SENDER = "(unknown sender)"


class ReviewPane(QWidget):
    """Messages in, the Lead's actions out (the controller carries them out)."""

    carryOut = Signal(object)
    replyRequested = Signal(object)
    pasted = Signal(str, str)
    teamRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ReviewModel(self)
        # The summary takes what the short columns leave, so that no key fact needs a scroll.
        self.view = table_view(self.model, self.model.texts, stretch=ReviewModel.SUMMARY)
        self.view.selectionModel().currentChanged.connect(self._show_raw)
        self.header = plain_label("No messages yet")
        self.reports_only = QCheckBox("DELTA reports only")
        self.reports_only.toggled.connect(lambda on: self.filter_by(self.model.sender_filter))
        # The teammate chosen in the table narrows the list: said in a strip over it, as a mail
        # client shows its filter, with a button that shows every message again.
        self.filter_label = plain_label()
        self.filter_button = QPushButton("Show all")
        self.filter_button.setToolTip("Show every teammate's messages")
        self.filter_button.clicked.connect(lambda: self.filter_by(None))
        self.filter_strip = row(self.filter_label, self.filter_button)
        self.filter_strip.hide()
        self.roles: tuple[str, ...] = ()  # the session's teammates: who a pasted message may be from
        self.preferred_sender: str | None = None  # the teammate selected in the table
        self.raw = QPlainTextEdit()
        self.raw.setReadOnly(True)
        self.raw.setFont(QFont("Monospace"))
        self.raw.setPlaceholderText("The selected message, as it was received")
        # Four lines high at least, in the font's size of the moment: a message is read here.
        follow_font(self.raw, lambda: self.raw.setMinimumHeight(self.raw.fontMetrics().height() * 4 + 12))
        # Their keys are the window's (Session menu), so that they work from any pane.
        self.carry_button = button("Carry out", self._carry, None, self, "Carry out the selected message (Ctrl+Return)")
        self.reply_button = button(
            "Reply…", self._reply, None, self, "Reply to the selected message in your own words (Ctrl+Shift+Return)"
        )
        buttons = button_bar(
            self.header,
            self.reports_only,
            self.carry_button,
            self.reply_button,
            button("Paste message…", self._paste, None, self, "Paste a teammate's message (Ctrl+Shift+V)"),
            button("Watch Claude Code team…", self.teamRequested.emit, None, self),
        )
        # The raw message under the list: the list keeps the pane's whole width.
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("inbox-list-and-raw")
        split.addWidget(self.view)
        split.addWidget(self.raw)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([1000, 1000])  # halves, once the pane has its height: a few rows, a message read
        self.banner = ProblemBanner()  # inbox entries that could not be read
        self._attention = 0
        layout_box = column(buttons, self.filter_strip, self.banner, split)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(layout_box)

    def _count(self) -> None:
        """The header: every message and what needs the Lead, and how many the filter shows."""
        total = len(self.model.reviews)
        narrowed = self.model.sender_filter is not None or self.model.reports_only
        counted = f"{self.model.rowCount()} of {count(total, 'message')}" if narrowed else count(total, "message")
        self.header.setText(f"{counted}, {needing_attention(self._attention)}")

    def show_reviews(self, reviews: list[Review], handled: Handled, problems: list[Problem] | None = None) -> int:
        """Show the reviews (and what could not be read); return how many need the Lead's
        attention."""
        self.banner.show_problems(problems or [])
        self.model.set_reviews(reviews, handled)
        pending = [r for r in reviews if (r.message.source, r.message.sha) not in handled]
        # Everything the Lead has to act on: a NEED_CLARIFICATION waiting is as much as a risk badge.
        attention = sum(1 for r in pending if r.action in NEEDS_LEAD or (r.report is not None and r.report.attention))
        self._attention = attention
        self._count()
        return attention

    def selected(self) -> Review | None:
        index = self.view.currentIndex()
        return index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None

    def _show_raw(self) -> None:
        r = self.selected()
        if r is None:
            self.raw.clear()
            return
        # What is wrong with it first: the pane shows a few lines, and a long report's end is
        # below them.
        notes = "".join(f"# {p}\n" for p in r.problems)
        done = self.model.handled.get((r.message.source, r.message.sha))
        tail = f"\n\n# from {r.message.source}" + (f"\n# done: {done}" if done else "")
        self.raw.setPlainText(f"{notes}{r.message.text}".rstrip() + tail)

    def _carry(self) -> None:
        r = self.selected()
        if r is not None:
            self.carryOut.emit(r)

    def _reply(self) -> None:
        r = self.selected()
        if r is not None:
            self.replyRequested.emit(r)

    def _paste(self) -> None:
        """The message, then who sent it, picked from the session's teammates (a typed name
        with a typo made a teammate of its own, whose version was then confirmed)."""
        text, ok = QInputDialog.getMultiLineText(self, "Paste a message", "The message as the teammate sent it:")
        if not ok or not text.strip():
            return
        choices = [*self.roles, UNKNOWN_SENDER]
        current = choices.index(self.preferred_sender) if self.preferred_sender in choices else len(choices) - 1
        sender, ok = QInputDialog.getItem(self, "Paste a message", "From:", choices, current, False)
        if ok:
            self.pasted.emit(text, "" if sender == UNKNOWN_SENDER else sender)

    def filter_by(self, sender: str | None) -> None:
        """Show only ``sender``'s messages (None: every message), and say so on the pane."""
        self.model.set_filter(sender, self.reports_only.isChecked())
        self.filter_label.setText(f"Only {sender}'s messages" if sender else "")
        self.filter_strip.setVisible(sender is not None)
        self._count()
