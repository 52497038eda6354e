"""The window's link to a Claude Code team: reads and deliveries off the GUI thread, live.

Reading the team (config, inboxes, transcripts that may be tens of megabytes) and delivering
(which may wait up to two seconds for a busy inbox lock) run on a one-thread pool; results come
back as queued signals. Each job carries the generation it was started in, so a result from a
session the Lead has since left is dropped. The team folder and the transcripts' folders are
watched (debounced), so pickups, replies and compactions show as they happen.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from app.watcher import FolderWatcher
from models.actions.deliver import commit_delivery, prepare_delivery, prepare_ping
from models.actions.preview import Preview
from models.claude.delivery import Outcome
from models.claude.status import TeamView, load_link, team_view_of
from models.claude.team import Link, map_roles, read_team, write_link
from models.claude.transcript_read import TranscriptFollower
from ui.workers import Job


class TeamBridge(QObject):
    """Follows the session's linked team; ``viewReady`` carries a fresh ``TeamView``."""

    viewReady = Signal(object)
    delivered = Signal(object)  # list[Outcome], or the exception that stopped delivery
    repliesChanged = Signal()
    _result = Signal(int, str, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.generation = 0
        self.folder: Path | None = None
        self.roles: list[str] = []
        self.confirmed: dict[str, int] = {}
        self.view: TeamView | None = None
        self.watchers: dict[Path, FolderWatcher] = {}
        # Transcripts read by what each change appended; every response's usage too once the
        # cost of sharing context was asked for (it costs a working team's window a tenth more).
        self.spend = False
        self.follower = TranscriptFollower()
        self._reading = False  # a read of the team is under way
        self._again = False  # and another was asked for meanwhile: one more read, not one each
        self._result.connect(self._on_result)

    # -- the session ----------------------------------------------------------------------------------

    def set_session(self, folder: Path | None, roles: list[str], confirmed: dict[str, int]) -> None:
        """Follow ``folder``'s team (None: no session); a new session drops pending results."""
        if folder != self.folder:
            self.generation += 1
            self.view = None
            self._watch([])
            self.follower = TranscriptFollower(spend=self.spend)  # another session's team: nothing kept of the last
        self.folder, self.roles, self.confirmed = folder, roles, confirmed
        self.refresh()

    def keep_spending(self) -> bool:
        """Follow every response's usage from now on (the transcripts are read again whole,
        off the GUI thread); False when it already does."""
        if self.spend:
            return False
        self.spend = True
        self.follower = TranscriptFollower(spend=True)
        self.refresh()
        return True

    def team_folder(self) -> Path | None:
        view = self.view
        if view is not None and view.link is not None:
            return view.link.team_folder
        if self.folder is None:
            return None
        _, link, _ = load_link(self.folder, self.roles)
        return link.team_folder if link else None

    def link(self, team_folder: Path, members: dict[str, str] | None = None) -> list[str]:
        """Link the session to ``team_folder`` (same names matched, ``members`` the Lead's
        choices); returns the team's problems."""
        if self.folder is None:
            return ["no session is open"]
        team = read_team(team_folder)
        link = Link(team_folder, map_roles(self.roles, team, members))
        write_link(self.folder, link)
        self.refresh()
        self.repliesChanged.emit()
        return team.problems

    # -- work off the GUI thread ------------------------------------------------------------------------

    def _start(self, kind: str, work: Callable[[], Any]) -> None:
        generation = self.generation
        self.pool.start(Job(work, lambda result: self._result.emit(generation, kind, result)))

    def refresh(self) -> None:
        """Read the team again (in the pool). Asked again while a read runs (a working team
        changes its files many times a second), it reads once more when that one is done."""
        if self.folder is None:
            return
        if self._reading:
            self._again = True
            return
        self._reading, self._again = True, False
        folder, roles, confirmed, follower = self.folder, list(self.roles), dict(self.confirmed), self.follower
        self._start("view", lambda: team_view_of(folder, roles, confirmed, follower=follower))

    def deliver_due(self) -> None:
        """Deliver every role's last update not yet delivered (Carry out, Deliver)."""
        self._deliver(lambda folder, view: prepare_delivery(folder, view))

    def deliver_again(self, role: str) -> None:
        """Write ``role``'s last update once more: the Lead's answer to a lost update, an
        undecided attempt, or one the model never received."""
        self._deliver(lambda folder, view: prepare_delivery(folder, view, [role], due=False))

    def deliver_published(self, preview: Preview) -> None:
        """Deliver what a committed action's preview listed (a publish, a re-send, a reply),
        as it listed it."""
        self._start("deliver", lambda: commit_delivery(preview))

    def ping(self, role: str) -> None:
        """Deliver a reminder to ACK the last update sent to ``role``."""
        self._deliver(lambda folder, view: prepare_ping(folder, view, role))

    def _deliver(self, prepare: Callable[[Path, TeamView], Preview]) -> None:
        """Prepare a delivery against the team as it is on disk now and commit it, in the pool."""
        if self.folder is None:
            return
        folder, roles, confirmed, follower = self.folder, list(self.roles), dict(self.confirmed), self.follower

        def run() -> list[Outcome]:  # a refusal (WriteRefused) reaches ``delivered`` as the reason it stopped
            return commit_delivery(prepare(folder, team_view_of(folder, roles, confirmed, follower=follower)))

        self._start("deliver", run)

    def members(self) -> list[str]:
        """The linked team's member names (for the Lead's choice; config.json is small)."""
        folder = self.team_folder()
        if folder is None:
            return []
        team = read_team(folder)
        return [m.name for m in team.members if m.name != team.lead]

    def choose(self, role: str, member: str | None) -> None:
        """The Lead maps ``role`` to ``member`` (None: deliver nothing to it)."""
        if self.folder is None:
            return
        _, link, _ = load_link(self.folder, self.roles)
        if link is None:
            return
        link.members[role] = member or ""  # "": an explicit none, not matched by name again
        write_link(self.folder, link)
        self.refresh()

    def _on_result(self, generation: int, kind: str, result: Any) -> None:
        if kind == "view":
            self._reading = False
            if self._again:
                self.refresh()  # what changed while it read: the result below is already old
        if generation != self.generation:
            return  # from a session the Lead has left
        if kind == "view":
            if isinstance(result, TeamView):
                self.view = result
                self._watch(self._folders(result))
            self.viewReady.emit(result)
        else:
            self.delivered.emit(result)
            self.refresh()

    # -- watching -----------------------------------------------------------------------------------

    @staticmethod
    def _folders(view: TeamView) -> list[Path]:
        folders = []
        if view.team is not None and view.team.folder.is_dir():
            folders.append(view.team.folder)
        for row in view.rows.values():
            path = row.context.transcript if row.context is not None else None
            if path is not None and path.parent not in folders:
                folders.append(path.parent)
        return folders

    def _watch(self, folders: list[Path]) -> None:
        for folder in list(self.watchers):
            if folder not in folders:
                watcher = self.watchers.pop(folder)
                watcher.stop()
                watcher.deleteLater()
        for folder in folders:
            if folder not in self.watchers:
                watcher = FolderWatcher(folder, parent=self)
                watcher.pathsChanged.connect(self._on_paths)
                self.watchers[folder] = watcher

    def _on_paths(self, paths: list[str]) -> None:
        self.refresh()
        if any("inboxes" in p for p in paths):
            self.repliesChanged.emit()

    def stop(self) -> None:
        """Stop watching and wait for the pool: nothing of ours runs after the window closes."""
        self.generation += 1
        self._watch([])
        self.pool.waitForDone(5000)
