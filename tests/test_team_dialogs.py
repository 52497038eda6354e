"""The dialogs in which the Lead picks a Claude Code team and a role's member
(app.team_dialogs), answered as a person would answer them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget
from pytestqt.qtbot import QtBot

from app.team_dialogs import NO_MEMBER, pick_member, pick_team_folder
from conftest import CLAUDE_TEAM


def _answer(monkeypatch: pytest.MonkeyPatch, pick: object, ok: bool = True) -> list[list[str]]:
    """Make ``QInputDialog.getItem`` answer with ``pick`` (an index into its items, or a text)
    and keep the items it offered."""
    offered: list[list[str]] = []

    def get_item(parent: QWidget, title: str, label: str, items: list[str], *rest: object) -> tuple[str, bool]:
        offered.append(list(items))
        return (items[pick] if isinstance(pick, int) else str(pick)), ok

    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    return offered


def test_the_teams_claude_code_keeps_are_offered_by_name_and_size(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real team's config.json names four members (team-lead and three implementers)."""
    shutil.copytree(CLAUDE_TEAM, tmp_path / ".claude" / "teams" / "cow-execution")
    monkeypatch.setattr(Path, "home", lambda: tmp_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    offered = _answer(monkeypatch, 0)
    assert pick_team_folder(parent) == tmp_path / ".claude" / "teams" / "cow-execution"
    assert offered == [["cow-execution  (4 members)", "Another folder…"]]
    _answer(monkeypatch, 0, ok=False)
    assert pick_team_folder(parent) is None  # cancelled
    _answer(monkeypatch, "Another folder…")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: str(tmp_path / "elsewhere"))
    assert pick_team_folder(parent) == tmp_path / "elsewhere"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: "")
    assert pick_team_folder(parent) is None  # the folder dialog cancelled


def test_a_role_is_given_a_member_or_none(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    members = ["implementer-1", "implementer-2"]
    offered = _answer(monkeypatch, 1)
    assert pick_member(parent, "implementer-4", members) == (True, "implementer-2")
    assert offered == [[*members, NO_MEMBER]]
    _answer(monkeypatch, NO_MEMBER)
    assert pick_member(parent, "implementer-4", members) == (True, None)
    _answer(monkeypatch, 0, ok=False)
    assert pick_member(parent, "implementer-4", members)[0] is False
