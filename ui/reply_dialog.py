"""Reply…: the Lead's answer to one teammate message, typed under the message it answers.

A DELTA report that asks for the Lead's decision (``needs_consult: yes``, or a high risk)
offers the two usual answers as buttons that fill the reply, for the Lead to edit. OK only
gathers the words: the review of what the reply writes and delivers comes next.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from models.actions.reply import DECISIONS
from models.review.validation import Review
from ui.widgets import plain_label, row

QUOTED_LINES = 12  # of the message answered, above the reply


class ReplyDialog(QDialog):
    """The message answered, read-only, over the reply being typed."""

    def __init__(self, result: Review, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        sender = result.message.sender or "an unknown sender"
        self.setWindowTitle(f"Reply to {sender}")
        quoted = QPlainTextEdit()
        quoted.setReadOnly(True)
        quoted.setFont(QFont("Monospace"))
        lines = result.message.text.splitlines()
        shown = lines[:QUOTED_LINES] + (["…"] if len(lines) > QUOTED_LINES else [])
        quoted.setPlainText("\n".join(shown))
        quoted.setMaximumHeight(quoted.fontMetrics().height() * (min(len(shown), QUOTED_LINES) + 2))
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("reply-text")
        self.editor.setPlaceholderText(f"Your reply to {sender}")
        self.editor.setPlainText(text)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)  # what was typed before goes on from its end
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.review_button = self.buttons.addButton("Review Reply…", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.editor.textChanged.connect(self._enable)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label(f"{sender} wrote ({result.summary or result.message.kind}):"))
        layout.addWidget(quoted)
        report = result.report
        if report is not None and report.attention:
            self.decisions = [QPushButton(label) for label in DECISIONS]
            for choice, label in zip(self.decisions, DECISIONS, strict=True):
                choice.setToolTip(DECISIONS[label])
                choice.clicked.connect(lambda _=False, said=DECISIONS[label]: self._decide(said))
            layout.addWidget(row(plain_label("It asks for your decision:"), *self.decisions))
        layout.addWidget(self.editor)
        layout.addWidget(self.buttons)
        self.resize(720, 460)
        self._enable()
        self.editor.setFocus()

    @property
    def text(self) -> str:
        return self.editor.toPlainText()

    def _decide(self, said: str) -> None:
        """A decision's words go first, before whatever the Lead typed already (kept)."""
        typed = self.text.strip()
        self.editor.setPlainText(f"{said}\n\n{typed}" if typed else said)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)  # typing goes on after the words
        self.editor.setFocus()

    def _enable(self) -> None:
        self.review_button.setEnabled(bool(self.text.strip()))
