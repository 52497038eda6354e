"""An inbox entry that cannot be read is left out and named; the rest of the Inbox stands.

A folder, a FIFO or a link to nothing among ``messages/inbox/*.md`` used to fail the whole
Inbox pass (the window said "The Claude Code team could not be read" and listed nothing) and
``lead-console plan`` with it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from conftest import DEMO, settle_reviews
from models.review.inbox import read_inbox
from models.text.problems import Problem

SAID = [
    "messages/inbox/a-link.md: cannot be read (No such file or directory); left out of the Inbox",
    "messages/inbox/b-folder.md: cannot be read (is a folder, not a file); left out of the Inbox",
    "messages/inbox/c-fifo.md: cannot be read (not a regular file (a FIFO); not read); left out of the Inbox",
]


def _damaged(tmp_path: Path) -> Path:
    folder = tmp_path / "damaged" / ".agent" / "teams" / DEMO.name
    shutil.copytree(DEMO, folder)
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "a-link.md").symlink_to(folder / "nowhere.md")
    (inbox / "b-folder.md").mkdir()
    os.mkfifo(inbox / "c-fifo.md")
    (inbox / "implementer-3-ack.md").write_text("[ACK-UPDATE] GC-v6 received. Items: 3/3.\n", encoding="utf-8")
    return folder


def test_the_readable_entries_are_read_and_the_others_named(tmp_path: Path) -> None:
    folder = _damaged(tmp_path)
    problems: list[Problem] = []
    messages = read_inbox(folder, ["implementer-3"], problems)
    assert [(m.source, m.sender) for m in messages] == [("inbox/implementer-3-ack.md", "implementer-3")]
    assert [str(p) for p in problems] == SAID


def test_the_cli_plans_and_warns_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _damaged(tmp_path)
    assert main(["plan", str(folder), "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["teammates"]) == 5  # stdout is still JSON
    assert err.splitlines() == [f"lead-console: warning: {line}" for line in SAID]


def test_the_window_lists_the_inbox_and_names_what_it_left_out(
    qtbot: QtBot, controller: Controller, tmp_path: Path
) -> None:
    folder = _damaged(tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    pane = controller.window.review_pane
    assert [pane.model.index(r, 0).data() for r in range(pane.model.rowCount())] == ["implementer-3"]
    assert pane.banner.text().splitlines() == [f"⚠ {line}" for line in SAID]
