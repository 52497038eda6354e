"""The main window's menus, the keys on them (which work from any pane with the menus closed),
and the commands they run that need no more of the window than its panes and its signals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu

from models.text.tokens import TOKENIZER_NAMES
from ui.appearance import APPEARANCE_NAMES, APPEARANCES
from ui.help_dialogs import ShortcutsDialog

if TYPE_CHECKING:
    from ui.main_window import MainWindow


class WindowMenus:
    """The window's menu bar, built once over its panes: File, Edit, View, Session, Tokens and
    Help. What the Lead picks is done on the panes or asked of the controller through the
    window's signals; the choices shown (recent sessions, tokenizer, appearance) are set here."""

    def __init__(self, window: MainWindow) -> None:
        self._window = w = window
        file_menu = w.menuBar().addMenu("&File")
        edit_menu = w.menuBar().addMenu("&Edit")
        edit_menu.addAction(w.composer.undo_action)
        edit_menu.addAction(w.composer.redo_action)
        edit_menu.addSeparator()
        memory_undo = w.memory_pane.memory_actions.undo_stack.createUndoAction(w, "Undo TEAM-MEMORY change")
        memory_undo.setShortcut(QKeySequence("Ctrl+Alt+Z"))
        memory_redo = w.memory_pane.memory_actions.undo_stack.createRedoAction(w, "Redo TEAM-MEMORY change")
        memory_redo.setShortcut(QKeySequence("Ctrl+Alt+Shift+Z"))
        edit_menu.addAction(memory_undo)
        edit_menu.addAction(memory_redo)
        open_action = QAction("&Open Session…", w, shortcut=QKeySequence(QKeySequence.StandardKey.Open))
        open_action.triggered.connect(self._ask_open)
        file_menu.addAction(open_action)
        self.recent_menu = QMenu("Open &Recent", w)
        file_menu.addMenu(self.recent_menu)
        show_folder = QAction("&Show Session Folder", w)
        show_folder.setToolTip("Open the session's folder in the desktop's file manager")
        show_folder.triggered.connect(self._show_folder)
        file_menu.addAction(show_folder)
        self.reload_action = QAction("Re&load", w, shortcut=QKeySequence(QKeySequence.StandardKey.Refresh))
        self.reload_action.triggered.connect(w.reloadRequested)
        file_menu.addAction(self.reload_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", w)
        # The desktop's key for it; Ctrl+Q where it has none (Windows' themes and Qt's offscreen one).
        quit_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Quit) or [QKeySequence("Ctrl+Q")])
        quit_action.triggered.connect(w.close)
        file_menu.addAction(quit_action)

        view_menu = w.menuBar().addMenu("&View")
        for number, dock in enumerate(w.docks(), start=1):
            action = dock.toggleViewAction()
            action.setShortcut(QKeySequence(f"Alt+{number}"))
            view_menu.addAction(action)
        view_menu.addSeparator()
        for number, (dock, view) in enumerate(w.panes(), start=1):
            focus = QAction(f"Focus {dock.windowTitle()}", w, shortcut=QKeySequence(f"Ctrl+{number}"))
            focus.triggered.connect(lambda _=False, d=dock, v=view: w.bring_forward(d, v))
            view_menu.addAction(focus)
        find_keys = QKeySequence(QKeySequence.StandardKey.Find)
        find = QAction("&Find in TEAM-MEMORY or the Section Tree", w, shortcut=find_keys)
        find.triggered.connect(self._focus_search)
        view_menu.addAction(find)
        go_to = QAction("&Go to Section…", w, shortcut=QKeySequence("Ctrl+K"))
        go_to.triggered.connect(self._go_to_section)
        view_menu.addAction(go_to)
        compose = QAction("&Compose Update", w, shortcut=QKeySequence("Ctrl+Shift+U"))
        compose.triggered.connect(lambda: w.central_tabs.setCurrentWidget(w.composer))
        view_menu.addAction(compose)
        session_menu = w.menuBar().addMenu("&Session")
        for text, keys, run in (
            (
                "Start or Conclude &Gate…",
                "Ctrl+G",
                lambda: self._in_composer(w.composer.session_actions.toggle_gate),
            ),
            ("&Publish Update…", "Ctrl+Shift+P", lambda: self._in_composer(w.composer.session_actions.publish)),
            ("Paste &Message…", "Ctrl+Shift+V", lambda: self._in_inbox(w.review_pane._paste)),
            ("&Carry Out Selected Message", "Ctrl+Return", lambda: self._in_inbox(w.review_pane._carry)),
            ("&Reply to Selected Message…", "Ctrl+Shift+Return", lambda: self._in_inbox(w.review_pane._reply)),
            ("&Deliver Undelivered Updates", "Ctrl+Shift+D", w.deliverRequested.emit),
        ):
            action = QAction(text, w, shortcut=QKeySequence(keys))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)  # from any pane, focus anywhere
            action.triggered.connect(run)
            session_menu.addAction(action)
        self.subscriptions_action = QAction("&Subscriptions: What Each Role Follows…", w)
        self.subscriptions_action.setShortcut(QKeySequence("Ctrl+Shift+S"))
        self.subscriptions_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.subscriptions_action.triggered.connect(w.subscriptionsRequested.emit)
        session_menu.addAction(self.subscriptions_action)
        self.cost_action = QAction("C&ost of Sharing Context…", w)
        self.cost_action.setShortcut(QKeySequence("Ctrl+Shift+T"))
        self.cost_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.cost_action.triggered.connect(w.costRequested.emit)
        session_menu.addAction(self.cost_action)
        # At the end of the Inbox's button row, behind its » menu on a laptop.
        watch = QAction("&Watch Claude Code Team…", w)
        watch.triggered.connect(w.review_pane.teamRequested.emit)
        session_menu.addAction(watch)
        wrap = QAction("&Wrap Long Lines in the Editor", w, checkable=True, shortcut=QKeySequence("Alt+Z"))
        # Wrapped unless the Lead turned it off: on a laptop the editor's column is narrow.
        wrap.setChecked(w.settings.value("editor/wrap", "true") == "true")
        w.composer.section_editor.set_wrapped(wrap.isChecked())
        wrap.toggled.connect(self._wrap_editor)
        view_menu.addAction(wrap)
        columns = view_menu.addMenu("Teammate Colu&mns")  # the header's right-click menu, by keyboard
        columns.aboutToShow.connect(lambda: w.teammates_pane.columns.fill(columns))
        reset = QAction("Reset Lay&out", w)
        reset.triggered.connect(w.default_layout)
        reset.triggered.connect(lambda: w.splitters.reset())  # made after the menus
        view_menu.addAction(reset)
        appearance_menu = view_menu.addMenu("&Appearance")
        self.appearance_group = QActionGroup(w)
        for name in APPEARANCES:
            action = QAction(APPEARANCE_NAMES[name], w, checkable=True)
            action.setData(name)
            self.appearance_group.addAction(action)
            appearance_menu.addAction(action)
        self.appearance_group.triggered.connect(lambda a: w.appearanceRequested.emit(a.data()))
        for size_text, sequence, step in (
            ("&Larger Text", QKeySequence(QKeySequence.StandardKey.ZoomIn), 1),
            ("&Smaller Text", QKeySequence(QKeySequence.StandardKey.ZoomOut), -1),
            ("&Normal Text Size", QKeySequence("Ctrl+0"), 0),
        ):
            size = QAction(size_text, w, shortcut=sequence)
            size.triggered.connect(lambda _=False, n=step: w.textSizeRequested.emit(n))
            view_menu.addAction(size)

        token_menu = w.menuBar().addMenu("&Tokens")
        self.tokenizer_group = QActionGroup(w)
        for name in TOKENIZER_NAMES:
            action = QAction(name if name != "estimate" else "estimate (4 chars a token)", w, checkable=True)
            action.setData(name)
            self.tokenizer_group.addAction(action)
            token_menu.addAction(action)
        self.tokenizer_group.triggered.connect(lambda a: w.tokenizerRequested.emit(a.data()))
        help_menu = w.menuBar().addMenu("&Help")
        shortcuts = QAction("&Keyboard Shortcuts", w, shortcut=QKeySequence(QKeySequence.StandardKey.HelpContents))
        shortcuts.triggered.connect(self._show_shortcuts)
        help_menu.addAction(shortcuts)
        about = QAction("&About Lead Console", w)
        about.triggered.connect(w.aboutRequested.emit)
        help_menu.addAction(about)
        # A menu's keys must work with the menu closed and the focus in any pane: the window
        # holds each keyed action too (a hidden menu alone does not make its shortcut active).
        for menu_action in w.menuBar().actions():
            menu = menu_action.menu()
            for action in menu.actions() if isinstance(menu, QMenu) else []:
                if not action.shortcut().isEmpty():
                    w.addAction(action)

    def _show_folder(self) -> None:
        """The session's folder in the desktop's file manager (files the window does not show:
        transcripts, the outbox, phase folders)."""
        if self._window.session is None:
            self._window.statusBar().showMessage("No session is open", 5000)
        elif not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._window.session.folder))):
            self._window.statusBar().showMessage(f"No file manager opened {self._window.session.folder}", 8000)

    def _wrap_editor(self, wrapped: bool) -> None:
        """The section editor's wrapping, kept for the next run."""
        self._window.composer.section_editor.set_wrapped(wrapped)
        self._window.settings.setValue("editor/wrap", "true" if wrapped else "false")

    def _show_shortcuts(self) -> None:
        """The keys as the window has them now, in a window-modal dialog that does not block."""
        dialog = ShortcutsDialog(self._window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.filter_box.setFocus()  # taken as the dialog becomes active: type to filter
        dialog.open()

    # -- what the menus show and do ------------------------------------------------------------

    def set_recent(self, folders: list[Path]) -> None:
        self.recent_menu.clear()
        for number, folder in enumerate(folders, start=1):
            action = self.recent_menu.addAction(f"&{number % 10} {folder.name}  —  {folder.parent}")
            action.triggered.connect(lambda _=False, f=folder: self._window.openRequested.emit(str(f)))
        self.recent_menu.setEnabled(bool(folders))

    def set_tokenizer(self, name: str) -> None:
        _check(self.tokenizer_group, name)

    def set_appearance(self, name: str) -> None:
        _check(self.appearance_group, name)

    def _focus_search(self) -> None:
        """Ctrl+F finds where the Lead is: in the section tree, its Go to section box;
        anywhere else, TEAM-MEMORY's search."""
        focus = QApplication.focusWidget()
        if focus is not None and self._window.sections_pane.isAncestorOf(focus):
            self._go_to_section()
            return
        self._window.bring_forward(self._window.memory_dock, self._window.memory_pane.search_box)
        self._window.memory_pane.search_box.selectAll()

    def _go_to_section(self) -> None:
        self._window.bring_forward(self._window.sections_dock, self._window.sections_pane.find_box)
        self._window.sections_pane.find_box.selectAll()

    def _ask_open(self) -> None:
        start = str(self._window.session.folder.parent) if self._window.session else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self._window, "Open a session or project folder", start)
        if folder:
            self._window.openRequested.emit(folder)

    def _in_composer(self, act: Callable[[], object]) -> None:
        """Show the composer, then act: its keys work wherever the focus is."""
        self._window.central_tabs.setCurrentWidget(self._window.composer)
        act()

    def _in_inbox(self, act: Callable[[], object]) -> None:
        self._window.inbox_dock.show()
        self._window.inbox_dock.raise_()
        act()


def _check(group: QActionGroup, value: str) -> None:
    """Tick the menu item of ``group`` whose data is ``value`` (the choice saved or made)."""
    for action in group.actions():
        action.setChecked(action.data() == value)
