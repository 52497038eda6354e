"""A teammate's Spawn brief for its replacement…: the brief for the teammate that takes over
its work, prepared off the GUI thread, reviewed, written, and put on the clipboard to paste
into the new teammate's spawn prompt."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QInputDialog, QLineEdit, QMainWindow

from app.action_runner import ActionRunner
from models.actions.brief import BriefError, prepare_brief
from models.actions.preview import Outcome, Preview
from models.session.folder import Session
from ui.review_dialog import ReviewDialog
from ui.workers import said


class BriefActions(QObject):
    """Asks the new teammate's name, then has its brief prepared, reviewed and written."""

    failed = Signal(str)  # one line: why nothing was written

    def __init__(
        self,
        window: QMainWindow,
        runner: ActionRunner,
        session: Callable[[], Session | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window, self.runner, self.session = window, runner, session
        self._asked: Preview | None = None
        runner.committed.connect(self._written)

    def brief(self, role: str) -> bool:
        """The brief for whoever takes over ``role``'s work; False when nothing was asked."""
        session = self.session()
        if session is None:
            return False
        new = self.ask_name(role)
        if not new:
            return False
        return self.runner.prepare(
            session.snapshot,
            lambda s: prepare_brief(s, new, role),
            self._review,
            lambda exc: self.failed.emit(said(exc, BriefError)),
        )

    def ask_name(self, role: str) -> str | None:
        """The new teammate's role id, ``role`` offered (a replacement under the same name)."""
        question = f"Role id of the teammate taking over {role}'s work:"
        text, ok = QInputDialog.getText(self.window, "Spawn brief", question, QLineEdit.EchoMode.Normal, role)
        return text.strip() if ok and text.strip() else None

    def _review(self, preview: Preview) -> None:
        if self.review_write(preview, "Write this spawn brief and record it as sent?"):
            self._asked = preview
            self.runner.commit(preview)

    def review_write(self, preview: Preview, question: str) -> bool:
        """Show the brief and the plan's and ledger's lines, and ask (tests replace this)."""
        return ReviewDialog(preview, question, self.window).exec() == QDialog.DialogCode.Accepted.value

    def _written(self, outcome: object) -> None:
        """The brief asked for is written: its text on the clipboard."""
        if not isinstance(outcome, Outcome) or outcome.preview is not self._asked:
            return
        self._asked = None
        role, _ = outcome.preview.messages[0]
        write = outcome.preview.message_write(role)
        if write is not None:
            QGuiApplication.clipboard().setText(write.data.decode("utf-8"))
            said = f"Spawn brief for {role} written and copied: paste it into its spawn prompt"
            self.window.statusBar().showMessage(said, 10_000)
