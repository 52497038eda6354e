"""Issue 42 (An Inbox worth reading: actions that answer): Reply… answers a teammate's message in
the Lead's words, and a DELTA report that needs the Lead's decision offers Go ahead / Hold.

Expected values are written out by hand: the reply's file holds the words as typed, the ledger
gains a ``replied`` line and a ``handled`` line for the message answered, a linked team's
member gets the words plus the reply line PROTOCOL.md asks for, and the answered message
leaves Needs you."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_team_steps import entries, make_team
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import drop_two_replies, run_cli, settle_reviews, when_modal
from models.actions.preview import Preview
from ui.reply_dialog import ReplyDialog

GO_AHEAD = "Decision: go ahead as you proposed."


def _ledger(folder: Path) -> list[dict[str, object]]:
    path = folder / "messages" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _reply_files(folder: Path) -> list[Path]:
    return sorted((folder / "messages" / "outbox").glob("reply-*.md"))


def _answer_when_shown(qtbot: QtBot, typed: str, decide: str | None = None, cancel: bool = False) -> list[str]:
    """Once the Reply dialog is up: click a decision, type into the reply, and click Review
    Reply… (or Cancel), as the Lead would. Returns what the dialog held when it closed."""
    seen: list[str] = []

    def act(dialog: ReplyDialog) -> None:
        if decide is not None:
            choice = next(b for b in dialog.findChildren(QPushButton) if b.text() == decide)
            qtbot.mouseClick(choice, Qt.MouseButton.LeftButton)
        qtbot.keyClicks(dialog.editor, typed)
        seen.append(dialog.text)
        target = dialog.buttons.button(dialog.buttons.StandardButton.Cancel) if cancel else dialog.review_button
        qtbot.mouseClick(target, Qt.MouseButton.LeftButton)

    when_modal(ReplyDialog, act)
    return seen


def _two_replies_read(qtbot: QtBot, controller: Controller, folder: Path) -> None:
    """implementer-2's NEED_CLARIFICATION and implementer-4's consult report, in the Inbox."""
    drop_two_replies(folder / "messages" / "inbox")
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)


def _select(controller: Controller, role: str) -> None:
    pane = controller.window.review_pane
    model = pane.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == role)
    pane.view.setCurrentIndex(model.index(row, 0))


def test_a_consult_report_is_answered_with_a_decision_and_leaves_needs_you(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    _two_replies_read(qtbot, controller, demo_copy)
    attention = controller.window.attention_pane.model
    whose = [attention.index(r, 0).data() for r in range(attention.rowCount())]
    assert "implementer-4" in whose  # the report that asks to consult needs the Lead
    reviewed: list[Preview] = []
    controller.inbox.review_write = lambda preview, question: reviewed.append(preview) is None  # type: ignore[method-assign]
    _select(controller, "implementer-4")
    seen = _answer_when_shown(qtbot, "Keep the corrections table.", decide="Go ahead")
    qtbot.mouseClick(controller.window.review_pane.reply_button, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    assert seen == [f"{GO_AHEAD}Keep the corrections table."]
    (reply,) = _reply_files(demo_copy)
    assert reply.name.startswith("reply-implementer-4-")
    assert reply.read_text(encoding="utf-8") == f"{GO_AHEAD}Keep the corrections table.\n"
    (preview,) = reviewed
    assert [preview.relative(w) for w in preview.writes] == [
        f"messages/outbox/{reply.name}",
        "messages/ledger.jsonl",
    ]
    replied = [e for e in _ledger(demo_copy) if e["direction"] == "replied"]
    handled = [e for e in _ledger(demo_copy) if e["direction"] == "handled"]
    assert [(e["to"], e["file"], e["source"]) for e in replied] == [
        ("implementer-4", f"messages/outbox/{reply.name}", "inbox/implementer-4-report.md")
    ]
    assert [(e["from"], e["action"], e["source"]) for e in handled] == [
        ("implementer-4", "reply", "inbox/implementer-4-report.md")
    ]
    whose = [attention.index(r, 0).data() for r in range(attention.rowCount())]
    assert "implementer-4" not in whose
    assert not any(e["direction"] == "sent" for e in _ledger(demo_copy))  # a reply is no update


def test_a_cancelled_reply_writes_nothing_and_keeps_what_was_typed(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    _two_replies_read(qtbot, controller, demo_copy)
    _select(controller, "implementer-2")
    _answer_when_shown(qtbot, "Table D-3 is the ledger table.", cancel=True)
    qtbot.mouseClick(controller.window.review_pane.reply_button, Qt.MouseButton.LeftButton)
    assert _reply_files(demo_copy) == []
    assert not any(e["direction"] in ("replied", "handled") for e in _ledger(demo_copy))
    seen = _answer_when_shown(qtbot, " Columns as in §2.")
    qtbot.mouseClick(controller.window.review_pane.reply_button, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    assert seen == ["Table D-3 is the ledger table. Columns as in §2."]
    (reply,) = _reply_files(demo_copy)
    assert reply.read_text(encoding="utf-8") == "Table D-3 is the ledger table. Columns as in §2.\n"


def test_the_cli_replies_and_delivers_into_the_linked_members_inbox(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop_two_replies(demo_copy / "messages" / "inbox")
    team = make_team(tmp_path / "claude")
    code, out, err = run_cli(capsys, "team", str(demo_copy), "--team", str(team), "--json")
    assert code == 0, err
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--json")
    listed = {m["from"]: m["id"] for m in json.loads(out)["messages"]}
    words = tmp_path / "reply.txt"
    words.write_text("Use table D-3.\n", encoding="utf-8")
    ident = listed["implementer-2"]
    code, out, err = run_cli(
        capsys, "inbox", str(demo_copy), "--reply", ident, "--text", str(words), "--deliver", "--dry-run", "--json"
    )
    assert code == 0, err
    shown = json.loads(out)
    (delivery,) = shown["deliveries"]
    assert (delivery["role"], delivery["what"], delivery["sender"]) == ("implementer-2", "write", "lead-console")
    assert delivery["text"].startswith("Use table D-3.\n\nReply to team-lead with SendMessage")
    assert _reply_files(demo_copy) == [] and entries(team / "inboxes" / "implementer-2.json") == []

    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--reply", ident, "--text", str(words), "--deliver")
    assert code == 0, err
    (entry,) = entries(team / "inboxes" / "implementer-2.json")
    assert (entry["from"], entry["text"]) == ("lead-console", delivery["text"])
    (reply,) = _reply_files(demo_copy)
    assert reply.read_text(encoding="utf-8") == "Use table D-3.\n"
    delivered = [e for e in _ledger(demo_copy) if e["direction"] == "delivered"]
    assert [(e["to"], e["kind"], e["file"]) for e in delivered] == [
        ("implementer-2", "REPLY", f"messages/outbox/{reply.name}")
    ]
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--json")
    done = {m["from"]: m["done"] for m in json.loads(out)["messages"]}
    assert done["implementer-2"] is not None and done["implementer-4"] is None


def test_an_empty_reply_or_an_unreadable_ledger_writes_nothing(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drop_two_replies(demo_copy / "messages" / "inbox")
    code, out, _ = run_cli(capsys, "inbox", str(demo_copy), "--json")
    ident = next(m["id"] for m in json.loads(out)["messages"] if m["from"] == "implementer-4")
    blank = tmp_path / "blank.txt"
    blank.write_text("  \n", encoding="utf-8")
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--reply", ident, "--text", str(blank))
    assert code == 1 and "the reply is empty" in err and "Traceback" not in err
    ledger = demo_copy / "messages" / "ledger.jsonl"
    ledger.unlink(missing_ok=True)
    ledger.mkdir()  # a folder where the ledger should be: whether the message was answered is unknown
    words = tmp_path / "reply.txt"
    words.write_text("Go ahead.\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "inbox", str(demo_copy), "--reply", ident, "--text", str(words))
    assert code != 0 and "Traceback" not in err
    assert err.splitlines()[-1] == (
        "lead-console: Could not reply: messages/ledger.jsonl cannot be read (is a folder, not a file). "
        "Nothing was changed."
    )
    assert _reply_files(demo_copy) == []
