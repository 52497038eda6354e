"""The panes' dividers (the composer's editor against its items, the Inbox's list against the
raw message, ...) are kept between runs with the docks, and Reset Layout sets them back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSplitter
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, activate, copy_session, shown_controller

NAMES = {
    "composer-editor-and-items",
    "composer-items-and-preview",
    "section-source-and-rendered",
    "inbox-list-and-raw",
    "planning-files-and-text",
    "context-blocks-and-team",
}


def _splitter(controller: Controller, name: str) -> QSplitter:
    found = controller.window.findChild(QSplitter, name)
    assert isinstance(found, QSplitter)
    return found


def _drag(qtbot: QtBot, splitter: QSplitter, by: int) -> None:
    """Drag the divider ``by`` pixels, as the Lead does with the mouse."""
    handle = splitter.handle(1)
    middle = handle.rect().center()
    along = QPoint(by, 0) if splitter.orientation() == Qt.Orientation.Horizontal else QPoint(0, by)
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, pos=middle)
    QTest.mouseMove(handle, middle + along)  # one move: the handle moves with it
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=middle + along)


def test_every_divider_of_the_panes_is_named(controller: Controller) -> None:
    assert set(controller.window.splitters.splitters) == NAMES


def test_a_dragged_divider_is_kept_for_the_next_run_and_reset_layout_sets_it_back(qtbot: QtBot, tmp_path: Path) -> None:
    folder = copy_session(DEMO, tmp_path / "demo")
    first = shown_controller(qtbot, tmp_path)
    assert first.open(folder)
    window = first.window
    window.central_tabs.setCurrentWidget(window.composer)
    split = _splitter(first, "composer-editor-and-items")
    qtbot.waitUntil(lambda: split.isVisible() and all(split.sizes()))
    made = split.sizes()
    _drag(qtbot, split, -80)  # the editor narrower (the items' side is at its least already)
    dragged = split.sizes()
    assert dragged[0] == pytest.approx(made[0] - 80, abs=2)
    window.close()  # the layout is kept as the window closes
    first.close()

    again = shown_controller(qtbot, tmp_path)  # the same settings file
    assert again.open(folder)
    # As restore_layout does at start, in a window as large as the first (restore_layout
    # would fit it to the offscreen screen's 800 pixels first).
    again.window.splitters.restore()
    again.window.central_tabs.setCurrentWidget(again.window.composer)
    split = _splitter(again, "composer-editor-and-items")
    qtbot.waitUntil(lambda: split.sizes() == dragged)
    # View ▸ Reset Layout: the sizes the pane was made with, in proportion.
    activate(qtbot, again.window)
    view_menu = next(a.menu() for a in again.window.menuBar().actions() if a.text() == "&View")
    next(a for a in view_menu.actions() if a.text() == "Reset Lay&out").trigger()
    qtbot.waitUntil(lambda: abs(split.sizes()[0] - made[0]) <= 2)
    assert again.settings.q.value("splitters/composer-editor-and-items") is None
    again.close()


def test_the_start_restores_the_dividers(controller: Controller, monkeypatch: pytest.MonkeyPatch) -> None:
    """``restore_layout`` (what the app runs at start) restores them with the docks."""
    restored: list[bool] = []
    monkeypatch.setattr(controller.window.splitters, "restore", lambda: restored.append(True))
    controller.window.restore_layout()
    assert restored == [True]
