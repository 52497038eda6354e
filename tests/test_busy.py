"""Opening a large session holds the window's thread for a while (about a second at ten times
the benchmark's size), and so does loading a token vocabulary: the status line says so and the
cursor waits (app.busy)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

import app.busy as busy_module
import models.text.tokens as tokens_module
from app.controller import Controller
from app.live_session import LiveSession
from conftest import shown_controller
from models.text.tokens import ExactTokenizer, Tokenizer, get_tokenizer


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
    assert controller.window.sections_pane.gc_model.rowCount() > 0


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


def _watch_loads(monkeypatch: pytest.MonkeyPatch, window: QMainWindow, ready: dict[str, Tokenizer]) -> list[object]:
    """The cursor and the status line as each exact tokenizer starts loading its vocabulary;
    the tokenizers made so far are ``ready`` alone."""
    seen: list[object] = []
    real = ExactTokenizer.__init__

    def init(self: ExactTokenizer, encoding: str, *args: object) -> None:
        cursor = QGuiApplication.overrideCursor()
        seen.append((encoding, cursor.shape() if cursor is not None else None, window.statusBar().currentMessage()))
        real(self, encoding, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ExactTokenizer, "__init__", init)
    monkeypatch.setattr(tokens_module, "_SHARED", dict(ready))
    return seen


def test_the_first_open_says_the_vocabulary_is_loading(
    qtbot: QtBot, tmp_path: Path, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's first open loads o200k_base (0.3–0.7 s holding the window's thread): the
    window, up and empty, says so; the next open has nothing to load and says nothing."""
    controller = shown_controller(qtbot, tmp_path)
    try:
        seen = _watch_loads(monkeypatch, controller.window, {})
        assert controller.open(demo_copy)
        assert seen == [("o200k_base", Qt.CursorShape.WaitCursor, "Loading the o200k_base token vocabulary…")]
        assert QGuiApplication.overrideCursor() is None
        assert controller.window.statusBar().currentMessage() == ""
        assert controller.window.sections_pane.gc_model.rowCount() > 0
        assert controller.open(demo_copy)
        assert len(seen) == 1
    finally:
        controller.window.context_pane.wait()
        controller.close()


def test_a_tokenizer_chosen_from_the_menu_says_its_vocabulary_is_loading(
    controller: Controller, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tokens ▸ cl100k_base, not loaded yet: the same word while it loads; estimate needs none."""
    window = controller.window
    seen = _watch_loads(monkeypatch, window, {"o200k_base": get_tokenizer("o200k_base")})
    actions = {a.data(): a for a in window.menus.tokenizer_group.actions()}
    actions["cl100k_base"].trigger()
    assert seen == [("cl100k_base", Qt.CursorShape.WaitCursor, "Loading the cl100k_base token vocabulary…")]
    assert QGuiApplication.overrideCursor() is None and window.statusBar().currentMessage() == ""
    assert "cl100k_base" in window.status_line.tokens.text()
    actions["estimate"].trigger()
    actions["cl100k_base"].trigger()
    assert len(seen) == 1 and "cl100k_base" in window.status_line.tokens.text()
