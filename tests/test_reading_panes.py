"""Issue 42.9 at 1366×768: what a narrow table cuts (an FC reason, a delta item's content, what
needs the Lead) is written out whole, wrapped, under the table, for the row the Lead clicks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QPlainTextEdit
from pytestqt.qtbot import QtBot

from app.demo import copy_session as linked_demo
from tests.composer_steps import Q2_END, composer_pane, select_section, type_into_section
from tests.conftest import DEMO, copy_session, settle_reviews, shown_controller

Q3 = "- Q-3: who signs off the cut-over? (owner: Lead)\n"


def _click_row(qtbot: QtBot, view: QAbstractItemView, first_cell: str) -> None:
    model = view.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == first_cell)
    rect = view.visualRect(model.index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _wraps(detail: QPlainTextEdit) -> bool:
    """Nothing in the pane is read by scrolling sideways."""
    return detail.horizontalScrollBar().maximum() == 0


def test_the_composer_writes_out_the_reasons_and_the_item_its_tables_cut(qtbot: QtBot, tmp_path: Path) -> None:
    """The demo's plan: implementer-3 confirmed GC-v5 and implementer-4 reported CONTEXT_LOST,
    so composing GC-v7 sends both their sections in full (FC-1; FC-2), researcher-1 is finished
    (not sent), implementer-2 gets the delta and implementer-1, which does not follow Open
    Questions, a version bump. The added question is one ADDED item of
    §Open Questions, written as ADR-002 §3 writes an added item."""
    controller = shown_controller(qtbot, tmp_path)
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]  # the draft, at the end
    assert controller.open(copy_session(DEMO, tmp_path / "demo"))
    settle_reviews(qtbot, controller)
    window = controller.window
    window.central_tabs.setCurrentWidget(window.composer)
    pane = composer_pane(controller)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, Q2_END, Q2_END + Q3)

    _click_row(qtbot, pane.items_view, "ADDED")
    assert pane.items_detail.toPlainText() == "- ADDED §Open Questions: Q-3: who signs off the cut-over? (owner: Lead)"
    assert _wraps(pane.items_detail)

    bar = pane.preview_tabs.tabBar()
    tab = next(i for i in range(bar.count()) if bar.tabText(i) == "Teammates")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(tab).center())
    view = pane.decisions_view
    qtbot.waitUntil(view.isVisible)
    summary = pane.decisions_detail.toPlainText().splitlines()
    # The demo's subscriptions.yaml: implementer-1 does not follow Open Questions (a bump), and
    # implementer-3 and -4 are sent the sections they follow in full; implementer-2 follows
    # Open Questions and gets the plain delta, so it is not listed.
    assert [line.split(":", 1)[0] for line in summary] == [
        "implementer-1",
        "implementer-3",
        "implementer-4",
        "researcher-1",
    ]
    assert summary[0].startswith("implementer-1: bump · ")
    assert summary[0].endswith("not sent 1 item in §Open Questions)")
    assert summary[1].startswith("implementer-3: full, 9 § · ") and "FC-1: confirmed GC-v5" in summary[1]
    assert "researcher-1: not sent (STATE" in summary[3]
    # Every column, the codes of Why included, in sight without a sideways scroll.
    header, metrics = view.horizontalHeader(), view.fontMetrics()
    assert header.sectionViewportPosition(3) + header.sectionSize(3) <= view.viewport().width()
    assert header.sectionSize(3) >= metrics.horizontalAdvance("FC-2, FC-1")

    _click_row(qtbot, view, "implementer-4")
    reasons = pane.decisions_detail.toPlainText()
    assert reasons.startswith("implementer-4: full, 9 § · ")
    assert "FC-2: reported CONTEXT_LOST" in reasons and "FC-1: confirmed GC-v5" in reasons
    assert _wraps(pane.decisions_detail)
    controller.close()


def test_needs_you_writes_out_the_whole_of_what_its_what_column_cuts(qtbot: QtBot, tmp_path: Path) -> None:
    """The demo's linked team: implementer-4's transcript compacted at 2026-11-21T13:40:27.000Z
    after its GC-v6 was delivered. At 1366 the What column shows its first words; the pane
    under the list says it whole."""
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(linked_demo(None, tmp_path / "demo"))  # the demo as the app opens it: its team linked
    settle_reviews(qtbot, controller)
    pane = controller.window.attention_pane
    qtbot.waitUntil(lambda: controller.window.teammates_pane.teammate_model.linked, timeout=10_000)
    settle_reviews(qtbot, controller)
    qtbot.waitUntil(lambda: pane.model.rowCount() >= 2, timeout=10_000)
    _click_row(qtbot, pane.view, "implementer-4")
    what = "compacted at 2026-11-21T13:40:27.000Z after its GC arrived: its next update is the full GC (FC-2)"
    view = pane.view
    assert view.fontMetrics().horizontalAdvance(what) > view.columnWidth(3)  # cut in the table
    assert pane.detail.toPlainText() == f"implementer-4 since 11-21 13:40: {what}"
    assert _wraps(pane.detail)
    controller.close()
