"""The status bar's permanent part: the session, its GC version and tokens, its warnings, and
the count of messages that need the Lead, which is also the way to them."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar, QToolButton

from models.session.folder import Session
from models.session.versions import label
from models.text.problems import Problem
from ui.widgets import count, needing_attention, plain_label


class StatusLine(QObject):
    """The labels at the status bar's right; ``attention`` is a button (the window connects
    it to the Inbox) shown only while something needs the Lead."""

    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.attention = QToolButton()
        self.attention.setAutoRaise(True)
        self.attention.setToolTip("Show the Inbox (Ctrl+5)")
        self.attention.hide()
        self.session = plain_label("No session")
        self.version = plain_label()
        self.tokens = plain_label()
        self.problems = plain_label()
        for w in (self.session, self.version, self.tokens, self.problems, self.attention):
            w.setContentsMargins(10, 0, 10, 0)
            bar.addPermanentWidget(w)

    def show_session(self, session: Session) -> None:
        """The session's id, GC version, tokens and warnings (all of them in the tooltip)."""
        self.session.setText(f"Session: {session.id}")
        version = session.gc_version
        self.version.setText(label(version) if version is not None else "GC unversioned")
        gc = session.gc
        self.tokens.setText(f"{gc.tokens:,} tokens ({session.tokenizer.name})" if gc else "no GC")
        problems: list[Problem] = session.all_problems
        self.problems.setText(f"⚠ {count(len(problems), 'warning')}" if problems else "")
        self.problems.setToolTip("\n".join(str(p) for p in problems))

    def show_attention(self, attention: int) -> None:
        """How many messages need the Lead; nothing while none does."""
        self.attention.setText(f"⚑ {needing_attention(attention)}" if attention else "")
        self.attention.setVisible(bool(attention))
