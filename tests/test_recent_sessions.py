"""The Recent Sessions list is written after the opened session is on screen, never lost.

QSettings writes its file (with two ``fdatasync`` calls) in the turn of the event loop after a
value is set, and Qt handles that turn before the window's paint: recording the session as
it opened held the first frame back by a disk write.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.settings import AppSettings
from tests.conftest import COW, copy_session


def _ini_names(path: Path) -> str:
    """What the settings file on disk says, read as a person would (not through QSettings)."""
    return path.read_text(encoding="utf-8") if path.exists() else ""


class _FirstPaint(QObject):
    """Reads the settings file when the window first paints."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.seen: str | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.seen is None:
            self.seen = _ini_names(self.path)
        return False


def test_the_session_is_recorded_after_the_first_frame(qtbot: QtBot, tmp_path: Path, demo_copy: Path) -> None:
    ini = tmp_path / "s.ini"
    cow = copy_session(COW, tmp_path / "cow")  # a copy: the memory journal's first look writes there
    controller = Controller(AppSettings(QSettings(str(ini), QSettings.Format.IniFormat)), headless=True)
    window = controller.window
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)  # the empty window's own paints are done
    watch = _FirstPaint(ini)
    window.installEventFilter(watch)
    assert controller.open(cow)
    qtbot.waitUntil(lambda: watch.seen is not None, timeout=5000)
    assert cow.name not in (watch.seen or "")  # the frame went out before the disk write
    qtbot.waitUntil(lambda: cow.name in _ini_names(ini), timeout=5000)
    assert controller.settings.recent_sessions()[0] == cow.resolve()
    first = window.menus.recent_menu.actions()[0].text()
    assert first.startswith("&1 cow-pipeline-redesign")
    # Two opens before a paint: both are kept, the later one first.
    assert controller.open(demo_copy)
    assert controller.open(cow)
    window.removeEventFilter(watch)
    controller.close()  # quitting at once still writes what waited
    again = AppSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    assert again.recent_sessions()[:2] == [cow.resolve(), demo_copy.resolve()]


def test_a_hidden_window_records_at_once(tmp_path: Path, qtbot: QtBot) -> None:
    ini = tmp_path / "s.ini"
    cow = copy_session(COW, tmp_path / "cow")
    settings = AppSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    controller = Controller(settings, headless=True)
    qtbot.addWidget(controller.window)
    assert controller.open(cow)
    assert settings.recent_sessions() == [cow.resolve()]
    assert controller.window.menus.recent_menu.isEnabled()
    controller.close()
