"""The main window: GC sections, section preview, teammates, TEAM-MEMORY and gates.

The window only shows a ``Session`` and asks for things through signals (open, reload,
change tokenizer); ``app.gui`` decides how they happen. Panes are docks, so the user can
rearrange them; their layout is kept in QSettings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QSettings, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QTreeView,
    QWidget,
)

from models.memory.access import access_of
from models.memory.loss import Loss
from models.review.validation import Review
from models.session.folder import ALL_PARTS, Part, Session
from models.session.gc import Section
from models.session.team_memory import LINE_LIMIT, TAGS, MemoryEntry, MemoryQuery, MemorySection
from models.session.versions import label
from models.text.problems import Problem
from models.text.tokens import TOKENIZER_NAMES
from ui.composer_pane import ComposerPane
from ui.context_pane import ContextPane
from ui.item_models import (
    SORT_ROLE,
    GateModel,
    GcTreeModel,
    MemoryModel,
    TeammateModel,
)
from ui.memory_actions import MemoryActions
from ui.node_model import PAYLOAD_ROLE
from ui.review_pane import ReviewPane
from ui.widgets import MarkdownView, ProblemBanner, button, column, row, table_view

ALL_TAGS = "All tags"
EXPAND_LIMIT = 2_000  # memory entries shown expanded when a session opens


DUE_ACTIONS = ("confirm", "resend", "full", "guide", "lost", "attention")


def _ack_result(r: Review) -> str:
    """``2/3 NEED_CLARIFICATION`` (``?`` for what the ACK did not say)."""
    ack = r.ack
    assert ack is not None
    applied = "?" if ack.applied is None else ack.applied
    total = "?" if ack.total is None else ack.total
    return f"{applied}/{total} {ack.action or '?'}"


def _number_columns(view: QTreeView, samples: dict[int, str]) -> None:
    """Stretch column 0 and size the others once from sample text.

    ``ResizeToContents`` would measure every row after every change, which on a 20,000-row
    tree costs seconds; the sample width fits the widest value these columns hold.
    """
    header = view.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for number, sample in samples.items():
        header.setSectionResizeMode(number, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(number, view.fontMetrics().horizontalAdvance(sample) + 24)


class MainWindow(QMainWindow):
    """Shows one session at a time and follows its updates."""

    openRequested = Signal(str)
    reloadRequested = Signal()
    tokenizerRequested = Signal(str)
    viewUpdated = Signal(set)  # parts shown anew, after the models synced
    sectionSelected = Signal(str)  # the § reference (without §), "" for none

    def __init__(self, settings: QSettings) -> None:
        super().__init__()
        self.settings = settings
        self.session: Session | None = None
        self.setWindowTitle("Lead Console")
        self.setDockNestingEnabled(True)

        self.gc_model = GcTreeModel(self)
        self.teammate_model = TeammateModel(self)
        self.memory_model = MemoryModel(self)
        self.gate_model = GateModel(self)

        self._build_preview()
        self._build_sections()
        self._build_teammates()
        self._build_memory()
        self._build_gates()
        self._build_inbox()
        self._build_context()
        self._build_status()
        self._build_menus()
        self._default_layout()

    # -- construction --------------------------------------------------------------------

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_preview(self) -> None:
        self.preview_title = QLabel("Select a section")
        self.preview_title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.preview_title.font()
        font.setBold(True)
        self.preview_title.setFont(font)
        self.preview = MarkdownView()
        self.composer = ComposerPane()
        self.central_tabs = QTabWidget()
        self.central_tabs.addTab(column(self.preview_title, self.preview), "Section")
        self.central_tabs.addTab(self.composer, "Compose update")
        self.setCentralWidget(self.central_tabs)

    def _build_sections(self) -> None:
        self.gc_banner = ProblemBanner()
        self.gc_view = QTreeView()
        self.gc_view.setModel(self.gc_model)
        self.gc_view.setUniformRowHeights(True)
        self.gc_view.setAlternatingRowColors(True)
        _number_columns(self.gc_view, {1: "000,000", 2: "Items"})
        self.gc_view.selectionModel().currentChanged.connect(self._show_section)
        self.gc_view.setMinimumWidth(300)
        self.sections_dock = self._dock(
            "GC sections",
            "sections",
            column(self.gc_banner, self.gc_view),
            Qt.DockWidgetArea.LeftDockWidgetArea,
        )

    def _build_teammates(self) -> None:
        self.plan_banner = ProblemBanner()
        self.teammate_proxy = QSortFilterProxyModel(self)
        self.teammate_proxy.setSourceModel(self.teammate_model)
        self.teammate_proxy.setSortRole(SORT_ROLE)
        self.teammate_view = table_view(self.teammate_proxy, fit_columns=True)
        self.teammate_view.setSortingEnabled(True)
        self.teammate_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        copy = QAction("Copy this teammate's update message", self.teammate_view)
        copy.setShortcut(QKeySequence("Ctrl+Shift+M"))
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self._copy_teammate_message)
        self.teammate_view.addAction(copy)
        self.teammate_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.teammates_dock = self._dock(
            "Teammates",
            "teammates",
            column(self.plan_banner, self.teammate_view),
            Qt.DockWidgetArea.BottomDockWidgetArea,
        )

    def _build_memory(self) -> None:
        self.memory_banner = ProblemBanner()
        self.tag_box = QComboBox()
        self.tag_box.addItems([ALL_TAGS, *TAGS])
        self.tag_box.setToolTip("Show entries with this tag only")
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search entries (Ctrl+F)")
        self.search_box.setClearButtonEnabled(True)
        self.archived_box = QCheckBox("Archived")
        self.archived_box.setToolTip("Show entries marked [ARCHIVED]")
        self.archived_box.setChecked(self.settings.value("memory/show_archived", "true") == "true")
        self.line_count = QLabel()
        bar = QWidget()
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.tag_box, self.search_box, self.archived_box, self.line_count):
            bar_layout.addWidget(w)
        bar_layout.setStretch(1, 1)
        self.memory_view = QTreeView()
        self.memory_view.setModel(self.memory_model)
        self.memory_view.setAlternatingRowColors(True)
        self.memory_view.setUniformRowHeights(True)
        self.memory_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        _number_columns(self.memory_view, {1: "Dependency"})
        self.memory_model.rowsInserted.connect(self._expand_inserted_sections)
        self.tag_box.currentTextChanged.connect(self._apply_memory_filter)
        self.search_box.textChanged.connect(self._apply_memory_filter)
        self.archived_box.toggled.connect(self._apply_memory_filter)
        self.memory_actions = MemoryActions(self)
        self.memory_actions.confirm = self._confirm_memory_change  # type: ignore[method-assign]
        self.memory_actions.failed.connect(
            lambda message: self.memory_banner.show_problems([Problem("error", "TEAM-MEMORY.md", message)])
        )
        self.memory_actions.lossFound.connect(self._show_loss)
        self.access_label = QLabel()
        self.access_label.setToolTip("ADR-001 §5: who may write the selected section")
        self.loss_label = QLabel()
        self.loss_label.setWordWrap(True)
        self.loss_label.setStyleSheet("QLabel { background:#f8d7da; color:#58151c; padding:4px; }")
        self.restore_button = QPushButton("Restore lost entries")
        self.restore_button.clicked.connect(self.memory_actions.restore_lost)
        self.loss_box = row(self.loss_label, self.restore_button)
        self.loss_box.hide()
        actions = row(
            button("Add…", self._add_memory_entry, "Ctrl+Shift+A", self, context=Qt.ShortcutContext.WindowShortcut),
            button("Archive", self._archive_selected, "Ctrl+Shift+X", self, context=Qt.ShortcutContext.WindowShortcut),
            button("Archive phase…", self._archive_phase, None, self, context=Qt.ShortcutContext.WindowShortcut),
            button("Replace…", self._replace_teammate, None, self, context=Qt.ShortcutContext.WindowShortcut),
            button("Prune", self.memory_actions.prune, None, self, context=Qt.ShortcutContext.WindowShortcut),
            self.access_label,
        )
        self.memory_view.selectionModel().currentChanged.connect(self._show_access)
        self.memory_dock = self._dock(
            "TEAM-MEMORY",
            "memory",
            column(bar, actions, self.memory_banner, self.loss_box, self.memory_view),
            Qt.DockWidgetArea.RightDockWidgetArea,
        )
        self._apply_memory_filter()

    def _build_inbox(self) -> None:
        self.review_pane = ReviewPane()
        self.status_attention = QLabel()
        self.inbox_dock = self._dock("Inbox", "inbox", self.review_pane, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.teammate_view.selectionModel().currentChanged.connect(self._filter_inbox)

    def show_reviews(self, reviews: list[Review], handled: set[tuple[str, str]], pings: dict[str, str]) -> None:
        """The Inbox, the teammate table's ACK and Due columns, and the attention count."""
        attention = self.review_pane.show_reviews(reviews, handled)
        acks: dict[str, str] = {}
        due: dict[str, str] = {}
        for r in reviews:  # oldest first: later messages override earlier ones
            role = r.message.sender
            if role is None:
                continue
            if r.ack is not None:
                acks[role] = _ack_result(r)
            done = (r.message.source, r.message.sha) in handled
            if not done and r.action in DUE_ACTIONS:
                due[role] = f"{r.action} since {r.message.timestamp or '?'}"
            elif done:
                due.pop(role, None)
        for role, since in pings.items():
            due.setdefault(role, f"ping (no ACK since {since})")
        self.teammate_model.set_reviews(acks, due)
        self.status_attention.setText(f"⚑ {attention} need attention" if attention else "")

    def _filter_inbox(self, index: QModelIndex) -> None:
        mate = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        self.review_pane.model.set_filter(
            mate.role if mate is not None else None, self.review_pane.reports_only.isChecked()
        )

    def _build_context(self) -> None:
        self.context_pane = ContextPane(self.settings)
        self.context_dock = self._dock("Context", "context", self.context_pane, Qt.DockWidgetArea.RightDockWidgetArea)

    def _build_gates(self) -> None:
        self.gates_banner = ProblemBanner()
        self.gate_view = table_view(self.gate_model, fit_columns=True)
        self.gates_dock = self._dock(
            "Gates",
            "gates",
            column(self.gates_banner, self.gate_view),
            Qt.DockWidgetArea.BottomDockWidgetArea,
        )

    def _build_status(self) -> None:
        bar = self.statusBar()
        self.status_session = QLabel("No session")
        self.status_version = QLabel()
        self.status_tokens = QLabel()
        self.status_problems = QLabel()
        for w in (
            self.status_session,
            self.status_version,
            self.status_tokens,
            self.status_problems,
            self.status_attention,
        ):
            w.setContentsMargins(10, 0, 10, 0)
            bar.addPermanentWidget(w)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.composer.undo_action)
        edit_menu.addAction(self.composer.redo_action)
        edit_menu.addSeparator()
        memory_undo = self.memory_actions.undo_stack.createUndoAction(self, "Undo TEAM-MEMORY change")
        memory_undo.setShortcut(QKeySequence("Ctrl+Alt+Z"))
        memory_redo = self.memory_actions.undo_stack.createRedoAction(self, "Redo TEAM-MEMORY change")
        memory_redo.setShortcut(QKeySequence("Ctrl+Alt+Shift+Z"))
        edit_menu.addAction(memory_undo)
        edit_menu.addAction(memory_redo)
        open_action = QAction("&Open Session…", self, shortcut=QKeySequence(QKeySequence.StandardKey.Open))
        open_action.triggered.connect(self._ask_open)
        file_menu.addAction(open_action)
        self.recent_menu = QMenu("Open &Recent", self)
        file_menu.addMenu(self.recent_menu)
        self.reload_action = QAction("&Reload", self, shortcut=QKeySequence(QKeySequence.StandardKey.Refresh))
        self.reload_action.triggered.connect(self.reloadRequested)
        file_menu.addAction(self.reload_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self, shortcut=QKeySequence(QKeySequence.StandardKey.Quit))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = self.menuBar().addMenu("&View")
        docks = (
            self.sections_dock,
            self.teammates_dock,
            self.memory_dock,
            self.gates_dock,
            self.inbox_dock,
            self.context_dock,
        )
        for number, dock in enumerate(docks, start=1):
            action = dock.toggleViewAction()
            action.setShortcut(QKeySequence(f"Alt+{number}"))
            view_menu.addAction(action)
        view_menu.addSeparator()
        for keys, label_text, widget in (
            ("Ctrl+1", "Focus GC Sections", self.gc_view),
            ("Ctrl+2", "Focus Teammates", self.teammate_view),
            ("Ctrl+3", "Focus TEAM-MEMORY", self.memory_view),
            ("Ctrl+4", "Focus Gates", self.gate_view),
        ):
            focus = QAction(label_text, self, shortcut=QKeySequence(keys))
            focus.triggered.connect(widget.setFocus)
            view_menu.addAction(focus)
        find = QAction("Find in TEAM-MEMORY", self, shortcut=QKeySequence(QKeySequence.StandardKey.Find))
        find.triggered.connect(self._focus_search)
        view_menu.addAction(find)
        compose = QAction("&Compose Update", self, shortcut=QKeySequence("Ctrl+Shift+U"))
        compose.triggered.connect(lambda: self.central_tabs.setCurrentWidget(self.composer))
        view_menu.addAction(compose)
        reset = QAction("Reset &Layout", self)
        reset.triggered.connect(self._default_layout)
        view_menu.addAction(reset)

        token_menu = self.menuBar().addMenu("&Tokens")
        self.tokenizer_group = QActionGroup(self)
        for name in TOKENIZER_NAMES:
            action = QAction(name if name != "estimate" else "estimate (4 chars a token)", self, checkable=True)
            action.setData(name)
            self.tokenizer_group.addAction(action)
            token_menu.addAction(action)
        self.tokenizer_group.triggered.connect(lambda a: self.tokenizerRequested.emit(a.data()))

    def _docks(self) -> list[QDockWidget]:
        return [
            self.sections_dock,
            self.teammates_dock,
            self.memory_dock,
            self.gates_dock,
            self.inbox_dock,
            self.context_dock,
        ]

    def _default_layout(self) -> None:
        for dock in (
            self.sections_dock,
            self.teammates_dock,
            self.memory_dock,
            self.gates_dock,
            self.inbox_dock,
            self.context_dock,
        ):
            dock.show()
            dock.setFloating(False)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.sections_dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.memory_dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.teammates_dock)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.gates_dock)
        self.splitDockWidget(self.teammates_dock, self.gates_dock, Qt.Orientation.Horizontal)
        self.tabifyDockWidget(self.gates_dock, self.inbox_dock)
        self.tabifyDockWidget(self.memory_dock, self.context_dock)
        self.memory_dock.raise_()
        self.resizeDocks([self.sections_dock, self.memory_dock], [380, 460], Qt.Orientation.Horizontal)
        self.resizeDocks([self.teammates_dock, self.gates_dock], [720, 420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.teammates_dock], [230], Qt.Orientation.Vertical)

    # -- state between runs ----------------------------------------------------------------

    def restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 900)
        if state is not None:
            self.restoreState(state)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask before dropping unpublished composer edits; keep the layout for the next run."""
        composer = self.composer.composer
        if composer is not None and composer.dirty and not self.confirm_discard():
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("memory/show_archived", "true" if self.archived_box.isChecked() else "false")
        self.settings.sync()
        super().closeEvent(event)

    def confirm_discard(self) -> bool:
        """Whether unpublished edits may be dropped (tests replace this)."""
        answer = QMessageBox.question(
            self,
            "Unpublished update",
            "The composer has an unpublished update. Close and discard it?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    def set_recent(self, folders: list[Path]) -> None:
        self.recent_menu.clear()
        for number, folder in enumerate(folders, start=1):
            action = self.recent_menu.addAction(f"&{number % 10} {folder.name}  —  {folder.parent}")
            action.triggered.connect(lambda _=False, f=folder: self.openRequested.emit(str(f)))
        self.recent_menu.setEnabled(bool(folders))

    def set_tokenizer(self, name: str) -> None:
        for action in self.tokenizer_group.actions():
            action.setChecked(action.data() == name)

    # -- showing a session -------------------------------------------------------------------

    def show_session(self, session: Session, parts: set[Part] | None = None) -> None:
        """Show ``session`` anew (a new session) or update the ``parts`` that changed."""
        first = self.session is not session
        self.session = session
        todo: set[Part] = set(ALL_PARTS) if first or parts is None else set(parts)
        if "gc" in todo:
            self.gc_model.set_gc(session.gc)
            self.gc_banner.show_problems(session.problems.get("gc", []))
            if first:
                self.gc_view.expandAll()
                self.gc_view.setCurrentIndex(QModelIndex())
            self._show_section(self.gc_view.currentIndex())
        if todo & {"gc", "plan", "memory", "folders"}:
            self.teammate_model.set_teammates(session.teammates(), session.gc_version)
            if first:
                self.context_pane.set_session(session, session.tokenizer)
            else:
                self.context_pane.refresh()
            self.plan_banner.show_problems(session.problems.get("plan", []))
        if "memory" in todo:
            path = session.folder / "TEAM-MEMORY.md"
            text = session.memory.text if session.memory else None
            if first or self.memory_actions.path != path:
                self.memory_actions.set_file(path, text, session.memory)
            else:
                self.memory_actions.check_loss(text, session.memory)
            self.memory_model.set_memory(session.memory)
            self.memory_banner.show_problems(session.problems.get("memory", []))
            self._update_memory_bar()
            if first:
                self._expand_memory_sections()
        if "gates" in todo:
            self.gate_model.set_gates(session.gates)
            self.gates_banner.show_problems(session.problems.get("gates", []))
        self._update_status()
        self.viewUpdated.emit(todo)

    def _show_section(self, index: QModelIndex) -> None:
        session = self.session
        if session is None or session.gc is None:
            self.preview_title.setText("No global-context.md in this session")
            self.preview.show_message("Nothing to preview.")
            return
        gc = session.gc
        section: Section | None = self.gc_model.data(index, PAYLOAD_ROLE) if index.isValid() else None
        self.composer.show_section(section.ref[1:] if section is not None else None)
        self.sectionSelected.emit(section.ref[1:] if section is not None else "")
        if section is None:
            self.preview_title.setText(f"{gc.title or 'Global context'} — {label(gc.version)} · {gc.tokens:,} tokens")
            self.preview.show_markdown(gc.text[gc.front.body_start :])
            return
        self.preview_title.setText(f"{section.ref} · {section.tokens:,} tokens · line {section.line + 1}")
        self.preview.show_markdown(gc.text[section.start : section.end])

    def _update_memory_bar(self) -> None:
        memory = self.session.memory if self.session else None
        if memory is None:
            self.line_count.setText("no TEAM-MEMORY.md")
            self.line_count.setStyleSheet("")
            return
        over = memory.line_count > LINE_LIMIT
        self.line_count.setText(f"{memory.line_count} / {LINE_LIMIT} lines")
        self.line_count.setStyleSheet("color:#b42318; font-weight:bold" if over else "")
        self.line_count.setToolTip("Above 500 lines ADR-001 asks the Lead to remove [ARCHIVED] entries" if over else "")
        present = sorted({e.tag for s in memory.sections for e in s.entries if e.tag and e.tag not in TAGS})
        wanted = [ALL_TAGS, *TAGS, *present]
        if [self.tag_box.itemText(i) for i in range(self.tag_box.count())] != wanted:
            current = self.tag_box.currentText()
            self.tag_box.blockSignals(True)
            self.tag_box.clear()
            self.tag_box.addItems(wanted)
            self.tag_box.setCurrentText(current if current in wanted else ALL_TAGS)
            self.tag_box.blockSignals(False)

    def _update_status(self) -> None:
        session = self.session
        if session is None:
            return
        self.setWindowTitle(f"Lead Console — {session.id}")
        self.status_session.setText(f"Session: {session.id}")
        version = session.gc_version
        self.status_version.setText(label(version) if version is not None else "GC unversioned")
        gc = session.gc
        tokens = f"{gc.tokens:,} tokens ({session.tokenizer.name})" if gc else "no GC"
        self.status_tokens.setText(tokens)
        problems: list[Problem] = session.all_problems
        self.status_problems.setText(f"⚠ {len(problems)} warnings" if problems else "")
        self.status_problems.setToolTip("\n".join(str(p) for p in problems))

    # -- user actions ----------------------------------------------------------------------------

    def _apply_memory_filter(self) -> None:
        tag = self.tag_box.currentText()
        query = MemoryQuery(None if tag == ALL_TAGS else tag, self.search_box.text(), self.archived_box.isChecked())
        self.memory_model.set_query(query)

    def _expand_memory_sections(self) -> None:
        """Expand the sections of a file of readable size; leave a huge one collapsed.

        A tree view lays out every expanded row again after each change; with thousands of
        entries open (far past ADR-001's 500 lines) every live update would cost that.
        """
        self._expand_memory_rows(0, self.memory_model.rowCount() - 1)

    def _expand_inserted_sections(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            self._expand_memory_rows(first, last)

    def _expand_memory_rows(self, first: int, last: int) -> None:
        model = self.memory_model
        if model.entry_count() > EXPAND_LIMIT:
            return
        for number in range(first, last + 1):
            self.memory_view.expand(model.index(number, 0))

    def _copy_teammate_message(self) -> str | None:
        """Copy the composed update for the teammate selected in the table (nothing if none is due)."""
        index = self.teammate_view.currentIndex()
        mate = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        text = self.composer.copy_message(mate.role) if mate is not None else None
        self.statusBar().showMessage("Message copied" if text else "No update is due for this teammate", 3000)
        return text

    def _confirm_memory_change(self, title: str, diff: str) -> bool:
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setText(f"{title}: write this change to TEAM-MEMORY.md?")
        box.setDetailedText(diff)
        box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Ok

    def _memory_failed(self, message: str) -> None:
        self.memory_banner.show_problems([Problem("error", "TEAM-MEMORY.md", message)])

    def _show_loss(self, loss: Loss) -> None:
        if not loss.any:
            self.loss_box.hide()
            return
        lines = loss.describe()
        for header, entries in loss.lost_entries.items():
            lines += [f"  {header}: {e.strip()[:100]}" for e in entries[:5]]
        self.loss_label.setText(
            "An outside write to TEAM-MEMORY.md took entries away (ADR-001: Edit, never Write):\n" + "\n".join(lines)
        )
        self.restore_button.setEnabled(bool(loss.lost_entries or loss.removed_sections))
        self.loss_box.show()

    def _memory_roles(self) -> list[str]:
        memory = self.session.memory if self.session else None
        roles = ["Lead"] + [s.role for s in memory.roles() if not s.replaced] if memory else ["Lead"]
        mates = [t.role for t in self.session.teammates()] if self.session else []
        return list(dict.fromkeys([*roles, *mates]))

    def _add_memory_entry(self) -> None:
        role, ok = QInputDialog.getItem(
            self, "Add entry", "Section (relay roles are marked relayed):", self._memory_roles(), 0, False
        )
        if not ok:
            return
        tag, ok = QInputDialog.getItem(self, "Add entry", "Tag:", list(TAGS), 0, False)
        if not ok:
            return
        text, ok = QInputDialog.getText(self, "Add entry", f"[{tag}] entry for {role}:")
        if ok and text.strip():
            self.memory_actions.add_entry(role, tag, text.strip())

    def selected_memory_entries(self) -> list[tuple[str, MemoryEntry]]:
        chosen = []
        for index in self.memory_view.selectionModel().selectedRows(0):
            payload = self.memory_model.data(index, PAYLOAD_ROLE)
            parent = self.memory_model.data(index.parent(), PAYLOAD_ROLE)
            if isinstance(payload, MemoryEntry) and isinstance(parent, MemorySection):
                chosen.append((parent.header, payload))
        return chosen

    def _archive_selected(self) -> None:
        chosen = self.selected_memory_entries()
        if chosen:
            self.memory_actions.archive(chosen)

    def _archive_phase(self) -> None:
        phase, ok = QInputDialog.getInt(self, "Archive a phase", "Archive the entries of phase:", 1, 0, 99)
        if ok:
            self.memory_actions.archive_phase(phase)

    def _replace_teammate(self) -> None:
        roles = [r for r in self._memory_roles() if r != "Lead"]
        role, ok = QInputDialog.getItem(self, "Replace a teammate", "Teammate being replaced:", roles, 0, False)
        if ok:
            self.memory_actions.replace_teammate(role)

    def _show_access(self, index: QModelIndex) -> None:
        payload = self.memory_model.data(index, PAYLOAD_ROLE)
        parent = self.memory_model.data(index.parent(), PAYLOAD_ROLE)
        section = payload if isinstance(payload, MemorySection) else parent
        self.access_label.setText(
            f"{section.role}: {access_of(section.role)}" if isinstance(section, MemorySection) else ""
        )

    def _focus_search(self) -> None:
        self.memory_dock.show()
        self.memory_dock.raise_()
        self.search_box.setFocus()
        self.search_box.selectAll()

    def _ask_open(self) -> None:
        start = str(self.session.folder.parent) if self.session else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open a session or project folder", start)
        if folder:
            self.openRequested.emit(folder)
