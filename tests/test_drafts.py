"""Issue 42.1: the Lead's draft is never lost. It is kept with the session as it is typed
(``.lead-console/draft.json``), restored on the next open with a line saying so (Undo drops it),
survives a Baseline, and goes only when published or discarded. Driven with keys typed into the
real editor and the real buttons."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from composer_steps import select_section
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.settings import AppSettings
from conftest import CH006, actions_done, copy_session

DRAFT = Path(".lead-console") / "draft.json"
LINE = "- Q-9: who signs the ledger export?"


def _controller(qtbot: QtBot, tmp_path: Path, name: str) -> Controller:
    ctl = Controller(AppSettings(QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(ctl.window)
    ctl.inbox.review_write = lambda preview, question: True  # type: ignore[method-assign]
    ctl.window.confirm_discard = lambda: True  # type: ignore[method-assign]  # the test's end closes it
    return ctl


def _type_line(qtbot: QtBot, ctl: Controller, section: str, line: str) -> None:
    pane = ctl.window.composer
    ctl.window.central_tabs.setCurrentWidget(pane)
    select_section(ctl, section)
    pane.editor.setFocus()
    qtbot.keyClick(pane.editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(pane.changed, timeout=5000):
        qtbot.keyClicks(pane.editor, line)


def test_a_draft_is_kept_as_typed_and_restored_on_the_next_open(qtbot: QtBot, tmp_path: Path, demo_copy: Path) -> None:
    first = _controller(qtbot, tmp_path, "first")
    assert first.open(demo_copy)
    _type_line(qtbot, first, "Open Questions", LINE)
    qtbot.waitUntil(lambda: (demo_copy / DRAFT).is_file(), timeout=5000)  # on disk without a save
    kept = json.loads((demo_copy / DRAFT).read_text(encoding="utf-8"))
    assert LINE in kept["working_text"]
    assert kept["taken_text"] == (demo_copy / "global-context.md").read_text(encoding="utf-8")
    # the window goes away without a question (a crash, a kill): the next one finds the draft

    second = _controller(qtbot, tmp_path, "second")
    assert second.open(demo_copy)
    pane = second.window.composer
    assert pane.composer is not None and LINE in pane.composer.working_text
    assert second.window.statusBar().currentMessage().startswith("Restored your unpublished draft of ")
    assert pane.undo_action.isEnabled()
    pane.undo_action.trigger()  # Undo drops it again
    assert LINE not in pane.composer.working_text
    qtbot.waitUntil(lambda: not (demo_copy / DRAFT).exists(), timeout=5000)
    first.close()
    second.close()


def test_publishing_the_draft_removes_it(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    _type_line(qtbot, controller, "Open Questions", LINE)
    qtbot.waitUntil(lambda: (demo_copy / DRAFT).is_file(), timeout=5000)
    pane = controller.window.composer
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    qtbot.waitUntil(lambda: not (demo_copy / DRAFT).exists(), timeout=5000)


def test_a_baseline_keeps_the_draft_and_undo(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    """A session run by hand (no gc-history): Baseline dropped the draft and disabled Undo."""
    folder = copy_session(CH006, tmp_path / "ch006")
    assert controller.open(folder)
    _type_line(qtbot, controller, "Phase Pipeline Status", "- Phase 9: PENDING")
    pane = controller.window.composer
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    qtbot.mouseClick(pane.baseline_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    assert list((folder / "gc-history").glob("GC-v*.md"))  # the baseline was taken
    assert pane.composer is not None and "- Phase 9: PENDING" in pane.composer.working_text
    assert pane.undo_action.isEnabled()
    qtbot.waitUntil(lambda: (folder / DRAFT).is_file(), timeout=5000)


def test_discarding_on_open_recent_removes_the_draft(
    qtbot: QtBot, controller: Controller, demo_copy: Path, tmp_path: Path
) -> None:
    other = copy_session(CH006, tmp_path / "other")
    controller.window.menus.set_recent([other])
    _type_line(qtbot, controller, "Open Questions", LINE)
    qtbot.waitUntil(lambda: (demo_copy / DRAFT).is_file(), timeout=5000)
    (recent,) = controller.window.menus.recent_menu.actions()
    recent.trigger()  # the fixture answers Discard
    assert controller.live is not None and controller.live.session.folder == other.resolve()
    assert not (demo_copy / DRAFT).exists()


def test_a_draft_file_that_cannot_be_read_is_said_and_left_as_it_is(
    qtbot: QtBot, tmp_path: Path, demo_copy: Path
) -> None:
    (demo_copy / DRAFT).parent.mkdir(exist_ok=True)
    (demo_copy / DRAFT).write_bytes(b'{"working_text": 7')
    ctl = _controller(qtbot, tmp_path, "broken")
    assert ctl.open(demo_copy)
    assert ".lead-console/draft.json holds no draft" in ctl.window.statusBar().currentMessage()
    ctl.drafts.finish()
    assert (demo_copy / DRAFT).read_bytes() == b'{"working_text": 7'
    ctl.close()


def test_a_draft_that_cannot_be_kept_is_said_once(qtbot: QtBot, tmp_path: Path, demo_copy: Path) -> None:
    """A session folder the app may not write into (a read-only mount, a .lead-console that is
    a file): the draft stays in the window, and the Lead is told once, not at every pause."""
    (demo_copy / ".lead-console").write_text("not a folder", encoding="utf-8")
    ctl = _controller(qtbot, tmp_path, "unkept")
    assert ctl.open(demo_copy)
    said: list[str] = []
    ctl.drafts.failed.connect(said.append)
    _type_line(qtbot, ctl, "Open Questions", LINE)
    qtbot.waitUntil(lambda: len(said) == 1, timeout=5000)
    with qtbot.waitSignal(ctl.drafts.written, timeout=5000):
        _type_line(qtbot, ctl, "Open Questions", " and who keeps it")  # written after a pause: it fails again
    assert len(said) == 1 and said[0].startswith("Your draft could not be kept in ")
    assert LINE in (ctl.window.composer.composer.working_text if ctl.window.composer.composer else "")
    ctl.close()


def test_a_draft_is_written_off_the_gui_thread(
    qtbot: QtBot, tmp_path: Path, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42: the draft's atomic write (an fsync of the file and of its folder) ran on the
    GUI thread after each pause in the Lead's typing; a slow disk held the window that long."""
    import app.drafts as drafts

    threads: list[str] = []
    real = drafts.atomic_write

    def recording(path: Path, data: bytes, expected: object) -> object:
        threads.append(threading.current_thread().name)
        return real(path, data, None)

    monkeypatch.setattr(drafts, "atomic_write", recording)
    ctl = _controller(qtbot, tmp_path, "threads")
    assert ctl.open(demo_copy)
    with qtbot.waitSignal(ctl.drafts.written, timeout=5000):
        _type_line(qtbot, ctl, "Open Questions", LINE)
    assert threads and threading.main_thread().name not in threads
    assert LINE in json.loads((demo_copy / DRAFT).read_text(encoding="utf-8"))["working_text"]
    ctl.close()
