"""Copying TEAM-MEMORY rows: Ctrl+C or the right-click menu puts them on the clipboard as the
file holds them (bullet, markers, continuation lines), in file order.

The expected texts are a person's reading of the files. Qt's own copy took the current row's
first line, without its tag, its [ARCHIVED] marker or its sub-bullets.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import COW, DEMO, activate, copy_session, shown_controller
from ui.node_model import PAYLOAD_ROLE

SELECT = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows


def _section(controller: Controller, header: str) -> QModelIndex:
    model = controller.window.memory_pane.memory_model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data(PAYLOAD_ROLE).header == header)
    return model.index(row, 0)


def _entry(controller: Controller, header: str, starts: str) -> QModelIndex:
    model = controller.window.memory_pane.memory_model
    section = _section(controller, header)
    row = next(r for r in range(model.rowCount(section)) if model.index(r, 0, section).data().startswith(starts))
    return model.index(row, 0, section)


def _ctrl_c(qtbot: QtBot, controller: Controller) -> str:
    window = controller.window
    activate(qtbot, window)
    window.memory_pane.memory_view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.memory_pane.memory_view)
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(window.memory_pane.memory_view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    return QGuiApplication.clipboard().text()


def test_an_archived_entry_is_copied_with_its_markers(qtbot: QtBot, tmp_path: Path) -> None:
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    view = controller.window.memory_pane.memory_view
    entry = _entry(controller, "researcher-1", "Stripe test mode")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(entry).center())
    assert _ctrl_c(qtbot, controller) == (
        "- [ARCHIVED] [Finding] Stripe test mode sends `charge.refunded` before `charge.succeeded` in 4% of runs\n"
    )
    controller.close()


def test_an_entry_with_sub_bullets_is_copied_whole(qtbot: QtBot, tmp_path: Path) -> None:
    """cow-pipeline-redesign's Lead entry "Phase 6 COMPLETE", lines 6–10 of its TEAM-MEMORY.md."""
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(copy_session(COW, tmp_path / "cow"))
    controller.window.memory_pane.memory_view.setCurrentIndex(_entry(controller, "Lead", "Phase 6 COMPLETE"))
    assert _ctrl_c(qtbot, controller) == (
        "- Phase 6 COMPLETE — Gate 6 APPROVED, GC-v6, PT-v4\n"
        "  - 33 files, 3 implementers, 8 tasks, ~2887 lines total\n"
        "  - All 4 Phase 5 conditions met (COND-1..4)\n"
        "  - 4 plan deviations documented (DEV-1..4)\n"
        "  - Phase 7-8 DEFERRED (self-tested; full integration requires API keys + TeX Live)\n"
    )
    controller.close()


def test_rows_chosen_out_of_order_are_copied_in_file_order_a_section_once(qtbot: QtBot, tmp_path: Path) -> None:
    """implementer-1's heading (the whole section) and one of its entries, then a researcher-1
    entry above it: the researcher's line first, then the section as written, its entry not
    twice. The right-click menu's command does the same as Ctrl+C."""
    folder = copy_session(DEMO, tmp_path / "demo")
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    selection = controller.window.memory_pane.memory_view.selectionModel()
    selection.select(_section(controller, "implementer-1"), SELECT)
    selection.select(_entry(controller, "implementer-1", "Posting batches"), SELECT)
    selection.select(_entry(controller, "researcher-1", "Adyen batch"), SELECT)
    lines = (folder / "TEAM-MEMORY.md").read_text(encoding="utf-8").splitlines(keepends=True)
    adyen = next(line for line in lines if "Adyen batch notifications" in line)
    start = lines.index("## implementer-1\n")
    end = next(n for n in range(start + 1, len(lines)) if lines[n].startswith("## "))
    expected = adyen + "".join(lines[start:end])
    assert _ctrl_c(qtbot, controller) == expected
    QGuiApplication.clipboard().clear()
    menu = next(a for a in controller.window.memory_pane.memory_view.actions() if a.text() == "Copy as written")
    menu.trigger()
    assert QGuiApplication.clipboard().text() == expected
    controller.close()
