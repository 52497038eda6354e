"""Issue 18 (open fast): the composer's plan is work that is not on screen until its tab opens.
While the tab is hidden in a shown window, a change on disk does not re-plan; opening the tab,
or copying a teammate's message from the table, plans with what is on disk then."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.controller import Controller
from models.publish.composer import Composer
from ui.main_window import MainWindow

Q2_END = "(owner: Lead)\n"  # the end of the last item of the demo's §Open Questions


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the composer's plans (each is a diff and fifty decisions on a large session)."""
    calls: list[int] = []
    real = Composer.plan

    def counted(self: Composer) -> object:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Composer, "plan", counted)
    return calls


def _edit_gc(qtbot: QtBot, controller: Controller, demo_copy: Path, line: str) -> None:
    gc = demo_copy / "global-context.md"
    text = gc.read_text(encoding="utf-8")
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda p: "gc" in p):
        gc.write_text(text.replace(Q2_END, Q2_END + line, 1), encoding="utf-8")


def _on_the_section_tab(qtbot: QtBot, controller: Controller) -> MainWindow:
    """The window on a laptop's screen, the Section tab in front (as the window opens)."""
    w = controller.window
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    w.central_tabs.setCurrentIndex(0)
    return w


def test_a_hidden_composer_plans_when_its_tab_opens(
    qtbot: QtBot, controller: Controller, demo_copy: Path, plans: list[int]
) -> None:
    w = _on_the_section_tab(qtbot, controller)
    plans.clear()
    _edit_gc(qtbot, controller, demo_copy, "- Q-3: asked by an agent on disk\n")
    assert plans == []  # the tab is hidden: nothing planned for it
    bar = w.central_tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert w.central_tabs.currentWidget() is w.composer
    assert len(plans) == 1
    # The agent's line is in the update the tab now shows (ADR-002's ADDED item of §Open Questions).
    assert "Q-3: asked by an agent on disk" in w.composer.message.toPlainText()


def test_copy_message_from_the_table_plans_with_what_is_on_disk(
    qtbot: QtBot, controller: Controller, demo_copy: Path, plans: list[int]
) -> None:
    w = _on_the_section_tab(qtbot, controller)
    _edit_gc(qtbot, controller, demo_copy, "- Q-4: seen only through Copy message\n")
    view = w.teammates_pane.teammate_view
    model = view.model()
    # implementer-2 follows Open Questions (the demo's subscriptions.yaml), where Q-4 lands.
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-2")
    view.setCurrentIndex(model.index(row, 0))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    copied = QGuiApplication.clipboard().text()
    assert "[CONTEXT-UPDATE]" in copied and "Q-4: seen only through Copy message" in copied
    assert w.central_tabs.currentIndex() == 0  # copying did not take the Lead away from the Section tab


def test_a_hidden_context_pane_catches_up_when_its_tab_is_shown(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """The Context pane's team budget counts the whole TEAM-MEMORY; behind the TEAM-MEMORY tab
    it waits, and shows the file as it is now once the Lead brings it to the front."""
    from PySide6.QtWidgets import QTabBar

    from models.text.tokens import get_tokenizer

    w = _on_the_section_tab(qtbot, controller)
    context = w.context_pane

    def click(title: str) -> None:
        """Click the dock tab called ``title`` (Qt rebuilds the dock tab bars as it lays out)."""
        bar = next(
            b for b in w.findChildren(QTabBar) if b.isVisible() and title in [b.tabText(i) for i in range(b.count())]
        )
        tab = next(i for i in range(bar.count()) if bar.tabText(i) == title)
        qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(tab).center())

    click("TEAM-MEMORY")
    assert context.visibleRegion().isEmpty()  # behind the TEAM-MEMORY tab: not on screen
    memory = demo_copy / "TEAM-MEMORY.md"
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        memory.write_text(memory.read_text(encoding="utf-8") + "- [Finding] one more line\n", encoding="utf-8")
    counted = get_tokenizer("o200k_base").count(memory.read_text(encoding="utf-8"))
    team = context.team

    def memory_column() -> set[str]:
        return {team.index(r, 4).data() for r in range(team.rowCount())}

    assert f"{counted:,}" not in memory_column()  # not refreshed while hidden
    click("Context")
    assert not context.visibleRegion().isEmpty()
    assert memory_column() == {f"{counted:,}"}  # every teammate receives the file as it is now


def test_the_teammates_table_is_fitted_when_its_tab_is_shown_not_behind_the_message(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hidden table's columns would be measured over every row (500 teammates took 50 ms of
    each re-plan): with the Message tab in front, an edit fits the items only; clicking the
    Teammates tab fits its table, to the width of the longest role on screen."""
    w = _on_the_section_tab(qtbot, controller)
    pane = w.composer
    bar = w.central_tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert w.central_tabs.currentWidget() is pane and pane.preview_tabs.currentIndex() == 0
    fitted: list[str] = []
    for name in ("items_view", "decisions_view"):
        view = getattr(pane, name)
        real = view.resizeColumnToContents

        def fit(column: int, real: Callable[[int], None] = real, name: str = name) -> None:
            if name not in fitted[-1:]:
                fitted.append(name)
            real(column)

        monkeypatch.setattr(view, "resizeColumnToContents", fit)
    _edit_gc(qtbot, controller, demo_copy, "- Q-3: asked by an agent on disk\n")
    assert fitted == ["items_view"]
    tabs = pane.preview_tabs.tabBar()
    qtbot.mouseClick(tabs, Qt.MouseButton.LeftButton, pos=tabs.tabRect(1).center())
    assert fitted[0] == "items_view" and "decisions_view" in fitted[1:]
    view = pane.decisions_view
    widest = max(view.fontMetrics().horizontalAdvance(role) for role in ("implementer-1", "implementer-4"))
    assert view.columnWidth(0) >= widest
    # The last column (Why) stretches over the rest of the table, as before it was fitted.
    columns = view.model().columnCount()
    assert sum(view.columnWidth(c) for c in range(columns)) >= view.viewport().width()
