"""The tables' columns fit their texts, as Qt's own fitting would fit them.

The widths are measured in Python from the model's strings (``ui.column_fit``); Qt's
``ResizeToContents``, which measures each cell through the item delegate, is the independent
reference: switched on over the same rows, it must give every column the same width.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QApplication, QHeaderView
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.demo import copy_session
from tests.conftest import REAL_SESSIONS, SHARED, drop_two_replies, settle_reviews, shown_controller
from ui.teammate_model import TeammateModel

SESSIONS = sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir())
GSD = sorted(p for p in (SHARED / "gsd-projects").iterdir() if (p / ".planning").is_dir())[0]


def _widths(header: QHeaderView) -> list[int]:
    return [header.sectionSize(n) for n in range(header.count())]


def _qt_widths(qtbot: QtBot, controller: Controller) -> list[int]:
    """What Qt's fitting makes of the same rows (all of them: these sessions fit a screen),
    with no room for a sort arrow in any title: ours keeps it only in the sorted column, which
    the comparisons leave out (``_compared``)."""
    header = controller.window.teammates_pane.teammate_view.horizontalHeader()
    header.setSortIndicatorShown(False)
    header.setResizeContentsPrecision(-1)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    qtbot.wait(10)
    return _widths(header)


def _compared(header: QHeaderView, widths: list[int]) -> list[int]:
    """The widths of every column but the sorted one (it keeps room for its arrow) and the
    last one shown (it stretches over what is left)."""
    shown = [n for n in range(header.count()) if not header.isSectionHidden(n)]
    left_out = {header.sortIndicatorSection(), shown[-1] if shown else -1}
    return [w for n, w in enumerate(widths) if n not in left_out]


def _open(qtbot: QtBot, tmp_path: Path, folder: Path) -> Controller:
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    return controller


@pytest.mark.parametrize("folder", SESSIONS, ids=lambda p: p.name)
def test_columns_are_as_wide_as_qt_fits_them_on_every_real_session(qtbot: QtBot, tmp_path: Path, folder: Path) -> None:
    controller = _open(qtbot, tmp_path, copy_session(folder, tmp_path / "copy"))  # never the shared one in place
    view = controller.window.teammates_pane.teammate_view
    assert 0 < view.model().rowCount() <= 60
    qtbot.wait(10)
    header = view.horizontalHeader()
    ours = _compared(header, _widths(header))
    assert ours == _compared(header, _qt_widths(qtbot, controller))
    controller.close()


def test_the_demo_with_its_team_linked_fits_the_team_columns(qtbot: QtBot, tmp_path: Path) -> None:
    """The demo's linked team fills Member, Delivery, Context and Compacted, with symbols
    (``▰▱``, ``⚑``, ``✖``) taken from a fallback font."""
    controller = _open(qtbot, tmp_path, copy_session(None, tmp_path))
    model = controller.window.teammates_pane.teammate_model
    header = controller.window.teammates_pane.teammate_view.horizontalHeader()
    context = TeammateModel.headers.index("Context")
    # The team is read in a worker: its context cells filled, and (a queued call later) fitted.
    qtbot.waitUntil(lambda: model.linked and any(model.index(r, context).data() for r in range(model.rowCount())))
    qtbot.waitUntil(lambda: header.sectionSize(context) > header.sectionSizeHint(context))
    settle_reviews(qtbot, controller)  # what the team read asked for: FC-2 in the Due column
    QApplication.processEvents()  # the queued fitting of that change
    ours = _compared(header, _widths(header))
    assert ours == _compared(header, _qt_widths(qtbot, controller))
    controller.close()


def test_a_click_on_another_title_moves_the_arrow_room_with_the_sort(qtbot: QtBot, tmp_path: Path) -> None:
    """The titles' widths are kept between fits (a working team's table is refitted at each
    append), so a sort by another column must measure them again: the column now sorted gets
    room for its arrow (Qt's own hint holds it), the others are as Qt fits them without it."""
    controller = _open(qtbot, tmp_path, copy_session(None, tmp_path))
    model = controller.window.teammates_pane.teammate_model
    header = controller.window.teammates_pane.teammate_view.horizontalHeader()
    qtbot.waitUntil(lambda: model.linked)
    settle_reviews(qtbot, controller)
    QApplication.processEvents()  # the queued fitting of the team's columns
    delivery = TeammateModel.headers.index("Delivery")
    assert header.sortIndicatorSection() != delivery and not header.isSectionHidden(delivery)
    assert header.sectionSize(delivery) < header.sectionSizeHint(delivery)  # no arrow's room yet
    middle = QPoint(header.sectionViewportPosition(delivery) + header.sectionSize(delivery) // 2, header.height() // 2)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    qtbot.waitUntil(lambda: header.sortIndicatorSection() == delivery)
    qtbot.waitUntil(lambda: header.sectionSize(delivery) >= header.sectionSizeHint(delivery))
    ours = _compared(header, _widths(header))
    assert ours == _compared(header, _qt_widths(qtbot, controller))
    controller.close()


class _PaintWidths(QObject):
    """The Due column's width at each paint of the table."""

    def __init__(self, controller: Controller) -> None:
        super().__init__()
        self.header = controller.window.teammates_pane.teammate_view.horizontalHeader()
        self.seen: list[int] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(self.header.sectionSize(TeammateModel.DUE))
        return False


def test_a_change_is_fitted_before_the_frame_that_shows_it(qtbot: QtBot, controller: Controller) -> None:
    view = controller.window.teammates_pane.teammate_view
    controller.window.show()
    qtbot.waitExposed(controller.window)
    qtbot.wait(20)
    header = view.horizontalHeader()
    narrow = header.sectionSize(TeammateModel.DUE)
    watch = _PaintWidths(controller)
    view.viewport().installEventFilter(watch)
    model = controller.window.teammates_pane.teammate_model
    long_due = "resend since 11-21 14:02, and a reason long enough to need a wider column"
    model.set_reviews(model.acks, {**model.due, "implementer-3": (long_due, "why")})
    qtbot.waitUntil(lambda: bool(watch.seen), timeout=5000)
    wide = header.sectionSize(TeammateModel.DUE)
    assert wide > narrow + view.fontMetrics().horizontalAdvance("a reason long enough")
    assert watch.seen[0] == wide  # no frame shows the new text in the old width
    model.set_reviews(model.acks, {k: v for k, v in model.due.items() if k != "implementer-3"})
    qtbot.waitUntil(lambda: header.sectionSize(TeammateModel.DUE) == narrow, timeout=5000)
    view.viewport().removeEventFilter(watch)


@pytest.mark.parametrize("source", [None, *SESSIONS], ids=lambda p: "demo" if p is None else p.name)
def test_every_fitted_table_holds_its_texts_when_its_pane_comes_forward(
    qtbot: QtBot, tmp_path: Path, source: Path | None
) -> None:
    """The Inbox, Gates, the Context pane's team and the GSD planning parts, each brought
    forward as the Lead does after the open: every column but the one that stretches is as
    wide as Qt's own fitting of all its rows makes it. Qt's fitting of the rows on screen,
    which these tables used, left the Inbox's From and Kind as wide as their titles ("im…",
    "re…") when the rows came before the table had laid them out."""
    folder = copy_session(source, tmp_path)
    drop_two_replies(folder / "messages" / "inbox")  # in the inbox before the open
    controller = _open(qtbot, tmp_path / "s", folder)
    window = controller.window
    window.planning_pane.open_project(GSD)
    settle_reviews(qtbot, controller)
    checked = 0
    for dock, view in (
        (window.inbox_dock, window.review_pane.view),
        (window.gates_dock, window.gates_pane.gate_view),
        (window.context_dock, window.context_pane.team_view),
        (window.planning_dock, window.planning_pane.view),
    ):
        dock.raise_()
        window.context_pane.wait()
        qtbot.waitUntil(view.isVisible)
        qtbot.wait(10)
        header = view.horizontalHeader()
        header.setResizeContentsPrecision(-1)  # Qt measures every row: the reference
        stretch = (
            next(c for c in range(header.count()) if header.sectionResizeMode(c) == QHeaderView.ResizeMode.Stretch)
            if not header.stretchLastSection()
            else header.count() - 1
        )
        for column in range(header.count()):
            if column == stretch or view.model().rowCount() == 0:
                continue
            expected = max(header.sectionSizeHint(column), view.sizeHintForColumn(column))
            assert header.sectionSize(column) == expected, (dock.windowTitle(), column)
            checked += 1
    assert checked >= 4 + 3  # the Inbox's and the planning table's columns at least
    controller.close()


def test_an_empty_table_shows_its_titles_whole_and_stretches_its_summary(qtbot: QtBot, tmp_path: Path) -> None:
    """The Inbox before any message: each title as wide as it reads, Summary taking the rest
    (with no row yet to fit, the columns kept Qt's 100 pixels each)."""
    controller = _open(qtbot, tmp_path, copy_session(None, tmp_path))
    view = controller.window.review_pane.view
    controller.window.inbox_dock.raise_()
    qtbot.waitUntil(lambda: view.isVisible() and view.model().rowCount() == 0)
    qtbot.wait(10)
    header = view.horizontalHeader()
    summary = view.model().SUMMARY
    for column in range(header.count()):
        if column != summary:
            assert header.sectionSize(column) == header.sectionSizeHint(column)
    assert header.sectionSize(summary) == view.viewport().width() - sum(
        header.sectionSize(c) for c in range(header.count()) if c != summary
    )
    controller.close()
