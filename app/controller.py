"""Connects the window's requests to live sessions and settings."""

from __future__ import annotations

import time
import weakref
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMessageBox

from app.action_runner import ActionRunner
from app.brief_actions import BriefActions
from app.busy import loading_vocabulary, opening
from app.cost_actions import CostActions
from app.drafts import DraftKeeper, restore_into
from app.inbox_actions import InboxActions
from app.live_session import LiveSession, take_back_cut_short
from app.looks import Looks
from app.memory_actions import MemoryActions
from app.recent import RecentSessions
from app.resolve import UsageError, resolve_session
from app.runtime import IdleCollector
from app.settings import AppSettings
from app.subscription_actions import SubscriptionActions
from app.team_bridge import TeamBridge
from app.team_link import TeamLink
from models.actions.attention import Attention, needs_lead, unadopted
from models.actions.preview import Outcome, Preview
from models.actions.replies import pending_from
from models.actions.session_edits import prepare_state
from models.claude.reviews import Gathered, gather_reviews
from models.claude.status import TeamView
from models.publish.composer import Composer
from models.publish.teammate_state import StateError, parse_state
from models.review.validation import Review
from models.session.folder import ALL_PARTS, Session
from models.session.locate import find_sessions
from models.session.snapshot import Part
from models.session.team_memory import teammate_facts_kept
from models.text.tokens import Tokenizer, get_tokenizer
from ui.help_dialogs import show_about
from ui.main_window import MainWindow
from ui.workers import LatestWork, said


