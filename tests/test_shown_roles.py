"""A model that names the roles it shows answers no other: asked directly, its ``display``
gives nothing for any other role, in any cell of the window's three main views, on every real
session and on the demo with its team linked. The views skip those roles without asking."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.demo import copy_session
from app.settings import AppSettings
from tests.conftest import REAL_SESSIONS
from ui.node_model import PAYLOAD_ROLE, SORT_ROLE, NodeTreeModel

SESSIONS = sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir())
# Every role Qt defines up to the user roles, and the user roles of ours.
ROLES = [*range(int(Qt.ItemDataRole.UserRole)), SORT_ROLE]


def _cells(model: NodeTreeModel, parent: QModelIndex | None = None) -> list[QModelIndex]:
    """Every cell, fetching children a collapsed row keeps pending."""
    parent = parent or QModelIndex()
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    found = []
    for row in range(model.rowCount(parent)):
        for column in range(model.columnCount(parent)):
            found.append(model.index(row, column, parent))
        found += _cells(model, model.index(row, 0, parent))
    return found


def _check(controller: Controller) -> int:
    window = controller.window
    checked = 0
    for model in (window.sections_pane.gc_model, window.teammates_pane.teammate_model, window.memory_pane.memory_model):
        shown = model.shown_roles
        assert shown is not None and Qt.ItemDataRole.DisplayRole in shown
        for index in _cells(model):
            payload = index.internalPointer().payload
            for role in ROLES:
                answer = model.display(payload, index.column(), role)
                if role not in shown:
                    assert answer is None, (type(model).__name__, index.row(), index.column(), role)
                    assert model.data(index, role) is None
                checked += 1
            assert model.data(index, PAYLOAD_ROLE) is not None
    return checked


@pytest.mark.parametrize("folder", SESSIONS, ids=lambda p: p.name)
def test_the_main_views_answer_only_the_roles_they_name(qtbot: QtBot, tmp_path: Path, folder: Path) -> None:
    controller = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    assert controller.open(folder)
    assert _check(controller) > 0
    controller.close()


def test_the_demo_with_its_team_answers_only_the_roles_it_names(qtbot: QtBot, tmp_path: Path) -> None:
    controller = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    assert controller.open(copy_session(None, tmp_path))
    qtbot.waitUntil(lambda: any(controller.window.teammates_pane.teammate_model.team.values()), timeout=10_000)
    assert _check(controller) > 1000
    controller.close()
