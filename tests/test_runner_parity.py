"""Every Lead action, asked of the window and of the CLI, on the demo and every real session:
the preview the window hands its runner to write is, field for field and byte for byte, the
one ``--dry-run --json`` prints (decisions, files, their bytes, inbox entries).

The window's runner prepares each action off the GUI thread from a snapshot; the CLI prepares
it from the files. Both run ``models.actions``' one prepare, and both must have gathered the
same inputs for it: the teammates' replies (a NEED_CLARIFICATION in the inbox asks for the
full GC, FC-5), the phase a gate is for, the clock. The window's commit is recorded here and
refused, so every action is asked of the same files the CLI reads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_team_steps import make_team
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

import app.action_runner as action_runner
from app.controller import Controller
from conftest import (
    DEMO,
    SESSIONS,
    actions_done,
    copy_session,
    edited_copy,
    run_cli,
    settle_reviews,
    shown_controller,
)
from models.actions.preview import Preview
from models.review.rows import message_id
from models.session.folder import open_session
from models.text.tokens import get_tokenizer
from models.text.transaction import WriteRefused

NOW = "2026-11-29T09:00:00Z"
REPLY = "Table 3 is the one in the plan's Phase 6 section.\n"


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every module that reads the clock for a record (gates, the ledger, outbox names) reads
    one fixed time, in the window's prepare and the CLI's alike."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("app", "ui", "models") and callable(getattr(module, "utc_now", None)):
            monkeypatch.setattr(module, "utc_now", lambda: NOW)


class _Window:
    """The window on one copy, each preview it hands the runner recorded (and not written)."""

    def __init__(self, qtbot: QtBot, tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.qtbot = qtbot
        self.previews: list[Preview] = []
        self.errors: list[str] = []

        def recorded(preview: Preview) -> object:
            self.previews.append(preview)
            raise WriteRefused(["recorded by the test"])

        monkeypatch.setattr(action_runner, "commit", recorded)
        self.controller: Controller = shown_controller(qtbot, tmp_path)
        assert self.controller.open(folder)
        settle_reviews(qtbot, self.controller)
        self.controller._error = self.errors.append  # type: ignore[method-assign]
        self.controller.inbox.failed.disconnect()
        self.controller.inbox.failed.connect(self.errors.append)
        pane = self.controller.window.composer
        pane.error = self.errors.append  # type: ignore[method-assign]
        pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
        self.controller.inbox.review_write = lambda preview, question: True  # type: ignore[method-assign]
        self.controller.inbox.ask_reply = lambda result, text: REPLY  # type: ignore[method-assign]

    def asked(self, action: object) -> dict[str, Any] | None:
        """What the runner was handed to write for one action (its preview as ``--json``
        prints it), or None when the window wrote nothing and said why."""
        self.previews.clear()
        self.errors.clear()
        action()  # type: ignore[operator]
        actions_done(self.qtbot, self.controller)
        if not self.previews:
            assert self.errors, "the window neither wrote nor said why not"
            return None
        (preview,) = self.previews
        data: dict[str, Any] = json.loads(json.dumps(preview.data()))
        return data


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any] | None:
    code, out, err = run_cli(capsys, *args, "--dry-run", "--json")
    if code != 0:
        assert code == 2 and err.startswith("lead-console: "), (code, err)
        return None
    data: dict[str, Any] = json.loads(out)
    return data


def _ask_clarification(folder: Path) -> str | None:
    """The first teammate asks which table item 1 means (in four real sessions every teammate
    is shut down: its message is carried out all the same): who asked, or None for a session
    with no teammate or no version."""
    session = open_session(folder, get_tokenizer("estimate"))
    roles, version = [m.role for m in session.teammates()], session.gc_version
    if not roles or version is None:
        return None
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    text = f"[ACK-UPDATE] GC-v{version} received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n"
    (inbox / f"{roles[0]}-ack.md").write_text(f"From: {roles[0]}\n{text}", encoding="utf-8")
    return roles[0]


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_every_action_previews_the_same_in_the_window_and_the_cli(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    source: Path,
) -> None:
    folder = copy_session(source, tmp_path / "project")
    asker = _ask_clarification(folder)
    session = open_session(folder, get_tokenizer("estimate"))
    phase = session.current_phase or 1  # what Start gate… proposes
    roles = [m.role for m in session.teammates()]
    window = _Window(qtbot, tmp_path, folder, monkeypatch)
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (phase, True))
    actions = window.controller.window.composer.session_actions
    compared = []

    both = window.asked(actions.baseline), _cli(capsys, "baseline", str(folder))
    assert both[0] == both[1]
    compared.append(("baseline", both[0] is not None))
    both = window.asked(actions.toggle_gate), _cli(capsys, "gate", "start", str(folder), "--phase", str(phase))
    assert both[0] == both[1]
    compared.append(("gate start", both[0] is not None))
    for role in roles[:2]:
        both = (
            window.asked(lambda r=role: window.controller.set_state(r, "idle")),
            _cli(capsys, "teammate", str(folder), role, "--state", "idle"),
        )
        assert both[0] == both[1]
        compared.append((f"{role} idle", both[0] is not None))
    if asker is not None:
        (review,) = [r for r in window.controller.reviews if r.message.source == f"inbox/{asker}-ack.md"]
        ident = message_id(review)
        both = (
            window.asked(lambda: window.controller.inbox.carry_out(review)),
            _cli(capsys, "inbox", str(folder), "--carry-out", ident),
        )
        assert both[0] == both[1]
        compared.append(("carry out", both[0] is not None))
        words = tmp_path / "reply.md"
        words.write_text(REPLY, encoding="utf-8")
        both = (
            window.asked(lambda: window.controller.inbox.reply(review)),
            _cli(capsys, "inbox", str(folder), "--reply", ident, "--text", str(words)),
        )
        assert both[0] == both[1]
        compared.append(("reply", both[0] is not None))
    # What each role follows, as proposed (Propose clicked in the matrix), and a spawn brief
    # for whoever takes over the first teammate's work.
    subscriptions = window.controller.subscriptions
    subscriptions.ask = lambda dialog: (dialog.propose_button.click(), dialog.matrix())[1]  # type: ignore[method-assign]
    subscriptions.review_write = lambda preview, question: True  # type: ignore[method-assign]
    both = (
        window.asked(subscriptions.edit),
        _cli(capsys, "subscriptions", str(folder), "--propose", "--write"),
    )
    assert both[0] == both[1]
    compared.append(("subscriptions", both[0] is not None))
    briefs = window.controller.briefs
    for role in roles[:1]:
        briefs.ask_name = lambda asked: "newcomer-1"  # type: ignore[method-assign]
        briefs.review_write = lambda preview, question: True  # type: ignore[method-assign]
        both = (
            window.asked(lambda r=role: briefs.brief(r)),
            _cli(capsys, "brief", str(folder), "newcomer-1", "--takes-over", role),
        )
        assert both[0] == both[1]
        compared.append(("brief", both[0] is not None))
    window.controller.close()

    # Publish, on a copy adopted (a baseline taken) whose GC the Lead then edited on disk.
    edited = edited_copy(source, tmp_path / "edited")
    _ask_clarification(edited)
    gc = edited / "global-context.md"
    window = _Window(qtbot, tmp_path / "again", edited, monkeypatch)
    pane = window.controller.window.composer
    window.controller.window.central_tabs.setCurrentWidget(pane)
    clicked = None
    if pane.publish_button.isEnabled():  # disabled: nothing to publish (no GC)
        clicked = window.asked(lambda: qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton))
    cli = _cli(capsys, "publish", str(edited))
    assert clicked == (cli["preview"] if cli is not None else None)
    compared.append(("publish", clicked is not None))
    window.controller.close()

    # What each session allows, read off its files: every action is asked of a session with a GC.
    done = dict(compared)
    assert done["publish"] is gc.is_file()
    assert done["subscriptions"] is gc.is_file()
    assert done.get("brief", False) is (gc.is_file() and bool(roles))
    assert done.get("carry out", False) is (asker is not None)
    assert done.get("reply", False) is (asker is not None)
    if asker in session.receiving_roles() and clicked is not None:  # ADR-002 §6: who asked gets the full GC (FC-5)
        (decision,) = [d for d in clicked["decisions"] if d["role"] == asker]
        assert decision["mode"] == "full" and any(c.startswith("FC-5") for c in decision["conditions"]), decision


def test_a_linked_teams_clarification_request_and_its_deliveries_preview_the_same(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case that drifted: implementer-2 asks in the linked Claude Code team's lead inbox
    (never in the session's own inbox). Both previews send it the full GC (FC-5) and list the
    same inbox entry for each member, byte for byte."""
    edited = edited_copy(DEMO, tmp_path / "project")
    team = make_team(tmp_path / "claude")
    asks = "[ACK-UPDATE] GC-v6 received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n"
    reply = {"from": "implementer-2", "text": asks, "timestamp": "2026-11-29T08:00:00.000Z", "read": False}
    (team / "inboxes" / "team-lead.json").write_text(json.dumps([reply]), encoding="utf-8")
    assert run_cli(capsys, "team", str(edited), "--team", str(team), "--json")[0] == 0  # links the session
    window = _Window(qtbot, tmp_path, edited, monkeypatch)
    pane = window.controller.window.composer
    window.controller.window.central_tabs.setCurrentWidget(pane)
    clicked = window.asked(lambda: qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton))
    cli = _cli(capsys, "publish", str(edited))
    assert clicked is not None and cli is not None and clicked == cli["preview"]
    modes = {d["role"]: (d["mode"], [c.split(":")[0] for c in d["conditions"]]) for d in clicked["decisions"]}
    assert modes["implementer-2"][0] == "full" and "FC-5" in modes["implementer-2"][1]
    assert modes["implementer-1"] == ("delta", [])  # one version behind, asked nothing
    delivered = {e["member"]: e["message"] for e in clicked["deliveries"]}
    assert set(delivered) == {"implementer-1", "implementer-2", "implementer-3", "implementer-4"}  # make_team's
    window.controller.close()
