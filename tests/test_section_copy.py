"""The section tree's Copy (Ctrl+C) and Copy reference (Ctrl+Alt+C), and ``lead-console section``.

Every section of the demo's and every real session's GC: the window copies it as the file
holds it, and the CLI, given the § reference the window copies, prints the same text (so each
reference the app writes leads back to its own section). Person-read expectations for two of
them: the demo's "Posting API" and an item of its Architecture Decisions table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, REAL_SESSIONS, activate, copy_session, model_indexes, run_cli, shown_controller

SESSIONS = [DEMO, *sorted(p for p in REAL_SESSIONS.iterdir() if (p / "global-context.md").is_file())]


def _rows(controller: Controller) -> list[QModelIndex]:
    return list(model_indexes(controller.window.sections_pane.gc_model))


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_every_section_copies_as_the_cli_prints_it_by_its_reference(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    folder = copy_session(source, tmp_path / "project")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    pane = controller.window.sections_pane
    rows = _rows(controller)
    assert len(rows) >= 5
    for index in rows:
        controller.window.sections_pane.gc_view.setCurrentIndex(index)
        copied, ref = pane.copy_section(), pane.copy_reference()
        assert QGuiApplication.clipboard().text() == ref
        code, out, err = run_cli(capsys, "section", str(folder), ref)
        assert code == 0, (ref, err)
        assert out == copied + ("" if copied.endswith("\n") else "\n"), ref
    controller.close()


def test_the_keys_copy_what_a_person_reads_in_the_demo(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_session(DEMO, tmp_path / "project")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    window, view = controller.window, controller.window.sections_pane.gc_view
    activate(qtbot, window)
    posting = window.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Posting API")
    view.setCurrentIndex(posting)
    view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    assert QGuiApplication.clipboard().text() == "§Interface Contracts.Posting API"
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("### Posting API\n```\nPostBatch(request_id: str, postings: [Posting]) -> BatchResult\n")
    assert "### Balance API" not in copied  # the next sibling is not part of it
    code, out, _ = run_cli(capsys, "section", str(folder), "§Architecture Decisions.D-3")
    assert code == 0
    assert out == (
        "| D-3 | Idempotency key = processor event id + account | Processors resend events for up to 72 h and "
        "split one event over several accounts; the event id alone is stable but not unique per posting | P2 |\n"
    )
    controller.close()


def test_section_refuses_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "section", str(DEMO), "§No Such Heading")
    assert (code, out, err) == (2, "", "lead-console: §No Such Heading: no such section or item in the GC\n")
    missing = REAL_SESSIONS / "dia-v5-optimization"
    code, out, err = run_cli(capsys, "section", str(missing), "§Scope")
    assert (code, out) == (2, "")
    assert err == "lead-console: global-context.md: not found in this session\n"
