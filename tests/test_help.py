"""Help ▸ Keyboard Shortcuts (F1, from any pane) and Help ▸ About; ``--version``."""

from __future__ import annotations

import sys
import tomllib

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from tests.conftest import ROOT, activate, run_cli
from ui.help_dialogs import ANYWHERE, ShortcutsDialog

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


def _open_with_f1(qtbot: QtBot, controller: Controller) -> ShortcutsDialog:
    window = controller.window
    QTest.keyClick(window.memory_pane.memory_view, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), ShortcutsDialog), timeout=5000)
    dialog = QApplication.activeModalWidget()
    assert isinstance(dialog, ShortcutsDialog)
    return dialog


def _rows(dialog: ShortcutsDialog) -> list[tuple[str, str, str]]:
    model = dialog.view.model()
    return [tuple(str(model.index(r, c).data()) for c in range(3)) for r in range(model.rowCount())]  # type: ignore[misc]


def test_f1_from_a_pane_lists_the_keys_with_where_each_works(qtbot: QtBot, controller: Controller) -> None:
    window = controller.window
    window.resize(1366, 768)
    activate(qtbot, window)  # keys go to the active window
    window.memory_pane.memory_view.setFocus()  # F1 works wherever the focus is
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.memory_pane.memory_view)
    dialog = _open_with_f1(qtbot, controller)
    rows = _rows(dialog)
    # A person's reading of the README's keys table and the menus.
    expected = [
        ("Ctrl+O", "Open Session…", ANYWHERE),
        ("F5", "Reload", ANYWHERE),
        ("Ctrl+Q", "Quit", ANYWHERE),
        ("Ctrl+F", "Find in TEAM-MEMORY or the Section Tree", ANYWHERE),
        ("Ctrl+G", "Start or Conclude Gate…", ANYWHERE),
        ("Ctrl+Shift+P", "Publish Update…", ANYWHERE),
        ("Ctrl+Shift+D", "Deliver Undelivered Updates", ANYWHERE),
        ("Alt+2", "Show or hide the Teammates pane", ANYWHERE),
        ("Ctrl+5", "Focus Inbox", ANYWHERE),
        ("Ctrl+0", "Normal Text Size", ANYWHERE),
        ("F1", "Keyboard Shortcuts", ANYWHERE),
        ("Ctrl+Alt+Z", "Undo TEAM-MEMORY change", ANYWHERE),
        ("Ctrl+Shift+M", "Copy this teammate's update message", "Teammates"),
        ("Ctrl+C", "Copy as written", "TEAM-MEMORY"),
        ("Ctrl+Shift+A", "Add a TEAM-MEMORY entry", "TEAM-MEMORY, focus anywhere"),
        ("Ctrl+I", "Add an item by hand", "Compose update"),
        ("Ctrl+E", "Go to the section editor", "Compose update, focus anywhere"),
        ("Ctrl+K", "Go to Section…", ANYWHERE),
        ("Shift+Return", "Previous section found", "GC sections"),
    ]
    for row in expected:
        assert row in rows
    assert all(action for _, action, _ in rows)  # every key says what it does
    # In the section tree, Ctrl+C and Ctrl+Alt+C: each a row of its own, said to work there.
    tree = [(keys, where) for keys, _, where in rows if where == "GC sections"]
    assert ("Ctrl+C", "GC sections") in tree and ("Ctrl+Alt+C", "GC sections") in tree
    # Anywhere first, then by pane.
    wheres = [where for _, _, where in rows]
    assert wheres[: wheres.count(ANYWHERE)] == [ANYWHERE] * wheres.count(ANYWHERE)
    # The filter, typed into as the dialog opens with the focus in it.
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.filter_box)
    QTest.keyClicks(dialog.filter_box, "team-memory")
    filtered = _rows(dialog)
    assert filtered and all("team-memory" in " ".join(row).lower() for row in filtered)
    assert ("Ctrl+C", "Copy as written", "TEAM-MEMORY") in filtered
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=5000)


def test_every_key_in_the_window_is_listed(qtbot: QtBot, controller: Controller) -> None:
    """Each shortcut of every action in the window appears in the dialog, with its command."""
    from PySide6.QtGui import QAction, QKeySequence

    dialog = ShortcutsDialog(controller.window)
    listed = {(keys, action) for keys, action, _ in _rows(dialog)}
    for action in controller.window.findChildren(QAction):
        for key in action.shortcuts():
            if key.isEmpty():
                continue
            native = key.toString(QKeySequence.SequenceFormat.NativeText)
            assert any(native in keys.split(", ") for keys, _ in listed), native
    dialog.deleteLater()


def test_about_says_the_installed_version_and_where_settings_are(qtbot: QtBot, controller: Controller) -> None:
    window = controller.window
    window.show()
    qtbot.waitExposed(window)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    about = next(a for a in help_menu.actions() if a.text() == "&About Lead Console")
    about.trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), timeout=5000)
    box = QApplication.activeModalWidget()
    assert isinstance(box, QMessageBox)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert f"Lead Console {version}" in box.text()
    assert controller.settings.q.fileName() in box.text()
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}" in box.text()
    box.close()


def test_version_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    with pytest.raises(SystemExit) as exited:
        run_cli(capsys, "--version")
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"lead-console {version}\n"


def test_each_menu_underlines_a_letter_once(controller: Controller) -> None:
    """Alt and a menu's underlined letter open it, and in it a letter picks one command: two
    commands with the same letter (File's Open Recent and Reload, View's Larger Text and Reset
    Layout) took turns being highlighted and neither ran."""
    from PySide6.QtWidgets import QMenu

    def letters(menu: QMenu, where: str) -> None:
        seen: dict[str, str] = {}
        for action in menu.actions():
            text = action.text().replace("&&", "")
            if "&" in text:
                letter = text[text.index("&") + 1].lower()
                assert letter not in seen, f"{where}: {seen[letter]!r} and {action.text()!r}"
                seen[letter] = action.text()
            if action.menu() is not None:
                letters(action.menu(), f"{where} > {action.text()}")

    bar = controller.window.menuBar()
    tops = [a.text() for a in bar.actions()]
    assert len({t[t.index("&") + 1].lower() for t in tops}) == len(tops)
    for top in bar.actions():
        letters(top.menu(), top.text())


def test_watch_claude_code_team_is_on_the_session_menu(
    qtbot: QtBot, controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 1366×768 the Inbox's Watch Claude Code team… button is behind its row's » menu:
    Alt+S, W asks for the team folder from anywhere."""
    import app.team_link as team_link

    asked: list[object] = []
    monkeypatch.setattr(team_link, "pick_team_folder", lambda parent: asked.append(parent))
    window = controller.window
    window.resize(1366, 768)
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    qtbot.keyClick(QApplication.activePopupWidget(), Qt.Key.Key_W)
    qtbot.waitUntil(lambda: asked == [window])
