"""A folder dropped on the window opens as File ▸ Open would; File ▸ Show Session Folder hands
the session's folder to the desktop's file manager."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.controller import Controller
from tests.conftest import REAL_SESSIONS, copy_session, shown_controller

COW = REAL_SESSIONS / "cow-pipeline-redesign"


def _mime(*paths: Path | str) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl(p) if isinstance(p, str) else QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def _drag_and_drop(target: QWidget, mime: QMimeData) -> bool:
    """Drag ``mime`` over ``target`` and drop it there, as the desktop's drag does; whether
    the drag was accepted (a refused one is never dropped)."""
    at = QPoint(target.width() // 2, target.height() // 2)
    actions = Qt.DropAction.CopyAction | Qt.DropAction.LinkAction
    enter = QDragEnterEvent(at, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(at, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, drop)
    return True


def test_a_dropped_session_folder_or_a_file_in_it_opens(qtbot: QtBot, tmp_path: Path) -> None:
    controller = shown_controller(qtbot, tmp_path)
    window = controller.window
    first = copy_session(COW, tmp_path / "first")
    assert _drag_and_drop(window, _mime(first))
    qtbot.waitUntil(lambda: window.session is not None and window.session.folder == first, timeout=5000)
    assert window.sections_pane.gc_model.rowCount() > 0
    # A file dragged from the session (its GC) opens the folder it is in.
    second = copy_session(COW, tmp_path / "second")
    assert _drag_and_drop(window, _mime(second / "global-context.md"))
    qtbot.waitUntil(lambda: window.session is not None and window.session.folder == second, timeout=5000)
    controller.close()


@pytest.mark.parametrize(
    "urls",
    [
        ("https://example.com/session",),  # not on this machine: nothing is fetched
        ("MISSING",),  # a path that is not there
        ("FIRST", "SECOND"),  # two folders: which one?
    ],
    ids=["remote", "missing", "two"],
)
def test_a_drag_that_names_no_single_folder_is_refused(qtbot: QtBot, tmp_path: Path, urls: tuple[str, ...]) -> None:
    controller = shown_controller(qtbot, tmp_path)
    window = controller.window
    places = {"MISSING": tmp_path / "missing", "FIRST": tmp_path, "SECOND": COW}
    mime = _mime(*(places.get(u, u) for u in urls))
    assert not _drag_and_drop(window, mime)
    assert window.session is None
    controller.close()


def test_show_session_folder_hands_the_folder_to_the_desktop(
    qtbot: QtBot, controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    file_menu = next(a.menu() for a in controller.window.menuBar().actions() if a.text() == "&File")
    show = next(a for a in file_menu.actions() if a.text() == "&Show Session Folder")
    show.trigger()
    assert controller.live is not None
    assert opened == [QUrl.fromLocalFile(str(controller.live.session.folder))]
