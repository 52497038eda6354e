"""Every menu command and every button of the window, on every real session, as a Lead who
cancels each dialog and as one who accepts each with what it proposes.

Cancelled, nothing may be written to the session. Accepted, each job runs to its end or says
in one line why it cannot: no exception escapes into Qt (pytest-qt fails the test on one), and
no crash. The publish dialog's check box crashed the app on two real sessions before it was
found; this looks for the next one of its kind.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QPushButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import SESSIONS, copy_session, session_files, settle_reviews, shown_controller

SKIPPED = {"&Quit", "Reset Lay&out"}  # ends the test's window; undoes nothing of the session's


def _answers(monkeypatch: pytest.MonkeyPatch, accept: bool) -> None:
    """Every dialog answered at once: cancelled, or accepted with what it proposes."""
    cancel, ok = QDialog.DialogCode.Rejected.value, QDialog.DialogCode.Accepted.value
    monkeypatch.setattr(QDialog, "exec", lambda self: ok if accept else cancel)
    button = QMessageBox.StandardButton.Ok if accept else QMessageBox.StandardButton.Cancel
    monkeypatch.setattr(QMessageBox, "exec", lambda self: button.value)
    yes = QMessageBox.StandardButton.Yes if accept else QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: QMessageBox.StandardButton.Ok)
    monkeypatch.setattr(QInputDialog, "getItem", lambda _p, _t, _l, items, current=0, *a, **k: (items[current], accept))
    monkeypatch.setattr(QInputDialog, "getInt", lambda _p, _t, _l, value=0, *a, **k: (value, accept))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("checked by the smoke test", accept))
    monkeypatch.setattr(
        QInputDialog,
        "getMultiLineText",
        lambda *a, **k: ("[ACK-UPDATE] GC-v1 received.\n- Action taken: CONTINUE", accept),
    )
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: "")
    # The desktop's file manager (Show Session Folder): there is none offscreen.
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: url.isLocalFile())


def _commands(window: QWidget) -> Iterator[tuple[str, QAction | QPushButton]]:
    """Each menu command, each button, then each right-click command of a view, by its text:
    a view's commands act on its current row, and its first row is made current first."""
    for menu in window.menuBar().actions():  # type: ignore[attr-defined]
        for action in menu.menu().actions():
            if action.menu() is None and not action.isSeparator() and action.text() not in SKIPPED:
                yield f"{menu.text()} > {action.text()}", action
    for button in window.findChildren(QPushButton):
        if button.text():
            yield button.text(), button
    for view in window.findChildren(QAbstractItemView):
        if view.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu:
            for action in view.actions():
                if not action.isSeparator():
                    if view.model() is not None and view.model().rowCount():
                        view.setCurrentIndex(view.model().index(0, 0))
                    yield f"{type(view).__name__} > {action.text()}", action


def _run_all(qtbot: QtBot, controller: Controller) -> list[str]:
    """Run each enabled command (every one that writes asks first)."""
    ran = []
    for name, command in _commands(controller.window):
        if not command.isEnabled():
            continue
        if isinstance(command, QAction):
            command.trigger()
        else:
            command.click()
        settle_reviews(qtbot, controller)
        controller.window.context_pane.wait()
        ran.append(name)
    return ran


@pytest.mark.parametrize("accept", [False, True], ids=["cancelled", "accepted"])
@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_every_command_on_every_real_session(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Path, accept: bool
) -> None:
    folder = copy_session(source, tmp_path / "project")
    before = session_files(folder)
    _answers(monkeypatch, accept)
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(folder)
        settle_reviews(qtbot, controller)
        ran = _run_all(qtbot, controller)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    assert len(ran) > 20  # the menus' commands and the panes' buttons
    if not accept:
        assert session_files(folder) == before


def _damaged_cases(per_session: int) -> list[tuple[Path, str, str]]:
    """(session, damage, target): ``per_session`` kinds of damage for each real session, on one
    of the fuzz's targets each, chosen by a fixed seed."""
    from bench.fuzz import DAMAGE, TARGETS

    cases = []
    for session in SESSIONS:
        rng = random.Random(f"every action {session.name}")
        for name in rng.sample(sorted(DAMAGE), per_session):
            cases.append((session, name, rng.choice(TARGETS)))
    return cases


@pytest.mark.parametrize(
    ("source", "damage", "target"), _damaged_cases(int(os.environ.get("EVERY_ACTION_DAMAGE", "2")))
)
def test_every_command_on_damaged_copies(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Path, damage: str, target: str
) -> None:
    """The same, accepting every dialog, on copies damaged as the CLI's fuzz damages them (a
    file missing, a folder, a link to nowhere, a FIFO, bytes that are not UTF-8, cut short, ...):
    each command does its job or says why not, and nothing escapes into Qt."""
    from bench.fuzz import DAMAGE, damage_at

    folder = copy_session(source, tmp_path / "project")
    damage_at(folder / target, DAMAGE[damage])
    _answers(monkeypatch, accept=True)
    controller = shown_controller(qtbot, tmp_path)
    try:
        if controller.open(folder):
            settle_reviews(qtbot, controller)
            assert len(_run_all(qtbot, controller)) > 20
    finally:
        controller.window.context_pane.wait()
        controller.close()


@pytest.mark.parametrize("source", [s for s in SESSIONS if (s / "TEAM-MEMORY.md").is_file()], ids=lambda p: p.name)
def test_every_memory_curation_undone_leaves_the_file_as_it_was(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Path
) -> None:
    """Add…, Archive (the first entry), Archive phase…, Replace… and Prune from the memory
    pane's buttons, each accepted, then Undo TEAM-MEMORY change until there is nothing to undo:
    the file holds its bytes of before, on every real session that has one."""
    folder = copy_session(source, tmp_path / "project")
    original = (folder / "TEAM-MEMORY.md").read_bytes()
    _answers(monkeypatch, accept=True)
    controller = shown_controller(qtbot, tmp_path)
    try:
        assert controller.open(folder)
        settle_reviews(qtbot, controller)
        view = controller.window.memory_pane.memory_view
        first = view.model().index(0, 0)
        view.setCurrentIndex(view.model().index(0, 0, first))  # the first section's first entry
        pane = controller.window.memory_pane
        buttons = {b.text(): b for b in pane.findChildren(QPushButton)}
        for text in ("Add…", "Archive", "Archive phase…", "Replace…", "Prune"):
            buttons[text].click()
            settle_reviews(qtbot, controller)
        stack = controller.window.memory_pane.memory_actions.undo_stack
        done = [stack.text(i) for i in range(stack.count())]
        assert len(done) >= 4, done  # Add, Archive, Replace and Prune wrote (the phase may match nothing)
        assert (folder / "TEAM-MEMORY.md").read_bytes() != original
        edit = next(m.menu() for m in controller.window.menuBar().actions() if m.text() == "&Edit")
        undo = next(a for a in edit.actions() if a.shortcut().toString() == "Ctrl+Alt+Z")  # its text names the step
        while undo.isEnabled():
            undo.trigger()
            settle_reviews(qtbot, controller)
        assert (folder / "TEAM-MEMORY.md").read_bytes() == original
    finally:
        controller.window.context_pane.wait()
        controller.close()
