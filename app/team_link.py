"""The window's side of a linked Claude Code team: which team and which member each role is,
the team's read shown in the teammates table, and when the team calls for a fresh Inbox pass.

The bridge (``app.team_bridge``) reads the team off the GUI thread; this object asks the Lead
what only the Lead can say (the team folder, a member for a role whose name matched none) and
keeps what the Inbox needs from the last read: who presumably lost its GC to a compaction.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.settings import AppSettings
from app.team_bridge import TeamBridge
from app.team_dialogs import pick_member, pick_team_folder
from models.claude.delivery import describe_outcomes
from models.claude.status import TeamView
from models.session.folder import Session
from ui.main_window import MainWindow


class TeamLink(QObject):
    """Links the open session to a team and shows what the bridge reads of it."""

    passWanted = Signal()  # replies or losses the Inbox has not read yet: a fresh pass is due
    viewShown = Signal()  # the table shows a fresh read of the team (Needs you follows it)
    failed = Signal(str)

    def __init__(
        self,
        window: MainWindow,
        bridge: TeamBridge,
        settings: AppSettings,
        session: Callable[[], Session | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window, self.bridge, self.settings, self._session = window, bridge, settings, session
        self.lost: dict[str, tuple[str, str]] = {}  # role → the compaction that made it lose its GC
        self.lost_since: dict[str, str] = {}
        self._lead_inbox_seen: tuple[int, int] | None = None
        self._roles: tuple[str, ...] = ()  # the roles the team's columns were read for
        bridge.viewReady.connect(self._shown)
        bridge.delivered.connect(self._delivered)
        window.review_pane.teamRequested.connect(self.ask_team)
        window.teammates_pane.memberRequested.connect(self.ask_member)

    def opened(self) -> None:
        """A session was opened: nothing is known of its team's losses yet; follow its team."""
        self.lost, self.lost_since = {}, {}
        self._migrate_setting()
        self.follow()

    def team_folder(self) -> Path | None:
        """The Claude Code team folder linked to this session (kept with the session)."""
        return self.bridge.team_folder()

    def set_team_folder(self, folder: Path) -> None:
        """Link the session to a team: same names are matched, the rest are the Lead's to pick."""
        problems = self.bridge.link(folder)
        if problems:
            self.failed.emit("; ".join(problems))
        self.passWanted.emit()

    def _migrate_setting(self) -> None:
        """Earlier releases kept the team folder in the settings; the link now lives with the
        session (so that the CLI sees it too)."""
        session = self._session()
        assert session is not None
        key = f"claude_team/{session.id}"
        value = self.settings.q.value(key)
        self.follow()
        if value and self.bridge.team_folder() is None and Path(str(value)).is_dir():
            self.bridge.link(Path(str(value)))
        if value:
            self.settings.q.remove(key)

    def follow(self) -> None:
        """Read the team for the session's roles and confirmed versions (from its plan)."""
        session = self._session()
        if session is None:
            self.bridge.set_session(None, [], {})
            return
        confirmed = dict(session.plan.teammate_gc_versions) if session.plan else {}
        self._roles = session.roles()
        self.bridge.set_session(session.folder, list(self._roles), confirmed)

    def roles_changed(self, session: Session) -> bool:
        """Whether ``session`` has roles the team's columns were not read for."""
        return session.roles() != self._roles

    def note_pass(self) -> None:
        """An Inbox pass starts: the lead's inbox as the team last showed it is being read."""
        if self.bridge.view is not None:
            self._lead_inbox_seen = self.bridge.view.lead_inbox_stamp()

    def ask_team(self) -> None:
        folder = pick_team_folder(self.window)
        session = self._session()
        if folder is not None:
            self.set_team_folder(folder)
            unmatched = [t.role for t in session.teammates() if t.receives] if session else []
            members = set(self.bridge.members())
            for role in (r for r in unmatched if r not in members):
                self.ask_member(role)  # the same names matched themselves; the rest are the Lead's

    def ask_member(self, role: str) -> None:
        members = self.bridge.members()
        if not members:
            self.failed.emit("Link a Claude Code team first (Inbox: Watch Claude Code team…)")
            return
        chosen, member = pick_member(self.window, role, members)
        if chosen:
            self.bridge.choose(role, member)

    def _shown(self, view: object) -> None:
        """A fresh read of the team: the table's team columns, and FC-2 for presumed losses."""
        if not isinstance(view, TeamView):
            self.failed.emit(f"The Claude Code team could not be read: {view}")
            return
        self.window.teammates_pane.show_team(view.rows, linked=view.team is not None)
        self.viewShown.emit()
        lost = view.lost()
        inbox = view.lead_inbox_stamp()
        if lost != self.lost or inbox != self._lead_inbox_seen:
            # Replies written before the team folder was watched are read here, not missed.
            self.lost = lost
            self.lost_since = {role: row.lost_since for role, row in view.rows.items() if row.lost_since}
            self.passWanted.emit()

    def _delivered(self, outcomes: object) -> None:
        if not isinstance(outcomes, list):
            self.failed.emit(f"Delivery stopped: {outcomes}")
            return
        self.window.statusBar().showMessage(describe_outcomes(outcomes), 10_000)