class Controller(QObject):
    """Owns the window and the open ``LiveSession``; ``headless`` never shows dialogs."""

    reviewsShown = Signal()  # the Inbox and the table's ACK and Due columns show a fresh pass
    actionDone = Signal(object)  # an action the runner ended, once the window shows it: its Outcome or Preview

    def __init__(self, settings: AppSettings, headless: bool = False) -> None:
        super().__init__()
        self.settings = settings
        self.headless = headless
        self.live: LiveSession | None = None
        self.looks = Looks(settings, self)  # the View menu's appearance and text size, saved
        self.memory_actions = MemoryActions(self)  # TEAM-MEMORY's writer: the app's, shown by the memory pane
        self.window = MainWindow(settings.q, self.memory_actions)
        self.window.openRequested.connect(self._open_requested)
        self.window.reloadRequested.connect(self.reload)
        self.window.tokenizerRequested.connect(self.set_tokenizer)
        self.window.composer.published.connect(self._published)
        self.drafts = DraftKeeper(self)  # the composer's draft, kept on disk as the Lead types
        self.drafts.failed.connect(self._error)
        self.window.composer.draftChanged.connect(lambda: self.drafts.follow(self.window.composer))
        self.window.draftDiscarded.connect(self._discard_draft)
        self._gathered: Gathered | None = None  # the Inbox's last pass: Needs you reads it
        self.window.attention_pane.actionRequested.connect(self._attend)
        self.runner = ActionRunner(self)  # every Lead action the window does is written here
        self.window.composer.commitRequested.connect(self.runner.commit)
        self.runner.committed.connect(self._committed)
        self.runner.refused.connect(self._refused)
        self.window.teammates_pane.stateRequested.connect(self.set_state)
        self.reviews: list[Review] = []
        self.collector = IdleCollector(self)  # full garbage collections when the app is idle
        self.reviewer = LatestWork(self)  # inboxes, ledger and team replies, off the GUI thread
        self.reviewer.finished.connect(self._reviewed)
        self.team = TeamBridge(self)
        # Asked through a weak reference: a bound method here would make the controller and its
        # actions a cycle that Python's collector frees in whatever thread it runs in, and a
        # QObject with timers must be deleted in the GUI thread.
        me = weakref.ref(self)
        self.inbox = InboxActions(self.window, self.runner, self.team, lambda: _session_of(me()), self)
        self.window.composer.team_source = lambda: _team_of(me())
        self.window.composer.prepare = self.runner.prepare
        self.inbox.failed.connect(self._error)
        self.window.review_pane.carryOut.connect(self.inbox.carry_out)
        self.window.review_pane.replyRequested.connect(self.inbox.reply)
        self.window.review_pane.pasted.connect(self.inbox.paste)
        self.link = TeamLink(self.window, self.team, settings, lambda: _session_of(me()), self)
        self.link.failed.connect(self._error)
        self.link.passWanted.connect(self.refresh_reviews)
        self.link.viewShown.connect(self._show_attention)
        self.team.repliesChanged.connect(self.refresh_reviews)
        self.window.deliverRequested.connect(self.team.deliver_due)
        self.subscriptions = SubscriptionActions(self.window, self.runner, lambda: _session_of(me()), self)
        self.subscriptions.failed.connect(self._error)
        self.window.subscriptionsRequested.connect(self.subscriptions.edit)
        self.briefs = BriefActions(self.window, self.runner, lambda: _session_of(me()), self)
        self.briefs.failed.connect(self._error)
        self.window.teammates_pane.briefRequested.connect(self.briefs.brief)
        self.cost = CostActions(self.window, self.team, lambda: _session_of(me()), self)
        self.window.aboutRequested.connect(self._about)
        self.window.teammates_pane.pingRequested.connect(self.team.ping)
        self.window.teammates_pane.againRequested.connect(self.team.deliver_again)
        self._ping_timer = QTimer(self)
        self._ping_timer.setInterval(60_000)
        self._ping_timer.timeout.connect(self.refresh_reviews)
        self._ping_timer.start()
        self.window.menus.set_tokenizer(settings.tokenizer)
        self.looks.attach(self.window)
        self.recent = RecentSessions(settings, self.window, self)

    def _pick(self, folder: Path, session_id: str | None) -> Path | None:
        sessions = find_sessions(folder)
        if len(sessions) > 1 and session_id is None and not self.headless:
            names = [s.name for s in sessions]
            name, ok = QInputDialog.getItem(self.window, "Choose a session", f"Sessions in {folder}:", names, 0, False)
            if not ok:
                return None
            session_id = name
        if len(sessions) > 1 and session_id is None:
            return sessions[0]  # newest first
        return resolve_session(str(folder), session_id)

    def _open_requested(self, path: str) -> None:
        """Open Session…, Open Recent, a dropped folder: an unpublished draft in the composer is
        the Lead's work, and another session would drop it, so the Lead is asked first."""
        composer = self.window.composer.composer
        if composer is not None and composer.dirty:
            if not self.window.confirm_discard():
                return
            self._discard_draft()
        self.open(Path(path))

    def _discard_draft(self) -> None:
        """The Lead chose to discard the composer's draft: its file goes too."""
        composer = self.window.composer.composer
        if composer is not None:
            self.drafts.keep(composer.session.folder, None)
            self.drafts.flush()

    def open(self, folder: Path, session_id: str | None = None) -> bool:
        """Open a session (or pick one in a project); on failure keep the current one."""
        try:
            chosen = self._pick(folder, session_id)
        except UsageError as exc:
            self._error(str(exc))
            return False
        if chosen is None:
            return False
        taken, told = take_back_cut_short(chosen)  # before anything of the session is read
        if told and self.headless:
            print(f"lead-console: {told}")
        tokenizer = self._tokenizer(self.settings.tokenizer)
        with opening(self.window, chosen):
            live = LiveSession(chosen, tokenizer, self)
            if self.live is not None:
                self.reviewer.drop()  # a pass over the old session's inboxes is shown nowhere
                self.live.close()
                self.live.deleteLater()  # a child of ours until deleted: the old session and its watcher go
            self.live = live
            live.changed.connect(self._changed)
            live.unwatched.connect(self._error)
            self.window.show_session(live.session)
            self.window.composer.set_composer(Composer.open(live.session))
            restored = restore_into(self.window.composer, self.drafts)
            if restored is not None:
                self.window.statusBar().showMessage(restored, 15_000)
        self.link.opened()
        self.refresh_reviews()
        self.collector.poke()  # the session left behind is freed once the new one is quiet
        self.recent.add(live.session.folder)
        if taken:
            self.window.statusBar().showMessage(taken, 60_000)
        return True

    def _published(self, outcome: Outcome) -> None:
        """Our own publish also edits TEAM-MEMORY's Meta: move the loss snapshot forward first.
        With a linked team, the messages go on into the members' inboxes, as the review listed."""
        if self.live is not None and self.live.session.memory is not None:
            self.memory_actions.snapshot = self.live.session.memory
        if self.live is not None:  # items the Lead removed are no outside loss
            self.window.sections_pane.shown = self.live.session.gc
        self._changed({"gc", "plan", "memory"})
        if outcome.preview.deliveries:
            self.team.deliver_published(outcome.preview)

    def _may_leave_cycles(self, parts: set[Part]) -> bool:
        """Whether a change may have left reference cycles for a full collection to free: a GC
        read whole leaves its old sections, which point at their parents. A follow-up of one
        section does not, nor do TEAM-MEMORY's (five of each left 52 objects and none)."""
        read = self.live.session.gc if self.live is not None else None
        return "gc" in parts and (read is None or read.follow_up is None)

    def _changed(self, parts: set[Part]) -> None:
        self.collector.poke(cycles=self._may_leave_cycles(parts))
        if self.live is not None:
            self.window.show_session(self.live.session, parts)
            self.window.composer.on_session_changed(parts)
            if parts & {"inbox", "plan", "gc"}:
                self.refresh_reviews()
            session, linked = self.live.session, self.team.view is not None and self.team.view.link is not None
            # A new phase folder or TEAM-MEMORY heading may bring a role the team's columns lack
            # (a follow-up of one section's body keeps the headings: asking would gather every
            # teammate again on each append, 500 of them on a large session).
            headings = "memory" in parts and not teammate_facts_kept(session.memory)
            if (
                "plan" in parts
                or ("gc" in parts and linked)
                or ((headings or "folders" in parts) and self.link.roles_changed(session))
            ):
                self.link.follow()  # roles and confirmed versions come from the plan (and the GC's team)

    def reload(self) -> None:
        if self.live is not None:
            self.live.session.stamps.clear()  # force a re-read even if nothing changed
            self.live.reload()

    def set_tokenizer(self, name: str) -> None:
        tokenizer = self._tokenizer(name)
        self.settings.tokenizer = name
        self.window.menus.set_tokenizer(name)
        if self.live is not None:
            self.live.set_tokenizer(tokenizer)

    def _tokenizer(self, name: str) -> Tokenizer:
        """The ``name`` tokenizer, its vocabulary loaded with a word in the status line."""
        with loading_vocabulary(self.window, name):
            return get_tokenizer(name)

    def _about(self) -> None:
        from app.cli.main import installed_version  # looked up when asked for, not at start

        show_about(self.window, installed_version(), self.settings.q.fileName())

    def _error(self, message: str) -> None:
        if self.headless:
            print(f"lead-console: {message}")
        else:
            QMessageBox.warning(self.window, "Lead Console", message)

    # -- the inbox ------------------------------------------------------------------------------------

    def _show_attention(self) -> None:
        """Needs you: what the Inbox, the teammates, the team and the plan ask of the Lead."""
        if self.live is None or self._gathered is None:
            return
        session, gathered = self.live.session, self._gathered
        gate = session.plan.gate_evaluation if session.plan else None
        items = needs_lead(
            gathered.reviews,
            gathered.handled,
            session.teammates(),
            gathered.pings,
            self.team.view,
            gate,
            unadopted=unadopted(session),
        )
        self.window.attention_pane.show_items(items)

    def _attend(self, item: object) -> None:
        """Do what a Needs you row asks: its one action."""
        if not isinstance(item, Attention):
            return
        if item.action in ("carry-out", "reply"):
            review = next((r for r in self.reviews if r.message.source == item.source), None)
            if review is not None:
                (self.inbox.carry_out if item.action == "carry-out" else self.inbox.reply)(review)
        elif item.action == "baseline":
            self.window.baseline()
        elif item.action == "deliver-again" and item.role is not None:
            self.team.deliver_again(item.role)
        elif item.action == "deliver":
            self.team.deliver_due()
        elif item.action == "ping" and item.role is not None:
            self.team.ping(item.role)
        elif item.action == "show-next" and item.role is not None:
            self.window.show_decision(item.role)
        elif item.action == "conclude-gate":
            self.window.toggle_gate()

    def refresh_reviews(self) -> None:
        """Read every inbox, record new messages in the ledger and review them all, in the
        worker; ``reviewsShown`` follows. A burst of requests runs once more, not once each."""
        if self.live is None:
            return
        snapshot = self.live.session.snapshot()  # the worker reads this version, whatever reloads meanwhile
        self.link.note_pass()
        timeout, follower = self.settings.ack_timeout_min, self.team.follower  # the lead's transcript: by its appends
        self.reviewer.request(lambda: gather_reviews(snapshot, datetime.now(UTC), timeout, follower=follower))

    def _reviewed(self, result: object) -> None:
        if not isinstance(result, Gathered):
            self.window.statusBar().showMessage(f"The inbox could not be read: {result}", 10_000)
            return
        self.reviews, self._gathered = result.reviews, result
        self.window.show_reviews(self.reviews, result.handled, result.pings, self.link.lost_since, result.problems)
        self._show_attention()
        self.window.composer.set_pending(pending_from(result, self.link.lost))
        self.reviewsShown.emit()

    def _committed(self, outcome: Outcome) -> None:
        """An action was written: the views follow, and a message goes on to a linked team."""
        preview = outcome.preview
        if preview.action in ("publish", "baseline", "gate-start", "gate-conclude"):
            if self.live is not None:  # the composer starts over on what is now on disk
                self.live.session.reload(ALL_PARTS if preview.action in ("publish", "baseline") else {"plan", "gates"})
            self.window.composer.committed(outcome)
            if self.live is not None and preview.action != "publish":  # publish: _published
                self.window.show_session(self.live.session, {"gc", "plan", "gates"})
                files = ", ".join(preview.relative_path(p) for p in outcome.written)
                self.window.statusBar().showMessage(f"{preview.title}: wrote {files}", 10_000)
            self._show_attention()  # a baseline taken, a gate started or concluded: Needs you follows
        elif self.live is not None and preview.action in ("carry-out", "reply"):
            sent = preview.message_write(preview.messages[0][0]) if preview.messages else None
            if sent is not None:
                QGuiApplication.clipboard().setText(sent.data.decode("utf-8"))
                self.window.statusBar().showMessage(f"{sent.summary} written to the outbox and copied", 5000)
            if preview.deliveries:
                self.team.deliver_published(preview)  # the inbox entries its review listed
            if preview.action == "carry-out":  # a reply writes no plan: nothing to read again
                self.live.reload({"plan"})
                self.window.show_session(self.live.session, {"plan"})
                self.window.composer.on_session_changed()
            self.refresh_reviews()
        elif self.live is not None and preview.action == "paste":
            self.live.reload({"inbox"})
            self.refresh_reviews()
        elif self.live is not None and preview.action == "state":
            self.live.reload({"plan"})
            self.window.statusBar().showMessage(preview.title, 5000)
        self.actionDone.emit(outcome)

    def _refused(self, preview: Preview, reason: str) -> None:
        """An action was not written: said once, where it was asked for."""
        if preview.action in ("publish", "baseline", "gate-start", "gate-conclude"):
            self.window.composer.refused(preview, reason)
        else:
            self._error(f"{preview.title}: nothing was written: {reason}")
            if self.live is not None:
                self.live.reload({"plan"})
        self.actionDone.emit(preview)

    def set_state(self, role: str, state: str) -> bool:
        """The Lead's word on a teammate's lifecycle: prepared off the GUI thread and written to
        the plan by the runner; recipients follow. False when it cannot be asked (an unknown
        state word, or another action still being prepared)."""
        if self.live is None:
            return False
        try:
            wanted = parse_state(state)
        except StateError as exc:
            self._error(str(exc))
            return False
        return self.runner.prepare(
            self.live.session.snapshot,  # prepared from the plan as the last action left it
            lambda snapshot: prepare_state(snapshot, role, wanted),
            self.runner.commit,
            lambda exc: self._error(said(exc, StateError)),
        )

    def settle(self, timeout_s: float = 5.0) -> None:
        """Process events until the Inbox pass, the team read and the memory journal's first
        look are done (a screenshot, a script, the benchmark): they run off the GUI thread,
        and a finished team read may ask for a pass."""
        app = QGuiApplication.instance()
        deadline, idle = time.monotonic() + timeout_s, 0
        while app is not None and idle < 3 and time.monotonic() < deadline:
            app.processEvents()
            busy = (
                self.reviewer.busy
                or self.runner.busy
                or self.team.pool.activeThreadCount() > 0
                or self.memory_actions.looking
            )
            idle = 0 if busy else idle + 1
            time.sleep(0.01)

    def close(self) -> None:
        self.drafts.finish()  # the draft as last typed is on disk before anything stops
        self.runner.stop()  # a write under way ends whole
        self.recent.close()
        self.team.stop()
        self.reviewer.stop()
        self.memory_actions.stop()
        if self.live is not None:
            self.live.close()
            self.live.deleteLater()
            self.live = None


def _team_of(controller: Controller | None) -> TeamView | None:
    """The team as the controller's bridge last read it (None once the controller is gone)."""
    return controller.team.view if controller is not None else None


def _session_of(controller: Controller | None) -> Session | None:
    """The open session of ``controller`` (None once it is gone, or with nothing open)."""
    return controller.live.session if controller is not None and controller.live is not None else None
