"""Ctrl+1 … Ctrl+7 bring a pane forward and put the focus in it, whatever is in front.

Four docks share two tab groups (Gates with the Inbox; TEAM-MEMORY with Context and GSD
planning). Ctrl+3 and Ctrl+4 used to give the focus to a view behind another tab: the
Lead's keys went to a table nobody could see. The Inbox, Context and GSD planning had no key.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import activate

CTRL, ALT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.AltModifier
NUMBER_KEYS = [
    Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_6, Qt.Key.Key_7, Qt.Key.Key_8
]  # fmt: skip


def _in_front(dock: QDockWidget) -> bool:
    """Whether any of ``dock`` is on screen (a dock behind a tab is "visible", but unseen)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def _targets(controller: Controller) -> list[tuple[QDockWidget, QWidget]]:
    w = controller.window
    return [
        (w.sections_dock, w.sections_pane.gc_view),
        (w.teammates_dock, w.teammates_pane.teammate_view),
        (w.memory_dock, w.memory_pane.memory_view),
        (w.gates_dock, w.gates_pane.gate_view),
        (w.inbox_dock, w.review_pane.view),
        (w.context_dock, w.context_pane.blocks_view),
        (w.planning_dock, w.planning_pane.view),
        (w.attention_dock, w.attention_pane.view),
    ]


@pytest.fixture
def window(qtbot: QtBot, controller: Controller) -> Controller:
    w = controller.window
    w.resize(1366, 768)
    activate(qtbot, w)  # keys go to the active window
    return controller


@pytest.mark.parametrize("number", range(8), ids=lambda n: f"Ctrl+{n + 1}")
def test_the_key_brings_its_pane_forward_from_behind_a_tab(qtbot: QtBot, window: Controller, number: int) -> None:
    dock, view = _targets(window)[number]
    behind = window.window.tabifiedDockWidgets(dock)
    for other in behind:  # every dock tabbed with it in front in turn; the last stays
        other.raise_()
    qtbot.waitUntil(lambda: not behind or not _in_front(dock))
    start = window.window.teammates_pane.teammate_view if number == 0 else window.window.sections_pane.gc_view
    start.setFocus()  # the focus somewhere else first
    qtbot.keyClick(window.window, NUMBER_KEYS[number], CTRL)
    qtbot.waitUntil(lambda: _in_front(dock) and QApplication.focusWidget() is view)
    assert all(not _in_front(other) for other in behind)


@pytest.mark.parametrize("number", range(8), ids=lambda n: f"Ctrl+{n + 1}")
def test_the_key_opens_a_pane_the_lead_closed(qtbot: QtBot, window: Controller, number: int) -> None:
    dock, view = _targets(window)[number]
    if not dock.isVisible():
        dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: _in_front(dock))
    qtbot.keyClick(window.window, NUMBER_KEYS[number], ALT)  # Alt+number: hide it
    qtbot.waitUntil(lambda: not dock.isVisible())
    qtbot.keyClick(window.window, NUMBER_KEYS[number], CTRL)
    qtbot.waitUntil(lambda: _in_front(dock) and QApplication.focusWidget() is view)


def test_each_key_is_in_the_view_menu_under_its_panes_name(window: Controller) -> None:
    view_menu = next(a.menu() for a in window.window.menuBar().actions() if a.text() == "&View")
    keyed = {a.shortcut().toString(): a.text() for a in view_menu.actions() if a.text().startswith("Focus ")}
    assert keyed == {
        "Ctrl+1": "Focus GC sections",
        "Ctrl+2": "Focus Teammates",
        "Ctrl+3": "Focus TEAM-MEMORY",
        "Ctrl+4": "Focus Gates",
        "Ctrl+5": "Focus Inbox",
        "Ctrl+6": "Focus Context",
        "Ctrl+7": "Focus GSD planning",
        "Ctrl+8": "Focus Needs you",
    }


@pytest.mark.parametrize("key", [Qt.Key.Key_Tab, Qt.Key.Key_Backtab], ids=["Tab", "Shift+Tab"])
def test_tab_goes_round_the_controls_on_screen_only(qtbot: QtBot, window: Controller, key: Qt.Key) -> None:
    """Round the window and back to the start, never into a dock behind another tab (Qt moves
    those off the window rather than hiding them: 44 of 120 presses went there), and through
    the tables instead of from cell to cell (a table kept the focus for good)."""
    w = window.window
    w.sections_pane.gc_view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.sections_pane.gc_view)
    stops: list[QWidget] = []
    for _ in range(80):
        qtbot.keyClick(QApplication.focusWidget(), key)
        now = QApplication.focusWidget()
        assert now is not None
        if now is w.sections_pane.gc_view:
            break
        assert not now.visibleRegion().isEmpty(), f"{type(now).__name__} took the focus unseen"
        stops.append(now)
    else:
        pytest.fail(f"Tab never came back round: {[type(s).__name__ for s in stops[-6:]]}")
    for view in (
        w.teammates_pane.teammate_view,
        w.memory_pane.memory_view,
        w.attention_pane.view,
    ):  # the panes in front
        assert view in stops
    for hidden in (
        w.gates_pane.gate_view,
        w.review_pane.view,
        w.context_pane.blocks_view,
        w.planning_pane.view,
    ):  # behind
        assert hidden not in stops


def test_return_in_the_search_goes_to_the_first_entry_found_and_escape_clears_it(
    qtbot: QtBot, window: Controller
) -> None:
    """Ctrl+F, type, Return: the focus on the first matching entry (the demo's researcher-1
    finding about Stripe's test mode, a person's reading of its TEAM-MEMORY.md); Escape in
    the box clears the search and goes back to the whole list."""
    w = window.window
    pane = w.memory_pane
    everything = sum(
        pane.memory_model.rowCount(pane.memory_model.index(n, 0)) for n in range(pane.memory_model.rowCount())
    )
    w.teammates_pane.teammate_view.setFocus()  # outside the section tree, where Ctrl+F finds sections
    qtbot.keyClick(w, Qt.Key.Key_F, CTRL)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is pane.search_box)
    qtbot.keyClicks(pane.search_box, "charge.refunded")
    qtbot.keyClick(pane.search_box, Qt.Key.Key_Return)
    assert QApplication.focusWidget() is w.memory_pane.memory_view
    current = w.memory_pane.memory_view.currentIndex()
    assert current.parent().data().startswith("researcher-1")
    assert "charge.refunded" in current.data(Qt.ItemDataRole.ToolTipRole)
    pane.search_box.setFocus()
    qtbot.keyClick(pane.search_box, Qt.Key.Key_Escape)
    assert pane.search_box.text() == ""
    assert QApplication.focusWidget() is w.memory_pane.memory_view
    model = pane.memory_model
    qtbot.waitUntil(lambda: sum(model.rowCount(model.index(n, 0)) for n in range(model.rowCount())) == everything)
