"""Session ▸ Subscriptions…: the Lead edits what each role follows, then reviews its write.

The dialog gathers the matrix from the session as shown; the window's one runner prepares the
write of subscriptions.yaml off the GUI thread from a snapshot, the review shows it as a diff,
and the runner commits it. The composer re-plans when the file's change is read back.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QWidget

from app.action_runner import ActionRunner
from models.actions.preview import Preview
from models.actions.subscriptions import (
    Matrix,
    SubscriptionsError,
    current_matrix,
    prepare_subscriptions,
    proposed_matrix,
)
from models.delta.scope import top_titles
from models.session.folder import Session
from models.session.snapshot import SessionSnapshot
from ui.review_dialog import ReviewDialog
from ui.subscriptions_dialog import Reasons, SubscriptionsDialog
from ui.workers import said


class SubscriptionActions(QObject):
    """Opens the matrix and has its write prepared, reviewed and committed."""

    failed = Signal(str)  # one line: why nothing was written

    def __init__(
        self,
        window: QWidget,
        runner: ActionRunner,
        session: Callable[[], Session | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window, self.runner, self.session = window, runner, session

    def edit(self) -> bool:
        """The matrix, then the review of its write; False when nothing was asked."""
        session = self.session()
        if session is None:
            return False
        snapshot = session.snapshot()
        if snapshot.gc is None:
            self.failed.emit("This session has no global-context.md: there are no sections to follow")
            return False
        dialog = SubscriptionsDialog(
            top_titles(snapshot.gc), current_matrix(snapshot), lambda: _proposal(snapshot), self.window
        )
        matrix = self.ask(dialog)
        if matrix is None:
            return False
        return self.runner.prepare(
            session.snapshot,
            lambda s: prepare_subscriptions(s, matrix),
            self._review,
            lambda exc: self.failed.emit(said(exc, SubscriptionsError)),
        )

    def ask(self, dialog: SubscriptionsDialog) -> Matrix | None:
        """The matrix the Lead settled on, or None on Cancel (tests replace this)."""
        return dialog.matrix() if dialog.exec() == QDialog.DialogCode.Accepted.value else None

    def _review(self, preview: Preview) -> None:
        if not preview.writes:
            self.failed.emit("; ".join(preview.skipped) or "nothing to write")
            return
        if self.review_write(preview, "Write what each role follows?"):
            self.runner.commit(preview)

    def review_write(self, preview: Preview, question: str) -> bool:
        """Show the file's change and ask (tests replace this)."""
        return ReviewDialog(preview, question, self.window).exec() == QDialog.DialogCode.Accepted.value


def _proposal(snapshot: SessionSnapshot) -> tuple[Matrix, Reasons]:
    matrix, choices = proposed_matrix(snapshot)
    return matrix, {role: {c.section: c.reason for c in found} for role, found in choices.items()}
