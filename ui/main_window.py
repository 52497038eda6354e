"""The main window: GC sections, section preview, teammates, TEAM-MEMORY and gates.

The window only shows a ``Session`` and asks for things through signals (open, reload,
change tokenizer); ``app.gui`` decides how they happen. Panes are docks, so the user can
rearrange them; their layout is kept in QSettings.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QFont
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QTabWidget,
    QWidget,
)

from models.review.ledger import Handled
from models.review.validation import Review
from models.session.folder import ALL_PARTS, Session
from models.session.gc import Section
from models.session.snapshot import Part
from models.session.team_memory import TeamMemory
from models.session.versions import label
from models.text.problems import Problem
from ui.composer.pane import ComposerPane
from ui.folder_drop import FolderDrop
from ui.font_follow import follow_dock_titles
from ui.memory_writer import MemoryWriter
from ui.node_model import PAYLOAD_ROLE
from ui.panes.attention_pane import AttentionPane
from ui.panes.context_pane import ContextPane
from ui.panes.gates_pane import GatesPane
from ui.panes.inbox_pane import ReviewPane
from ui.panes.memory_pane import MemoryPane
from ui.panes.planning_pane import PlanningPane
from ui.panes.sections_pane import SectionsPane
from ui.panes.teammates_pane import TeammatesPane
from ui.splitters import Splitters
from ui.status_line import StatusLine
from ui.widgets import MarkdownView, column, plain_label, widget_action
from ui.window_menus import WindowMenus


class MainWindow(QMainWindow):
    """Shows one session at a time and follows its updates."""

    openRequested = Signal(str)
    reloadRequested = Signal()
    deliverRequested = Signal()  # deliver updates not yet in the linked team's inboxes
    subscriptionsRequested = Signal()  # Session ▸ Subscriptions…: what each role follows
    costRequested = Signal()  # Session ▸ Cost of Sharing Context…
    draftDiscarded = Signal()  # the Lead discarded the composer's draft on closing
    tokenizerRequested = Signal(str)
    appearanceRequested = Signal(str)  # "system", "light" or "dark" (``ui.appearance``)
    textSizeRequested = Signal(int)  # a step larger (1), smaller (-1), or the desktop's size (0)
    aboutRequested = Signal()  # Help ▸ About: the app knows its installed version
    viewUpdated = Signal(set)  # parts shown anew, after the models synced
    sectionSelected = Signal(str)  # the § reference (without §), "" for none

    def __init__(self, settings: QSettings, memory_actions: MemoryWriter) -> None:
        super().__init__()
        self.settings = settings
        self.session: Session | None = None
        self._memory_writer = memory_actions  # TEAM-MEMORY's writer, the app's: the memory pane's
        self._memory_mark: object = None  # TEAM-MEMORY's roles as the teammate table last saw them
        self._marked: TeamMemory | None = None  # the version that mark was read from
        self._marked_replaced = False  # whether that version has a [REPLACED] section
        self._teammates_gc_version: int | None = None  # the GC version the teammate table last saw
        self._attention = 0  # messages that need the Lead, as the last Inbox pass counted them
        self.setWindowTitle("Lead Console")
        self.setDockNestingEnabled(True)

        self._build_preview()
        self._build_panes()
        self.status_line = StatusLine(self.statusBar())
        self.status_line.attention.clicked.connect(lambda: self.bring_forward(self.inbox_dock, self.review_pane.view))
        self.menus = WindowMenus(self)
        self.default_layout()
        self.splitters = Splitters(self, settings)  # the panes' dividers, kept with the docks
        FolderDrop(self, self.openRequested)  # a folder dropped on the window opens
        follow_dock_titles(self)  # View ▸ Larger Text reaches the panes' title bars too

    # -- focus ----------------------------------------------------------------------------

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab and Shift+Tab as Qt moves them, past the controls of docks behind another
        tab: Qt moves such a dock off the window rather than hiding it, and its controls took
        the focus unseen (44 of 120 Tab presses through the window)."""
        start = QApplication.focusWidget()
        for _ in range(500):  # a window's controls, many times over: never an endless loop
            if not super().focusNextPrevChild(next):
                return False
            now = QApplication.focusWidget()
            if now is None or now is start or not _behind_a_tab(now):
                return True
        return True

    def bring_forward(self, dock: QDockWidget, view: QWidget) -> None:
        """Show ``dock`` in front of the docks tabbed with it, and put the focus in ``view``:
        a view behind another tab, or in a closed dock, took the focus unseen."""
        dock.show()
        dock.raise_()
        view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- construction --------------------------------------------------------------------

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_preview(self) -> None:
        self.preview_title = plain_label("Select a section")
        self.preview_title.setWordWrap(True)  # a long heading wraps instead of widening the window
        self.preview_title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bold = QFont()  # only the weight set: the size follows the window's (View ▸ Larger Text)
        bold.setBold(True)
        self.preview_title.setFont(bold)
        self.preview = MarkdownView()
        self.composer = ComposerPane()
        self.central_tabs = QTabWidget()
        self.central_tabs.addTab(column(self.preview_title, self.preview), "Section")
        self.central_tabs.addTab(self.composer, "Compose update")
        self.setCentralWidget(self.central_tabs)

    def _build_panes(self) -> None:
        self.sections_pane = SectionsPane()
        self.sections_pane.gc_view.selectionModel().currentChanged.connect(lambda now, _: self._show_section(now))
        self.teammates_pane = TeammatesPane(self.settings)
        self.teammates_pane.stateShown.connect(lambda text: self.statusBar().showMessage(text, 5000))
        view = self.teammates_pane.teammate_view
        widget_action(view, "Copy this teammate's update message", "Ctrl+Shift+M", self._copy_teammate_message)
        self.teammates_pane.decisionRequested.connect(self.show_decision)
        self.memory_pane = MemoryPane(self.settings, self._memory_writer)
        self.gates_pane = GatesPane()
        self.review_pane = ReviewPane()
        self.attention_pane = AttentionPane()
        self.teammates_pane.teammate_view.selectionModel().currentChanged.connect(self._filter_inbox)
        self.context_pane = ContextPane(self.settings)
        self.planning_pane = PlanningPane(self.settings)
        left, right, bottom = (
            Qt.DockWidgetArea.LeftDockWidgetArea,
            Qt.DockWidgetArea.RightDockWidgetArea,
            Qt.DockWidgetArea.BottomDockWidgetArea,
        )
        self.sections_dock = self._dock("GC sections", "sections", self.sections_pane, left)
        self.teammates_dock = self._dock("Teammates", "teammates", self.teammates_pane, bottom)
        self.memory_dock = self._dock("TEAM-MEMORY", "memory", self.memory_pane, right)
        self.gates_dock = self._dock("Gates", "gates", self.gates_pane, bottom)
        self.inbox_dock = self._dock("Inbox", "inbox", self.review_pane, bottom)
        self.context_dock = self._dock("Context", "context", self.context_pane, right)
        self.context_dock.visibilityChanged.connect(self.context_pane.set_on_screen)
        self.planning_dock = self._dock("GSD planning", "planning", self.planning_pane, right)
        self.attention_dock = self._dock("Needs you", "attention", self.attention_pane, bottom)

    def show_reviews(
        self,
        reviews: list[Review],
        handled: Handled,
        pings: dict[str, str],
        lost: dict[str, str] | None = None,
        problems: list[Problem] | None = None,
    ) -> None:
        """The Inbox, the teammate table's ACK and Due columns, and the attention count."""
        attention = self.review_pane.show_reviews(reviews, handled, problems)
        self.teammates_pane.show_reviews(reviews, handled, pings, lost)
        self.status_line.show_attention(attention)
        if attention > self._attention and not self.isActiveWindow():
            QApplication.alert(self)  # the taskbar entry asks for the Lead, as a chat app's does
        self._attention = attention
        self._update_title()

    def _update_title(self) -> None:
        """The session, and what needs the Lead: seen in the taskbar while working elsewhere."""
        title = "Lead Console" if self.session is None else f"Lead Console — {self.session.id}"
        self.setWindowTitle(title + (f" — ⚑ {self._attention}" if self._attention else ""))

    def _filter_inbox(self) -> None:
        role = self.teammates_pane.selected_role()
        self.review_pane.filter_by(role)
        self.review_pane.preferred_sender = role

    def panes(self) -> list[tuple[QDockWidget, QWidget]]:
        """Every dock with the view its Ctrl+number key focuses, in the order of their keys."""
        return [
            (self.sections_dock, self.sections_pane.gc_view),
            (self.teammates_dock, self.teammates_pane.teammate_view),
            (self.memory_dock, self.memory_pane.memory_view),
            (self.gates_dock, self.gates_pane.gate_view),
            (self.inbox_dock, self.review_pane.view),
            (self.context_dock, self.context_pane.blocks_view),
            (self.planning_dock, self.planning_pane.view),
            (self.attention_dock, self.attention_pane.view),
        ]

    def docks(self) -> list[QDockWidget]:
        """Every dock, in the order of their Alt+number keys."""
        return [dock for dock, _ in self.panes()]

    def default_layout(self) -> None:
        for dock in self.docks():
            dock.show()
            dock.setFloating(False)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.sections_dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.memory_dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.teammates_dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.attention_dock)
        self.splitDockWidget(self.teammates_dock, self.attention_dock, Qt.Orientation.Horizontal)
        self.tabifyDockWidget(self.attention_dock, self.gates_dock)  # Needs you | Gates | Inbox
        self.tabifyDockWidget(self.gates_dock, self.inbox_dock)
        self.tabifyDockWidget(self.memory_dock, self.context_dock)
        self.tabifyDockWidget(self.context_dock, self.planning_dock)
        self.memory_dock.raise_()
        self.attention_dock.raise_()  # what needs the Lead, first
        self.resizeDocks([self.sections_dock, self.memory_dock], [320, 420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.teammates_dock, self.attention_dock], [720, 420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.teammates_dock], [205], Qt.Orientation.Vertical)

    # -- state between runs ----------------------------------------------------------------

    def restore_layout(self) -> None:
        """The last run's size and docks, kept within the screen this window is on now (a
        layout saved on a large monitor must not open off a laptop's edges)."""
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 900)
        if state is not None:
            self.restoreState(state)
        self.splitters.restore()
        self.fit_screen()

    def fit_screen(self) -> None:
        screen = self.screen()
        if screen is None:
            return
        room = screen.availableGeometry()
        frame = self.frameGeometry()
        width, height = min(self.width(), room.width()), min(self.height(), room.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        frame = self.frameGeometry()
        x = min(max(frame.x(), room.x()), room.right() - frame.width() + 1)
        y = min(max(frame.y(), room.y()), room.bottom() - frame.height() + 1)
        if (x, y) != (frame.x(), frame.y()):
            self.move(max(x, room.x()), max(y, room.y()))

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask before dropping unpublished composer edits; keep the layout for the next run."""
        composer = self.composer.composer
        if composer is not None and composer.dirty:
            if not self.confirm_discard():
                event.ignore()
                return
            self.draftDiscarded.emit()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.splitters.save()
        self.memory_pane.save_settings()
        self.settings.sync()
        super().closeEvent(event)

    def confirm_discard(self) -> bool:
        """Whether unpublished edits may be dropped (tests replace this)."""
        answer = QMessageBox.question(
            self,
            "Unpublished update",
            "The composer has an unpublished update. Discard it?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    # -- showing a session -------------------------------------------------------------------

    def show_session(self, session: Session, parts: set[Part] | None = None) -> None:
        """Show ``session`` anew (a new session) or update the ``parts`` that changed."""
        first = self.session is not session
        if first and self.session is not None:
            for model in (
                self.sections_pane.gc_model,
                self.teammates_pane.teammate_model,
                self.memory_pane.memory_model,
            ):
                model.clear()  # another session: nothing of the last one's rows carries over
        self.session = session
        todo: set[Part] = set(ALL_PARTS) if first or parts is None else set(parts)
        if "gc" in todo:
            self.sections_pane.show_gc(session, first)
            # A session opening previews its GC after the first frame: rendering the Markdown
            # took 13 ms of the open, before the section tree, the teammates and TEAM-MEMORY
            # (what the Lead looks for first) could paint.
            self._show_section(self.sections_pane.gc_view.currentIndex(), later=first)
        # The teammate table reads the plan, the phase folders and TEAM-MEMORY's roles, and of
        # the GC only its version: an agent's edit of the GC or an append to TEAM-MEMORY leaves
        # it as it was, and gathering 500 teammates again cost more than the edit.
        roles_changed = self._memory_roles_changed(session)  # kept current whatever else changed
        version_changed = session.gc_version != self._teammates_gc_version
        if todo & {"plan", "folders"} or ("gc" in todo and version_changed) or ("memory" in todo and roles_changed):
            self._teammates_gc_version = session.gc_version
            self.teammates_pane.show_teammates(session)
            self.review_pane.roles = session.roles()  # whom Paste message… offers as the sender
        if todo & {"gc", "plan", "memory", "folders"}:  # each teammate's context holds them all
            if first or self.context_pane.tokenizer is not session.tokenizer:  # or counted anew
                self.context_pane.set_session(session, session.tokenizer)
                self.planning_pane.set_tokenizer(session.tokenizer)
            else:
                self.context_pane.refresh()
        if "memory" in todo:
            self.memory_pane.show_memory(session, first)
        if todo & {"gates", "plan"}:  # the plan's gate list counts too
            self.gates_pane.show_gates(session)
        if first:
            # Laid out now, not in the next turn of the event loop as views do by themselves:
            # the first frame then holds the rows, and the window is painted once, not twice.
            for view in (self.sections_pane.gc_view, self.teammates_pane.teammate_view, self.memory_pane.memory_view):
                view.doItemsLayout()
        self._update_status()
        self.viewUpdated.emit(todo)

    def _memory_roles_changed(self, session: Session) -> bool:
        """Whether TEAM-MEMORY's part in the teammate table changed: its roles and where the
        [REPLACED] ones stand. An agent's append leaves both, and 500 teammates cost more to
        gather again than the append costs to read."""
        memory = session.memory
        follow = memory.follow_up if memory is not None else None
        marked, self._marked = self._marked, memory
        if memory is marked and memory is not None:
            return False  # the version the mark was read from (another part changed)
        if follow is not None and follow.previous() is marked and not self._marked_replaced:
            # Read from the version marked by re-reading one section's body: its headings, so
            # its roles, are that version's, and with no [REPLACED] section no line the mark
            # holds has moved (reading 400 sections for the mark took 0.3 ms of an append).
            return False
        roles = list(memory.roles()) if memory is not None else []
        mark = tuple((s.role, s.replaced and s.line) for s in roles) if memory is not None else None
        self._marked_replaced = any(s.replaced for s in roles)
        changed = mark != self._memory_mark
        self._memory_mark = mark
        return changed

    def _show_section(self, index: QModelIndex, later: bool = False) -> None:
        session = self.session
        if session is None or session.gc is None:
            self.preview_title.setText("No global-context.md in this session")
            self.preview.show_message("Nothing to preview.")
            return
        gc = session.gc
        section: Section | None = self.sections_pane.gc_model.data(index, PAYLOAD_ROLE) if index.isValid() else None
        self.composer.show_section(section.ref[1:] if section is not None else None)
        self.sectionSelected.emit(section.ref[1:] if section is not None else "")
        if section is None:
            self.preview_title.setText(f"{gc.title or 'Global context'} — {label(gc.version)} · {gc.tokens:,} tokens")
            body = gc.front.body_start  # the body's lines: to the last section's end (past the last line)
            lines = gc.sections[-1].end_line - gc.text.count("\n", 0, body) if gc.sections else None
            self.preview.show_markdown(gc.text, body, lines=lines, later=later)
            return
        self.preview_title.setText(f"{section.ref} · {section.tokens:,} tokens · line {section.line + 1}")
        self.preview.show_markdown(gc.text, section.start, section.end, section.end_line - section.line, later=later)

    def _update_status(self) -> None:
        if self.session is not None:
            self._update_title()
            self.status_line.show_session(self.session)

    # -- user actions ----------------------------------------------------------------------------

    def show_decision(self, role: str) -> None:
        """The composer in front, on what ``role`` is sent next and why."""
        self.central_tabs.setCurrentWidget(self.composer)
        if not self.composer.item_actions.show_decision(role):
            self.statusBar().showMessage(f"Nothing is composed for {role}: see the composer's header", 5000)

    def toggle_gate(self) -> None:
        """The composer in front, asked to start or conclude the gate (its own review follows)."""
        self.central_tabs.setCurrentWidget(self.composer)
        self.composer.session_actions.toggle_gate()

    def baseline(self) -> None:
        """The composer in front, asked to take a baseline of a session run by hand (its review follows)."""
        self.central_tabs.setCurrentWidget(self.composer)
        self.composer.session_actions.baseline()

    def _copy_teammate_message(self) -> str | None:
        """Copy the composed update for the teammate selected in the table (nothing if none is due)."""
        role = self.teammates_pane.selected_role()
        text = self.composer.copy_message(role) if role is not None else None
        self.statusBar().showMessage("Message copied" if text else "No update is due for this teammate", 3000)
        return text


def _behind_a_tab(widget: QWidget) -> bool:
    """Whether ``widget`` lies in a dock that another dock's tab hides."""
    parent: QWidget | None = widget
    while parent is not None:
        if isinstance(parent, QDockWidget) and not parent.isFloating() and parent.visibleRegion().isEmpty():
            return True
        parent = parent.parentWidget()
    return False
