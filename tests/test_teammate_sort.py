"""The teammate table sorts in its own model: by a click on a header, kept through updates.

The demo's teammates, as its files say: implementer-1 and -2 confirmed GC-v6, implementer-3
and -4 GC-v5, researcher-1 GC-v4 (session order: implementer-1..4, researcher-1).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QPersistentModelIndex, QPoint, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO
from models.session.folder import open_session
from models.text.tokens import get_tokenizer
from ui.teammate_model import TeammateModel

TOK = get_tokenizer("o200k_base")
SESSION_ORDER = ["implementer-1", "implementer-2", "implementer-3", "implementer-4", "researcher-1"]


def _shown_roles(controller: Controller) -> list[str]:
    """The Teammate column from the top of the table down, as a person reads it."""
    view = controller.window.teammates_pane.teammate_view
    roles = []
    y = 1
    while True:
        index = view.indexAt(QPoint(4, y))
        if not index.isValid():
            return roles
        roles.append(index.siblingAtColumn(0).data())
        y = view.visualRect(index).bottom() + 2


def test_clicking_a_header_sorts_the_rows_and_clicking_again_reverses_them(
    qtbot: QtBot, controller: Controller
) -> None:
    w = controller.window
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    view = w.teammates_pane.teammate_view
    qtbot.waitUntil(lambda: len(_shown_roles(controller)) == 5)
    assert _shown_roles(controller) == SESSION_ORDER
    header = view.horizontalHeader()
    confirmed = w.teammates_pane.teammate_model.headers.index("Confirmed")
    at = QPoint(header.sectionViewportPosition(confirmed) + header.sectionSize(confirmed) // 2, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=at)
    # Oldest version first; the two at GC-v5 and the two at GC-v6 keep the session's order.
    oldest_first = ["researcher-1", "implementer-3", "implementer-4", "implementer-1", "implementer-2"]
    assert _shown_roles(controller) == oldest_first
    assert header.sortIndicatorSection() == confirmed
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert _shown_roles(controller) == SESSION_ORDER  # the newest first, ties as before


def test_rows_move_to_their_sorted_place_and_the_selection_goes_with_them(qtmodeltester: ModelTester) -> None:
    """An update that changes the sorted column moves the row as a layout change: a persistent
    index (what a selection holds) follows its teammate, and Qt's model checks hold throughout."""
    session = open_session(DEMO, TOK)
    mates = session.teammates()
    model = TeammateModel()
    model.set_teammates(mates, session.gc_version)
    ack = model.headers.index("ACK")
    model.sort(ack, Qt.SortOrder.AscendingOrder)
    qtmodeltester.check(model, force_py=True)  # and it watches every change below
    roles = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert roles == SESSION_ORDER  # no ACKs
    held = QPersistentModelIndex(model.index(roles.index("implementer-2"), 0))
    moved: list[int] = []
    model.layoutChanged.connect(lambda *_: moved.append(1))
    model.set_reviews({"implementer-2": "5/5 APPLIED", "researcher-1": "1/2 NEED_CLARIFICATION"}, {})
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "implementer-1",
        "implementer-3",
        "implementer-4",
        "researcher-1",  # "1/2 ..." sorts before "5/5 ..."
        "implementer-2",
    ]
    assert moved == [1]
    assert held.row() == 4 and held.data() == "implementer-2"
    # A teammate that joins goes to its sorted place, descending too; ties keep the session's order.
    model.sort(ack, Qt.SortOrder.DescendingOrder)
    joined = replace(mates[0], role="implementer-0")
    model.set_teammates([*mates, joined], session.gc_version)
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "implementer-2",
        "researcher-1",
        "implementer-1",
        "implementer-3",
        "implementer-4",
        "implementer-0",  # no ACK, like the three above it; it came last in the session's order
    ]
    assert held.data() == "implementer-2" and held.row() == 0


def test_rows_that_sort_alike_keep_the_sessions_order_after_any_update() -> None:
    """Qt's proxy kept equal rows in the source's order; so does the model, whatever it was
    sorted by when an update came."""
    session = open_session(DEMO, TOK)
    model = TeammateModel()
    model.set_teammates(session.teammates(), session.gc_version)
    ack, status = model.headers.index("ACK"), model.headers.index("Status")
    acks = {"implementer-3": "5/5 APPLIED", "implementer-2": "4/5 APPLIED"}
    model.sort(ack, Qt.SortOrder.DescendingOrder)
    model.set_reviews(acks, {})
    assert [model.index(r, 0).data() for r in range(model.rowCount())][:2] == ["implementer-3", "implementer-2"]
    model.set_reviews(acks, {"implementer-4": "full"})  # an update while sorted by ACK
    model.sort(status, Qt.SortOrder.AscendingOrder)
    # IN_PROGRESS (three, in the session's order), then ✔ COMPLETE, then ✖ CONTEXT_LOST.
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [
        "implementer-1",
        "implementer-2",
        "implementer-3",
        "researcher-1",
        "implementer-4",
    ]


def test_the_order_chosen_is_kept_for_the_next_run(qtbot: QtBot, tmp_path: Path) -> None:
    from conftest import copy_session, shown_controller

    folder = copy_session(DEMO, tmp_path / "demo")
    first = shown_controller(qtbot, tmp_path)
    assert first.open(folder)
    header = first.window.teammates_pane.teammate_view.horizontalHeader()
    confirmed = first.window.teammates_pane.teammate_model.headers.index("Confirmed")
    at = QPoint(header.sectionViewportPosition(confirmed) + header.sectionSize(confirmed) // 2, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=at)  # oldest first
    first.close()
    first.window.close()

    again = shown_controller(qtbot, tmp_path)  # the same settings file
    assert again.open(folder)
    header = again.window.teammates_pane.teammate_view.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (confirmed, Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: len(_shown_roles(again)) == 5)
    # GC-v4, v5, v5, v6, v6: ties in the session's order.
    assert _shown_roles(again) == ["researcher-1", "implementer-3", "implementer-4", "implementer-1", "implementer-2"]
    again.close()
