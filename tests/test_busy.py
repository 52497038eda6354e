"""Opening a large session holds the window's thread for a while (about a second at ten times
the benchmark's size): the status line says so and the cursor waits (app.busy)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

import app.busy as busy_module
from app.controller import Controller
from app.live_session import LiveSession


def _watch_opens(monkeypatch: pytest.MonkeyPatch, controller: Controller) -> list[tuple[object, str]]:
    """The cursor and the status line as they are when the session's files start being read."""
    seen: list[tuple[object, str]] = []
    real = LiveSession.__init__

    def init(self: LiveSession, *args: object, **kwargs: object) -> None:
        cursor = QGuiApplication.overrideCursor()
        seen.append((cursor.shape() if cursor is not None else None, controller.window.statusBar().currentMessage()))
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LiveSession, "__init__", init)
    return seen


def test_a_large_session_says_it_is_opening_and_the_cursor_waits(
    controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's GC and TEAM-MEMORY (under half a megabyte) count as large here."""
    monkeypatch.setattr(busy_module, "LARGE_SESSION_BYTES", 1)
    seen = _watch_opens(monkeypatch, controller)
    assert controller.open(demo_copy)
    assert seen == [(Qt.CursorShape.WaitCursor, f"Opening {demo_copy.name} (0 MB)…")]
    assert QGuiApplication.overrideCursor() is None  # restored once the session is shown
    assert controller.window.statusBar().currentMessage() == ""
    assert controller.window.gc_model.rowCount() > 0


def test_a_session_of_ordinary_size_opens_without_a_word(
    controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _watch_opens(monkeypatch, controller)
    assert controller.open(demo_copy)
    assert seen == [(None, "")]


def test_the_cursor_is_given_back_when_the_open_fails(
    controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever stops an open half-way, the window is not left with a waiting cursor."""
    monkeypatch.setattr(busy_module, "LARGE_SESSION_BYTES", 1)

    def fail(self: LiveSession, *args: object) -> None:
        raise OSError("the disk went away")

    monkeypatch.setattr(LiveSession, "__init__", fail)
    with pytest.raises(OSError, match="went away"):
        controller.open(demo_copy)
    assert QGuiApplication.overrideCursor() is None


def test_the_size_counts_the_files_an_open_parses_whole(tmp_path: Path) -> None:
    (tmp_path / "global-context.md").write_bytes(b"x" * 3000)
    (tmp_path / "TEAM-MEMORY.md").write_bytes(b"y" * 500)
    (tmp_path / "orchestration-plan.md").write_bytes(b"z" * 7000)  # read, but small by nature
    assert busy_module.session_bytes(tmp_path) == 3500
    (tmp_path / "TEAM-MEMORY.md").unlink()
    (tmp_path / "TEAM-MEMORY.md").symlink_to(tmp_path / "nowhere")  # dangling: the open reports it
    assert busy_module.session_bytes(tmp_path) == 3000
