"""Help ▸ Keyboard Shortcuts and Help ▸ About: read off the window as it is, so never stale.

The keys were listed in the README only; a Lead at the window had to guess which pane's keys
work where (Ctrl+C copies a section in the tree and entries in TEAM-MEMORY). The list here is
gathered from the window's own actions, with the pane where each key works.
"""

from __future__ import annotations

import html
import platform
from dataclasses import dataclass

import PySide6
from PySide6.QtCore import QSortFilterProxyModel, Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QHeaderView,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ui.widgets import table_view

ANYWHERE = "anywhere"


@dataclass(frozen=True)
class Shortcut:
    keys: str  # as the desktop writes them: "Ctrl+Shift+M"
    action: str  # the command's name, without its menu accelerator
    where: str  # "anywhere"; a pane, whose focus the key needs; or "<pane>, focus anywhere"


def _where(action: QAction) -> str:
    """Where ``action``'s key works: anywhere (the window's own commands), in a pane (a dock's
    title, or the window's tab: the outermost, not a tab inside it) while the focus is in it,
    or from anywhere while that pane is shown ("TEAM-MEMORY, focus anywhere")."""
    widget = action.parent()
    if action.shortcutContext() == Qt.ShortcutContext.ApplicationShortcut or any(
        isinstance(o, (QMainWindow, QMenu)) for o in action.associatedObjects()
    ):
        return ANYWHERE  # on a menu: the window holds its key too (``WindowMenus``)
    pane, passed = ANYWHERE, list[QWidget]()
    while isinstance(widget, QWidget):
        if isinstance(widget, QDockWidget):
            pane = widget.windowTitle()
            break
        if isinstance(widget, QTabWidget):
            at = next((i for i in map(widget.indexOf, passed) if i >= 0), -1)
            pane = widget.tabText(at).replace("&", "") if at >= 0 else pane
        passed.append(widget)
        widget = widget.parentWidget()
    if pane != ANYWHERE and action.shortcutContext() == Qt.ShortcutContext.WindowShortcut:
        return f"{pane}, focus anywhere"
    return pane


def shortcuts(window: QMainWindow) -> list[Shortcut]:
    """Every key the window answers to through an action, once each, ordered by where it
    works (anywhere first) and then by keys."""
    toggles = {dock.toggleViewAction(): dock.windowTitle() for dock in window.findChildren(QDockWidget)}
    found: set[Shortcut] = set()
    for action in window.findChildren(QAction):
        keys = [k for k in action.shortcuts() if not k.isEmpty()]
        if not keys:
            continue
        text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        if action in toggles:
            text = f"Show or hide the {toggles[action]} pane"
        native = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in keys)
        found.add(Shortcut(native, text, _where(action)))
    return sorted(found, key=lambda s: (s.where != ANYWHERE, s.where, s.keys, s.action))


class ShortcutsDialog(QDialog):
    """Every key, its command and where it works, with a filter on any of the three."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard Shortcuts")
        self.model = QStandardItemModel(0, 3, self)
        self.model.setHorizontalHeaderLabels(["Keys", "Action", "Where"])
        for s in shortcuts(window):
            row = [QStandardItem(s.keys), QStandardItem(s.action), QStandardItem(s.where)]
            for item in row:
                item.setEditable(False)
            self.model.appendRow(row)
        self.filtered = QSortFilterProxyModel(self)
        self.filtered.setSourceModel(self.model)
        self.filtered.setFilterKeyColumn(-1)  # keys, action or pane
        self.filtered.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText("Filter by key, command or pane")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self.filtered.setFilterFixedString)
        self.view = table_view(self.filtered)  # compact rows, as the window's tables
        header = self.view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.filter_box, self.view, buttons):
            layout.addWidget(widget)
        # Within a 1366×768 screen, with room for the longest command.
        self.resize(min(760, window.width()), min(560, window.height()))


def about_text(version: str, settings_file: str) -> str:
    """What the About box says: the versions a bug report needs and where settings live."""
    return (
        f"<b>Lead Console {version}</b><p>For the Lead of a team of coding agents: the global "
        "context, each teammate's version and ACK, the delta composer, the Inbox and TEAM-MEMORY "
        "of a session folder, followed live.</p>"
        f"<p>Python {platform.python_version()} · Qt {qVersion()} · PySide6 {PySide6.__version__}</p>"
        f"<p>Settings: {html.escape(settings_file)}</p><p>Nothing is sent over the network.</p>"
    )


def show_about(parent: QWidget, version: str, settings_file: str) -> QMessageBox:
    """The About box, window-modal and not blocking (as ``QMessageBox.about`` would)."""
    box = QMessageBox(QMessageBox.Icon.Information, "About Lead Console", about_text(version, settings_file))
    box.setParent(parent, box.windowFlags())
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
