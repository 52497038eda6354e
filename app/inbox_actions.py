"""The Inbox's actions on a teammate's message: Carry out, Reply… and Paste message….

Each prepares its preview from the session as the last action left it (the runner settled
first), shows the review of every file and inbox entry it writes, and hands it to the window's
one runner, which writes it off the GUI thread; the controller shows what follows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QWidget

from app.action_runner import ActionRunner
from app.team_bridge import TeamBridge
from app.team_dialogs import ask_carry_out_again
from models.actions.carry import CarriedAlready, prepare_carry_out
from models.actions.paste import PasteError, prepare_paste
from models.actions.preview import Preview
from models.actions.reply import prepare_reply
from models.claude.status import TeamView, team_now
from models.review.validation import Review
from models.session.folder import Session
from ui.reply_dialog import ReplyDialog
from ui.review_dialog import ReviewDialog


class InboxActions(QObject):
    """What the Lead does with a message in the Inbox (or from Needs you)."""

    failed = Signal(str)  # one line: why nothing was written

    def __init__(
        self,
        window: QWidget,
        runner: ActionRunner,
        team: TeamBridge,
        session: Callable[[], Session | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window, self.runner, self.team, self.session = window, runner, team, session
        self._unsent: dict[tuple[str, str], str] = {}  # replies typed and not sent, by the message answered

    def carry_out(self, result: Review) -> bool:
        """Do what the review says on the plan side and mark the message handled in the ledger
        (the runner writes it; ``actionDone`` follows). False when nothing is asked of it.

        A message carried out before is carried out again only when the Lead says so, told
        what it would repeat (a second re-send, second ledger lines)."""
        session = self.session()
        if session is None:
            return False
        self.runner.settle()  # prepared from the files as the last action left them
        team = self._team_now(session)  # a re-send's inbox entry is reviewed with the rest
        try:
            try:
                preview = prepare_carry_out(session, result, team=team)
            except CarriedAlready as exc:
                if not self.confirm_repeat(result, exc.done):
                    return False
                preview = prepare_carry_out(session, result, again=True, team=team)
        except OSError as exc:
            self.failed.emit(f"Could not carry out {result.action}: {exc}. Nothing was changed.")
            return False
        if preview.refusals:
            why = "; ".join(preview.refusals)
            self.failed.emit(f"Could not carry out {result.action}: {why}. Nothing was changed.")
            return False
        if not self.review_write(preview, f"Carry out {result.action} for {result.message.sender or 'this message'}?"):
            return False
        self.runner.commit(preview)
        return True

    def reply(self, result: Review) -> bool:
        """The Lead's own words to the sender of ``result``: typed, reviewed (the outbox file,
        the ledger, the inbox entry of a linked team), then written by the runner. What was
        typed and not sent comes back the next time this message is answered."""
        session = self.session()
        if session is None:
            return False
        key = (result.message.source, result.message.sha)
        text = self.ask_reply(result, self._unsent.get(key, ""))
        if text is None:
            return False
        self._unsent[key] = text
        self.runner.settle()
        preview = prepare_reply(session, result, text, team=self._team_now(session))
        if preview.refusals:
            self.failed.emit(f"No reply was sent: {'; '.join(preview.refusals)}")
            return False
        if not self.review_write(preview, f"Send this reply to {result.message.sender}?"):
            return False
        del self._unsent[key]
        self.runner.commit(preview)
        return True

    def _team_now(self, session: Session) -> TeamView:
        """The linked team as last read, or before its first read, where its link points."""
        return team_now(self.team.view, session.folder, list(session.roles()))

    def ask_reply(self, result: Review, text: str) -> str | None:
        """The reply's words, or None when the Lead cancels (what was typed is kept)."""
        dialog = ReplyDialog(result, text, self.window)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted.value
        if not accepted and dialog.text.strip():
            self._unsent[(result.message.source, result.message.sha)] = dialog.text
        return dialog.text if accepted else None

    def review_write(self, preview: Preview, question: str) -> bool:
        """Show every file and inbox entry ``preview`` writes and ask (tests replace this)."""
        return ReviewDialog(preview, question, self.window).exec() == QDialog.DialogCode.Accepted.value

    def confirm_repeat(self, result: Review, done: str) -> bool:
        """Ask before repeating a carry-out (tests replace this)."""
        return ask_carry_out_again(self.window, result, done)

    def paste(self, text: str, sender: str) -> Path | None:
        """A pasted message goes into messages/inbox/ like any other (and is never deleted):
        the runner writes it, and the Inbox reads it then. Returns the file it will be."""
        session = self.session()
        if session is None:
            return None
        self.runner.settle()  # two pastes in one second: the second's name sees the first
        try:
            preview = prepare_paste(session, text, sender or None)
        except PasteError as exc:
            self.failed.emit(str(exc))
            return None
        self.runner.commit(preview)
        return preview.writes[0].path
