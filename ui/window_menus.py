"""The main window's menus, the keys on them (which work from any pane with the menus closed),
and the commands they run that need no more of the window than its panes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog, QMainWindow, QMenu, QTabWidget, QWidget

from models.text.tokens import TOKENIZER_NAMES
from ui.appearance import APPEARANCE_NAMES, APPEARANCES
from ui.help_dialogs import ShortcutsDialog

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, SignalInstance

    from models.session.folder import Session
    from ui.composer.pane import ComposerPane
    from ui.memory_writer import MemoryWriter
    from ui.panes.inbox_pane import ReviewPane
    from ui.panes.memory_pane import MemoryPane
    from ui.panes.sections_pane import SectionsPane
    from ui.panes.teammates_pane import TeammatesPane
    from ui.splitters import Splitters


class WindowMenus(QMainWindow):
    """``MainWindow``'s base: its menus. What they need from the window is declared here."""

    composer: ComposerPane
    teammates_pane: TeammatesPane
    splitters: Splitters
    settings: QSettings
    session: Session | None
    memory_actions: MemoryWriter
    review_pane: ReviewPane
    central_tabs: QTabWidget
    inbox_dock: QDockWidget
    recent_menu: QMenu
    sections_pane: SectionsPane
    sections_dock: QDockWidget
    memory_pane: MemoryPane
    memory_dock: QDockWidget
    openRequested: SignalInstance
    reload_action: QAction
    tokenizer_group: QActionGroup
    appearance_group: QActionGroup
    reloadRequested: SignalInstance
    deliverRequested: SignalInstance
    tokenizerRequested: SignalInstance
    appearanceRequested: SignalInstance
    textSizeRequested: SignalInstance
    aboutRequested: SignalInstance

    if TYPE_CHECKING:  # the window's own methods, for the type checker only

        def _docks(self) -> list[QDockWidget]: ...
        def _panes(self) -> list[tuple[QDockWidget, QWidget]]: ...
        def _default_layout(self) -> None: ...

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
        show_folder = QAction("&Show Session Folder", self)
        show_folder.setToolTip("Open the session's folder in the desktop's file manager")
        show_folder.triggered.connect(self._show_folder)
        file_menu.addAction(show_folder)
        self.reload_action = QAction("Re&load", self, shortcut=QKeySequence(QKeySequence.StandardKey.Refresh))
        self.reload_action.triggered.connect(self.reloadRequested)
        file_menu.addAction(self.reload_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        # The desktop's key for it; Ctrl+Q where it has none (Windows' themes and Qt's offscreen one).
        quit_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Quit) or [QKeySequence("Ctrl+Q")])
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

        view_menu = self.menuBar().addMenu("&View")
        for number, dock in enumerate(self._docks(), start=1):
            action = dock.toggleViewAction()
            action.setShortcut(QKeySequence(f"Alt+{number}"))
            view_menu.addAction(action)
        view_menu.addSeparator()
        for number, (dock, view) in enumerate(self._panes(), start=1):
            focus = QAction(f"Focus {dock.windowTitle()}", self, shortcut=QKeySequence(f"Ctrl+{number}"))
            focus.triggered.connect(lambda _=False, d=dock, v=view: self._bring_forward(d, v))
            view_menu.addAction(focus)
        find_keys = QKeySequence(QKeySequence.StandardKey.Find)
        find = QAction("&Find in TEAM-MEMORY or the Section Tree", self, shortcut=find_keys)
        find.triggered.connect(self._focus_search)
        view_menu.addAction(find)
        go_to = QAction("&Go to Section…", self, shortcut=QKeySequence("Ctrl+K"))
        go_to.triggered.connect(self._go_to_section)
        view_menu.addAction(go_to)
        compose = QAction("&Compose Update", self, shortcut=QKeySequence("Ctrl+Shift+U"))
        compose.triggered.connect(lambda: self.central_tabs.setCurrentWidget(self.composer))
        view_menu.addAction(compose)
        session_menu = self.menuBar().addMenu("&Session")
        for text, keys, run in (
            (
                "Start or Conclude &Gate…",
                "Ctrl+G",
                lambda: self._in_composer(self.composer.session_actions.toggle_gate),
            ),
            ("&Publish Update…", "Ctrl+Shift+P", lambda: self._in_composer(self.composer.session_actions.publish)),
            ("Paste &Message…", "Ctrl+Shift+V", lambda: self._in_inbox(self.review_pane._paste)),
            ("&Carry Out Selected Message", "Ctrl+Return", lambda: self._in_inbox(self.review_pane._carry)),
            ("&Reply to Selected Message…", "Ctrl+Shift+Return", lambda: self._in_inbox(self.review_pane._reply)),
            ("&Deliver Undelivered Updates", "Ctrl+Shift+D", self.deliverRequested.emit),
        ):
            action = QAction(text, self, shortcut=QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)  # from any pane, focus anywhere
            action.triggered.connect(run)
            session_menu.addAction(action)
        # At the end of the Inbox's button row, behind its » menu on a laptop.
        watch = QAction("&Watch Claude Code Team…", self)
        watch.triggered.connect(self.review_pane.teamRequested.emit)
        session_menu.addAction(watch)
        wrap = QAction("&Wrap Long Lines in the Editor", self, checkable=True, shortcut=QKeySequence("Alt+Z"))
        # Wrapped unless the Lead turned it off: on a laptop the editor's column is narrow.
        wrap.setChecked(self.settings.value("editor/wrap", "true") == "true")
        self.composer.section_editor.set_wrapped(wrap.isChecked())
        wrap.toggled.connect(self._wrap_editor)
        view_menu.addAction(wrap)
        columns = view_menu.addMenu("Teammate Colu&mns")  # the header's right-click menu, by keyboard
        columns.aboutToShow.connect(lambda: self.teammates_pane.columns.fill(columns))
        reset = QAction("Reset Lay&out", self)
        reset.triggered.connect(self._default_layout)
        reset.triggered.connect(lambda: self.splitters.reset())  # made after the menus
        view_menu.addAction(reset)
        appearance_menu = view_menu.addMenu("&Appearance")
        self.appearance_group = QActionGroup(self)
        for name in APPEARANCES:
            action = QAction(APPEARANCE_NAMES[name], self, checkable=True)
            action.setData(name)
            self.appearance_group.addAction(action)
            appearance_menu.addAction(action)
        self.appearance_group.triggered.connect(lambda a: self.appearanceRequested.emit(a.data()))
        for size_text, sequence, step in (
            ("&Larger Text", QKeySequence(QKeySequence.StandardKey.ZoomIn), 1),
            ("&Smaller Text", QKeySequence(QKeySequence.StandardKey.ZoomOut), -1),
            ("&Normal Text Size", QKeySequence("Ctrl+0"), 0),
        ):
            size = QAction(size_text, self, shortcut=sequence)
            size.triggered.connect(lambda _=False, n=step: self.textSizeRequested.emit(n))
            view_menu.addAction(size)

        token_menu = self.menuBar().addMenu("&Tokens")
        self.tokenizer_group = QActionGroup(self)
        for name in TOKENIZER_NAMES:
            action = QAction(name if name != "estimate" else "estimate (4 chars a token)", self, checkable=True)
            action.setData(name)
            self.tokenizer_group.addAction(action)
            token_menu.addAction(action)
        self.tokenizer_group.triggered.connect(lambda a: self.tokenizerRequested.emit(a.data()))
        help_menu = self.menuBar().addMenu("&Help")
        shortcuts = QAction("&Keyboard Shortcuts", self, shortcut=QKeySequence(QKeySequence.StandardKey.HelpContents))
        shortcuts.triggered.connect(self._show_shortcuts)
        help_menu.addAction(shortcuts)
        about = QAction("&About Lead Console", self)
        about.triggered.connect(self.aboutRequested.emit)
        help_menu.addAction(about)
        # A menu's keys must work with the menu closed and the focus in any pane: the window
        # holds each keyed action too (a hidden menu alone does not make its shortcut active).
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            for action in menu.actions() if isinstance(menu, QMenu) else []:
                if not action.shortcut().isEmpty():
                    self.addAction(action)

    def _show_folder(self) -> None:
        """The session's folder in the desktop's file manager (files the window does not show:
        transcripts, the outbox, phase folders)."""
        if self.session is None:
            self.statusBar().showMessage("No session is open", 5000)
        elif not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.session.folder))):
            self.statusBar().showMessage(f"No file manager opened {self.session.folder}", 8000)

    def _wrap_editor(self, wrapped: bool) -> None:
        """The section editor's wrapping, kept for the next run."""
        self.composer.section_editor.set_wrapped(wrapped)
        self.settings.setValue("editor/wrap", "true" if wrapped else "false")

    def _show_shortcuts(self) -> None:
        """The keys as the window has them now, in a window-modal dialog that does not block."""
        dialog = ShortcutsDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.filter_box.setFocus()  # taken as the dialog becomes active: type to filter
        dialog.open()

    # -- what the menus show and do ------------------------------------------------------------

    def set_recent(self, folders: list[Path]) -> None:
        self.recent_menu.clear()
        for number, folder in enumerate(folders, start=1):
            action = self.recent_menu.addAction(f"&{number % 10} {folder.name}  —  {folder.parent}")
            action.triggered.connect(lambda _=False, f=folder: self.openRequested.emit(str(f)))
        self.recent_menu.setEnabled(bool(folders))

    def set_tokenizer(self, name: str) -> None:
        _check(self.tokenizer_group, name)

    def set_appearance(self, name: str) -> None:
        _check(self.appearance_group, name)

    def _focus_search(self) -> None:
        """Ctrl+F finds where the Lead is: in the section tree, its Go to section box;
        anywhere else, TEAM-MEMORY's search."""
        focus = QApplication.focusWidget()
        if focus is not None and self.sections_pane.isAncestorOf(focus):
            self._go_to_section()
            return
        self._bring_forward(self.memory_dock, self.memory_pane.search_box)
        self.memory_pane.search_box.selectAll()

    def _go_to_section(self) -> None:
        self._bring_forward(self.sections_dock, self.sections_pane.find_box)
        self.sections_pane.find_box.selectAll()

    def _ask_open(self) -> None:
        start = str(self.session.folder.parent) if self.session else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open a session or project folder", start)
        if folder:
            self.openRequested.emit(folder)

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

    def _bring_forward(self, dock: QDockWidget, view: QWidget) -> None:
        """Show ``dock`` in front of the docks tabbed with it, and put the focus in ``view``:
        a view behind another tab, or in a closed dock, took the focus unseen."""
        dock.show()
        dock.raise_()
        view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _in_composer(self, act: Callable[[], object]) -> None:
        """Show the composer, then act: its keys work wherever the focus is."""
        self.central_tabs.setCurrentWidget(self.composer)
        act()

    def _in_inbox(self, act: Callable[[], object]) -> None:
        self.inbox_dock.show()
        self.inbox_dock.raise_()
        act()


def _behind_a_tab(widget: QWidget) -> bool:
    """Whether ``widget`` lies in a dock that another dock's tab hides."""
    parent: QWidget | None = widget
    while parent is not None:
        if isinstance(parent, QDockWidget) and not parent.isFloating() and parent.visibleRegion().isEmpty():
            return True
        parent = parent.parentWidget()
    return False


def _check(group: QActionGroup, value: str) -> None:
    """Tick the menu item of ``group`` whose data is ``value`` (the choice saved or made)."""
    for action in group.actions():
        action.setChecked(action.data() == value)
