"""Session ▸ Cost of Sharing Context…: the team's spending, worked out off the GUI thread from
the transcripts the team bridge follows and shown again each time the team is read while the
dialog is open. The first time, the bridge is asked to keep every response's usage from then
on (its transcripts read once more, whole); after that a refresh reads what was appended."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from app.team_bridge import TeamBridge
from models.claude.sharing import TeamCost
from models.claude.sharing_report import session_cost
from models.session.folder import Session
from ui.cost_dialog import CostDialog
from ui.main_window import MainWindow
from ui.workers import LatestWork, said


class CostActions(QObject):
    """Opens the cost dialog and keeps it current while it is shown."""

    def __init__(
        self, window: MainWindow, team: TeamBridge, session: Callable[[], Session | None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        window.costRequested.connect(self.show)
        self.window, self.team, self.session = window, team, session
        self.dialog: CostDialog | None = None
        self.work = LatestWork(self)
        self.work.finished.connect(self._worked_out)
        team.viewReady.connect(self._team_read)

    def show(self) -> None:
        """The dialog, in front, worked out from the team as last read."""
        if self.dialog is None:
            self.dialog = CostDialog(self.window)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        self.refresh()

    def refresh(self) -> None:
        """Work the cost out again, if the dialog is shown."""
        dialog, session, view = self.dialog, self.session(), self.team.view
        if dialog is None or not dialog.isVisible():
            return
        if session is None or view is None or view.team is None:
            why = view.problems[0] if view is not None and view.problems else "Session ▸ Watch Claude Code Team…"
            dialog.show_message(f"No Claude Code team is linked to this session ({why}): there is nothing to price.")
            return
        if self.team.keep_spending() or any(
            r.context is not None and r.context.transcript is not None and r.context.spending is None
            for r in view.rows.values()
        ):
            dialog.show_message("Reading the team's transcripts for what each response spent…")
            return  # the team's next view holds it
        gc, folder, follower = session.gc, session.folder, self.team.follower
        version, text = (gc.version, gc.text) if gc is not None else (None, "")
        count = session.tokenizer.count
        self.work.request(lambda: session_cost(view, follower, folder, version, text, count))

    def _team_read(self, _view: object) -> None:
        """A new read of the team: shown again if the dialog is open."""
        self.refresh()

    def _worked_out(self, result: object) -> None:
        if self.dialog is None:
            return
        if isinstance(result, TeamCost):
            self.dialog.show_cost(result)
        elif isinstance(result, Exception):
            self.dialog.show_message(f"The cost could not be worked out: {said(result)}")
        else:
            self.dialog.show_message("No Claude Code team is linked to this session: there is nothing to price.")
