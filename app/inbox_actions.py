"""The Inbox's actions on a teammate's message: Carry out, Reply… and Paste message….

Each has the window's one runner prepare its preview, off the GUI thread, from a snapshot of
the session as the last action left it (once its writes landed), shows the review of every
file and inbox entry it writes, and hands it back to the runner to write; the controller shows
what follows.
"""

from __future__ import annotations

from collections.abc import Callable

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
from models.session.snapshot import SessionSnapshot
from ui.reply_dialog import ReplyDialog
from ui.review_dialog import ReviewDialog
from ui.workers import said


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
        """Do what the review says on the plan side and mark the message handled in the ledger:
        prepared and written by the runner off the GUI thread (``actionDone`` follows). False
        when it cannot be asked now (no session, or another action still being prepared).

        A message carried out before is carried out again only when the Lead says so, told
        what it would repeat (a second re-send, second ledger lines)."""
        session = self.session()
        if session is None:
            return False

        def take() -> tuple[SessionSnapshot, TeamView]:  # a re-send's inbox entry is reviewed too
            return session.snapshot(), self._team_now(session)

        def again(taken: tuple[SessionSnapshot, TeamView]) -> Preview:
            return prepare_carry_out(taken[0], result, again=True, team=taken[1])

        def not_done(why: str) -> None:
            self.failed.emit(f"Could not carry out {result.action}: {why}. Nothing was changed.")

        def ready(preview: Preview) -> None:
            asked = f"Carry out {result.action} for {result.message.sender or 'this message'}?"
            if preview.refusals:
                not_done("; ".join(preview.refusals))
            elif self.review_write(preview, asked):
                self.runner.commit(preview)

        def failed(exc: Exception) -> None:
            if not isinstance(exc, CarriedAlready):
                not_done(said(exc))
            elif self.confirm_repeat(result, exc.done):
                self.runner.prepare(take, again, ready, failed)

        return self.runner.prepare(take, lambda t: prepare_carry_out(t[0], result, team=t[1]), ready, failed)

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

        def ready(preview: Preview) -> None:
            if preview.refusals:
                self.failed.emit(f"No reply was sent: {'; '.join(preview.refusals)}")
            elif self.review_write(preview, f"Send this reply to {result.message.sender}?"):
                self._unsent.pop(key, None)
                self.runner.commit(preview)

        def failed(exc: Exception) -> None:
            self.failed.emit(f"No reply was sent: {said(exc)}")

        return self.runner.prepare(
            lambda: (session.snapshot(), self._team_now(session)),
            lambda t: prepare_reply(t[0], result, text, team=t[1]),
            ready,
            failed,
        )

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

    def paste(self, text: str, sender: str) -> bool:
        """A pasted message goes into messages/inbox/ like any other (and is never deleted):
        the runner writes it, and the Inbox reads it then. False when it cannot be asked now."""
        session = self.session()
        if session is None:
            return False
        return self.runner.prepare(
            session.snapshot,  # two pastes in one second: the second's name sees the first
            lambda snapshot: prepare_paste(snapshot, text, sender or None),
            self.runner.commit,
            lambda exc: self.failed.emit(said(exc, PasteError)),
        )
