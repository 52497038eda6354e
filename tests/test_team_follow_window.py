"""Issue 46: the window follows a working Claude Code team by what its transcripts gain. An
append shows in its teammate's row through the real folder watch, and a burst of changes while
the team is being read costs one more read, not one each."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from claude_team_steps import make_team
from pytestqt.qtbot import QtBot
from transcript_lines import lines, response

import app.team_bridge as team_bridge
from app.controller import Controller
from models.claude.status import TeamView
from models.review.ledger import read_ledger


def _linked(controller: Controller, tmp_path: Path, qtbot: QtBot) -> Path:
    """implementer-1 of a linked team, with a transcript holding one response (20,015 tokens)."""
    team = make_team(tmp_path / "claude", members=("implementer-1",))
    transcript = tmp_path / "claude" / "projects" / "-work" / "s-implementer-1.jsonl"
    transcript.write_bytes(lines(response(1, 20_000, model="claude-opus-4-6")))
    with qtbot.waitSignal(controller.team.viewReady, timeout=10_000):
        controller.team.link(team)
    return transcript


def _context_cell(controller: Controller, role: str) -> str:
    model = controller.window.teammates_pane.teammate_model
    for row in range(model.rowCount()):
        if model.index(row, 0).data() == role:
            return str(model.index(row, model.CONTEXT).data() or "")
    raise AssertionError(f"no row for {role}")


def test_an_append_to_a_transcript_shows_in_its_teammates_row(
    qtbot: QtBot, controller: Controller, tmp_path: Path
) -> None:
    transcript = _linked(controller, tmp_path, qtbot)
    qtbot.waitUntil(lambda: _context_cell(controller, "implementer-1").endswith("20k/200k"))
    with transcript.open("ab") as fh:  # as the teammate's client appends a response
        fh.write(lines(response(2, 61_000, model="claude-opus-4-6")))
    qtbot.waitUntil(lambda: _context_cell(controller, "implementer-1").endswith("61k/200k"), timeout=10_000)


def test_changes_while_the_team_is_read_cost_one_more_read(
    qtbot: QtBot, controller: Controller, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = _linked(controller, tmp_path, qtbot)
    controller.settle()
    controller.team._watch([])  # the asks below are the only ones: no watcher's, at its own moment
    real = team_bridge.team_view_of
    release, reads = threading.Event(), []

    def held(*args: object, **kwargs: object) -> TeamView:
        reads.append(1)
        release.wait(30)  # the first read takes its time, as on a 100 MB transcript
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(team_bridge, "team_view_of", held)
    views: list[object] = []
    controller.team.viewReady.connect(views.append)
    controller.team.refresh()
    qtbot.waitUntil(lambda: len(reads) == 1)
    with transcript.open("ab") as fh:
        fh.write(lines(response(2, 61_000, model="claude-opus-4-6")))
    for _ in range(10):  # the watcher's and others' asks while the read runs
        controller.team.refresh()
    release.set()
    qtbot.waitUntil(lambda: len(views) == 2)
    controller.settle()
    assert len(reads) == 2 and len(views) == 2
    qtbot.waitUntil(lambda: _context_cell(controller, "implementer-1").endswith("61k/200k"))


def _delivered(folder: Path, role: str) -> bool:
    """The ledger says ``role``'s update was delivered (its line is appended after the write)."""
    return any(e.get("direction") == "delivered" and e.get("to") == role for e in read_ledger(folder))


def test_a_publish_before_the_team_is_read_lists_and_delivers_its_inbox_entries(
    qtbot: QtBot, controller: Controller, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 41: published while the team's first read (its transcripts) had not come back, the
    review listed no inbox and the window then delivered from the ledger, unreviewed. The link
    says where each message goes: the review lists it, and exactly that is delivered."""
    from composer_steps import select_section, type_into_section
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from conftest import actions_done

    _linked(controller, tmp_path, qtbot)
    controller.settle()
    real, release = team_bridge.team_view_of, threading.Event()

    def held(*args: object, **kwargs: object) -> TeamView:
        release.wait(30)  # the read of a long transcript, still under way
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(team_bridge, "team_view_of", held)
    folder = controller.live.session.folder if controller.live else Path()
    controller.team.view = None  # as before the first read came back
    pane = controller.window.composer
    controller.window.central_tabs.setCurrentWidget(pane)
    select_section(controller, "Open Questions")
    type_into_section(qtbot, pane, "(owner: Lead)", "(owner: Lead)\n- Q-9: who signs the ledger export?")
    shown: list[str] = []

    def ok(box: QMessageBox) -> QMessageBox.StandardButton:
        shown.append(box.detailedText())
        return QMessageBox.StandardButton.Ok

    pane.confirm = ok  # type: ignore[method-assign]
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    inbox = tmp_path / "claude" / "teams" / "pay" / "inboxes" / "implementer-1.json"
    (review,) = shown
    assert "deliver implementer-1's CONTEXT-UPDATE GC-v7 (delta) into implementer-1's inbox" in review
    release.set()
    # The inbox is written in place under its lock, as the client writes it: read it once the
    # delivery is recorded, not while it is being written.
    qtbot.waitUntil(lambda: _delivered(folder, "implementer-1"), timeout=10_000)
    (entry,) = json.loads(inbox.read_text(encoding="utf-8"))
    (sent,) = (folder / "messages" / "outbox").glob("GC-v7-implementer-1-*.md")
    assert entry["text"].startswith(sent.read_text(encoding="utf-8").rstrip("\n"))
