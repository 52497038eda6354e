"""The Inbox in the window: publish, ACKs arrive from every inbox, the table and plan follow."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from composer_steps import type_into_section
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

import models.actions.paste as paste
from app.controller import Controller
from conftest import (
    CLAUDE_TEAM,
    actions_done,
    activate,
    demo_follows,
    drop_two_replies,
    fail_carry_out_at,
    report_lost_context,
    role_full,
    settle_reviews,
)
from models.text.frontmatter import split_front_matter
from ui.main_window import MainWindow
from ui.node_model import PAYLOAD_ROLE


def _publish(qtbot: QtBot, ctl: Controller) -> None:
    w, pane = ctl.window, ctl.window.composer
    w.sections_pane.gc_view.setCurrentIndex(
        w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Architecture Decisions")
    )
    type_into_section(qtbot, pane, "| P6 |\n", "| P6 |\n| D-9 | zstd | smaller | P6 |\n")
    pane.confirm = lambda box: QMessageBox.StandardButton.Ok  # type: ignore[method-assign]
    with qtbot.waitSignal(pane.published, timeout=5000):
        pane.session_actions.publish()


def _ask_clarification(folder: Path, applied: int) -> None:
    """implementer-1's NEED_CLARIFICATION ACK of GC-v6 (of 2 items), dropped into the inbox."""
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-1-ack.md").write_text(
        f"From: implementer-1\n[ACK-UPDATE] GC-v6 received. Items: {applied}/2. Impact: unclear. "
        "Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )


def _table(ctl: Controller) -> dict[str, tuple[str, str, str]]:
    model = ctl.window.teammates_pane.teammate_model
    out = {}
    for r in range(model.rowCount()):
        role = model.index(r, 0).data()
        out[role] = (model.index(r, 1).data(), model.index(r, 3).data(), model.index(r, model.DUE).data())
    return out


def _confirmed(folder: Path) -> dict[str, int]:
    data = split_front_matter((folder / "orchestration-plan.md").read_text(encoding="utf-8"), "p")[0].data
    return dict(data["teammate_gc_versions"])


def test_acks_from_inbox_and_claude_team_drive_table_plan_and_next_update(
    qtbot: QtBot, controller: Controller, demo_copy: Path, tmp_path: Path
) -> None:
    _publish(qtbot, controller)
    w = controller.window
    inbox = demo_copy / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "inbox" in parts):
        (inbox / "implementer-1-ack.md").write_text(
            "[ACK-UPDATE] GC-v7 received.\n- Delta items applied: 1/1\n- Impact on my work: NONE\n"
            "- Action taken: CONTINUE\n- Unclear items: none\n",
            encoding="utf-8",
        )
    qtbot.waitUntil(lambda: _table(controller)["implementer-1"][1] == "1/1 CONTINUE", timeout=3000)
    assert _table(controller)["implementer-1"][2] == "⚑ confirm"  # since when: in its tooltip
    model = controller.window.teammates_pane.teammate_view.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-1")
    why = model.index(row, model.DUE).data(Qt.ItemDataRole.ToolTipRole)
    assert "confirm: its message of " in why and "in inbox/implementer-1-ack.md" in why

    team = tmp_path / "cow-execution"
    shutil.copytree(CLAUDE_TEAM, team)
    items = json.loads((team / "inboxes" / "team-lead.json").read_text(encoding="utf-8"))
    items.append(
        {
            "from": "implementer-2",
            "text": "**[ACK-UPDATE]** GC-v7 received. Items: 1/1. Impact: none. Action: CONTINUE",
            "timestamp": "2026-11-22T03:05:00Z",
            "read": False,
        }
    )
    items.append(
        {
            "from": "implementer-4",
            "text": "[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v7",
            "timestamp": "2026-11-22T03:06:00Z",
            "read": False,
        }
    )
    (team / "inboxes" / "team-lead.json").write_text(json.dumps(items), encoding="utf-8")
    controller.link.set_team_folder(team)
    settle_reviews(qtbot, controller)
    reviews = {(r.message.sender, r.message.kind): r for r in controller.reviews}
    assert ("implementer-3", "delta_report") in reviews
    assert w.review_pane.model.rowCount() >= 7  # six Claude items minus the protocol one, plus the inbox ACK

    for r in list(controller.reviews):
        if r.action == "confirm" and r.message.sender in ("implementer-1", "implementer-2", "implementer-4"):
            assert controller.inbox.carry_out(r)
            actions_done(qtbot, controller)  # one action at a time
    settle_reviews(qtbot, controller)
    confirmed = _confirmed(demo_copy)
    assert confirmed["implementer-1"] == 7 and confirmed["implementer-2"] == 7 and confirmed["implementer-4"] == 7
    assert confirmed["implementer-3"] == 5 and confirmed["researcher-1"] == 4
    table = _table(controller)
    assert table["implementer-1"][0] == "GC-v7" and not table["implementer-1"][2].startswith("⚑ confirm")

    # The next update: the confirmed teammates get deltas, the others the full GC.
    pane = w.composer
    w.sections_pane.gc_view.setCurrentIndex(
        w.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Open Questions")
    )
    with qtbot.waitSignal(pane.changed, timeout=3000):
        pane.editor.setPlainText(pane.editor.toPlainText() + "- Q-3: next\n")
    model = pane.decisions_model
    modes = {d.role: d.mode for d in (model.index(r, 0).data(PAYLOAD_ROLE) for r in range(model.rowCount()))}
    assert modes == {
        "implementer-1": "delta",
        "implementer-2": "delta",
        "implementer-3": "full",
        "implementer-4": "delta",
        "researcher-1": "inactive",  # COMPLETE in the plan: the Lead has not asked to keep it informed
    }
    ledger = [json.loads(line) for line in (demo_copy / "messages" / "ledger.jsonl").read_text().splitlines()]
    received = [e for e in ledger if e["direction"] == "received"]
    assert len(received) == len({(e["source"], e["sha256"]) for e in received})  # each recorded once


def test_pasted_and_unreadable_messages_are_kept_and_shown_raw(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    assert controller.inbox.paste("I think the GC is fine?? no tags here", "implementer-3")
    settle_reviews(qtbot, controller)  # the runner prepares and writes it, then the Inbox reads it
    (path,) = (demo_copy / "messages" / "inbox").glob("implementer-3-pasted-*.md")
    assert path.read_text(encoding="utf-8").startswith("From: implementer-3\n")
    w = controller.window
    model = w.review_pane.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-3")
    assert model.index(row, 1).data() == "unknown"
    assert "⚠ not a protocol message" in model.index(row, model.SUMMARY).data()
    w.review_pane.view.setCurrentIndex(model.index(row, 0))
    raw = w.review_pane.raw.toPlainText()
    assert raw.startswith("# not a protocol message")  # in sight above the message, however long
    assert "I think the GC is fine??" in raw


def test_counts_read_as_english_and_a_clarification_request_needs_attention(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 13.6, in part: "1 message", "1 needs attention" while a NEED_CLARIFICATION waits."""
    _ask_clarification(demo_copy, applied=1)
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    assert controller.window.review_pane.header.text() == "1 message, 1 needs attention"
    assert controller.window.status_line.attention.text() == "⚑ 1 needs attention"


def test_a_message_is_carried_out_once_unless_the_lead_says_again(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 13.3: the handled message shows what was done and when; a second Carry out asks
    first, says what it would repeat, and does nothing when the Lead says no."""
    _ask_clarification(demo_copy, applied=1)
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    (review,) = [r for r in controller.reviews if r.message.sender == "implementer-1"]
    assert controller.inbox.carry_out(review)
    settle_reviews(qtbot, controller)
    ledger = demo_copy / "messages" / "ledger.jsonl"
    outbox = demo_copy / "messages" / "outbox"
    lines, sent = ledger.read_text(encoding="utf-8"), sorted(outbox.iterdir())
    row = next(r for r in range(controller.window.review_pane.model.rowCount()))
    model = controller.window.review_pane.model
    assert model.index(row, model.ACTION).data() == f"done: {review.action}"
    assert f"done: {review.action} at 20" in model.index(row, model.ACTION).data(Qt.ItemDataRole.ToolTipRole)
    asked: list[str] = []
    controller.inbox.confirm_repeat = lambda r, done: asked.append(done) or False  # type: ignore[method-assign]
    assert controller.inbox.carry_out(review)  # asked; the Lead says no
    actions_done(qtbot, controller)
    assert asked and asked[0].startswith(f"{review.action} at 20")
    assert ledger.read_text(encoding="utf-8") == lines and sorted(outbox.iterdir()) == sent  # nothing repeated
    controller.inbox.confirm_repeat = lambda r, done: True  # type: ignore[method-assign]
    assert controller.inbox.carry_out(review)  # the Lead said again


def test_two_pastes_in_one_second_make_two_files(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names the app creates never collide (issue 16): the second gets '-2', nothing is overwritten."""
    second = datetime(2026, 11, 29, 10, 0, 0, tzinfo=UTC)
    monkeypatch.setattr(paste, "datetime", type("Clock", (), {"now": staticmethod(lambda tz: second)}))
    text = "[STATUS] Phase 6 | IN_PROGRESS"
    assert controller.inbox.paste(text, "implementer-2")
    assert not controller.inbox.paste(text + " ", "implementer-2")  # one action at a time: the first is being prepared
    actions_done(qtbot, controller)
    assert controller.inbox.paste(text + " ", "implementer-2")
    actions_done(qtbot, controller)
    inbox = demo_copy / "messages" / "inbox"
    first, again = (
        inbox / "implementer-2-pasted-20261129T100000Z.md",
        inbox / "implementer-2-pasted-20261129T100000Z-2.md",
    )
    assert first.read_text(encoding="utf-8") == f"From: implementer-2\n{text}\n"
    assert again.read_text(encoding="utf-8") == f"From: implementer-2\n{text} \n"


def test_at_1366_by_768_an_inbox_row_reads_whole_without_scrolling(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 13.4: who sent it, what it says, its risk badges and what to do all lie inside the
    Inbox's visible width on a laptop-sized window; nothing needs a horizontal scroll."""
    drop_two_replies(demo_copy / "messages" / "inbox")
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    w = controller.window
    w.resize(1366, 768)
    w.show()
    w.inbox_dock.raise_()
    qtbot.waitExposed(w)
    pane, model = w.review_pane, w.review_pane.model
    view = pane.view
    assert model.rowCount() == 2
    header = view.horizontalHeader()
    qtbot.waitUntil(lambda: header.length() <= view.viewport().width(), timeout=3000)
    assert view.horizontalScrollBar().maximum() == 0
    assert header.sectionSize(model.SUMMARY) >= 120  # the summary has room to be read
    metrics = view.fontMetrics()

    def cut() -> list[tuple[int, int, str]]:
        """The short facts a column is too narrow for (the columns are fitted in a queued call)."""
        return [
            (row, column, model.index(row, column).data() or "")
            for row in range(model.rowCount())
            for column in (0, 1, model.ACTION, model.TIME)
            if metrics.horizontalAdvance(model.index(row, column).data() or "") > header.sectionSize(column)
        ]

    qtbot.waitUntil(lambda: not cut(), timeout=5000)  # the short facts are never cut
    report = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-4")
    summary = model.index(report, model.SUMMARY).data()
    assert summary.startswith("[⚠ high] DELTA report")  # the badge leads; From already names the sender
    # Issue 42.4: the reading pane under the list shows a message, not two lines of it.
    raw = pane.raw
    qtbot.waitUntil(lambda: raw.viewport().height() >= 4 * raw.fontMetrics().lineSpacing(), timeout=3000)


@pytest.mark.parametrize("step", ["resend", "plan", "ledger"])
def test_a_carry_out_failing_at_any_step_changes_nothing_and_says_so(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """Issue 16: the re-send, the plan and the ledger lines are written all or none; the error
    is said in one line and never escapes the slot."""
    _ask_clarification(demo_copy, applied=0)
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    (review,) = [r for r in controller.reviews if r.message.sender == "implementer-1"]
    # TEAM-MEMORY's first look (which may start its journal) is done: only the carry out writes now.
    qtbot.waitUntil(lambda: not controller.memory_actions.looking)
    tree = {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file()}

    fail_carry_out_at(monkeypatch, step)
    errors: list[str] = []
    monkeypatch.setattr(controller, "_error", errors.append)
    assert controller.inbox.carry_out(review)  # asked of the runner, which says it refused
    actions_done(qtbot, controller)
    assert errors and "No space left on device" in errors[0] and "nothing was written" in errors[0]
    # The steps before the failing one (the re-send, the plan) are undone: every file as it was.
    assert {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file()} == tree


def test_the_attention_count_opens_the_inbox(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    """The status bar's count shows only while something needs the Lead, and a click on it
    brings the Inbox forward (it shares a dock with Gates) with the focus in its list."""
    w = controller.window
    activate(qtbot, w)  # the focus goes to the active window
    count = w.status_line.attention
    assert not count.isVisible()  # the demo's inbox is empty
    w.gates_dock.raise_()
    qtbot.waitUntil(lambda: w.inbox_dock.visibleRegion().isEmpty())
    _ask_clarification(demo_copy, applied=1)
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    qtbot.waitUntil(count.isVisible)
    qtbot.mouseClick(count, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not w.inbox_dock.visibleRegion().isEmpty())
    assert QApplication.focusWidget() is w.review_pane.view


def test_the_title_counts_what_needs_the_lead_and_the_taskbar_is_asked_while_the_window_is_in_the_background(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Working in another window, the Lead sees "⚑ 1" in the title on the taskbar, which Qt
    is asked to flag (``QApplication.alert``) when the count grows; handled, the mark goes."""
    alerted: list[object] = []
    monkeypatch.setattr(QApplication, "alert", lambda widget, msec=0: alerted.append(widget))
    w = controller.window
    assert w.windowTitle() == "Lead Console — payments-ledger-v2"
    assert not w.isActiveWindow()  # offscreen and never activated: as behind another window
    _ask_clarification(demo_copy, applied=1)
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    assert w.windowTitle() == "Lead Console — payments-ledger-v2 — ⚑ 1"
    assert alerted == [w]
    controller.refresh_reviews()  # the same count again: no second alert
    settle_reviews(qtbot, controller)
    assert alerted == [w]
    review = next(r for r in controller.reviews if r.message.sender == "implementer-1")
    controller.inbox.carry_out(review)  # the first time: nothing to ask
    settle_reviews(qtbot, controller)
    assert w.windowTitle() == "Lead Console — payments-ledger-v2"


def test_a_blocked_status_shows_its_reason_in_the_inbox(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    """``[STATUS] Phase 6 | BLOCKED | reason`` (SESSION-FOLDER.md's status line with what the
    teammate says after it): the reason is the row's news, not an unknown part."""
    inbox = demo_copy / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-2-status.md").write_text(
        "[STATUS] Phase 6 | BLOCKED | waiting on the bucket policy\n", encoding="utf-8"
    )
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    model = controller.window.review_pane.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-2")
    summary = model.index(row, model.SUMMARY).data()
    assert summary == "implementer-2 is blocked: waiting on the bucket policy"
    assert model.index(row, model.ACTION).data() == "attention"


def test_carrying_out_a_lost_context_sends_the_full_gc_now(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 42.6: Carry out of a CONTEXT_LOST recorded the status and sent nothing, leaving the
    teammate without context. It sends the full GC (FC-2), copied and in the outbox."""
    from PySide6.QtGui import QGuiApplication

    report_lost_context(qtbot, controller, demo_copy)
    pane = controller.window.review_pane
    model = pane.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-3")
    assert model.index(row, model.ACTION).data() == "lost"
    pane.view.setCurrentIndex(model.index(row, 0))
    qtbot.mouseClick(pane.carry_button, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    (sent,) = (demo_copy / "messages" / "outbox").glob("GC-v6-implementer-3-full-*.md")
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    follows = demo_follows("implementer-3")  # its sections are its full GC
    assert follows is not None
    assert sent.read_text(encoding="utf-8") == role_full(gc, "GC-v6", follows)
    assert QGuiApplication.clipboard().text() == sent.read_text(encoding="utf-8")


def _teammate_row(w: MainWindow, role: str) -> int:
    model = w.teammates_pane.teammate_model
    return next(r for r in range(model.rowCount()) if model.index(r, 0).data() == role)


def test_the_inbox_says_it_is_narrowed_to_a_teammate_and_a_click_shows_all(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 42.4: choosing a teammate in the table narrowed the Inbox silently, while its
    header counted every message."""
    drop_two_replies(demo_copy / "messages" / "inbox")  # implementer-2's ACK, implementer-4's report
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    w = controller.window
    activate(qtbot, w)
    pane = w.review_pane
    assert pane.model.rowCount() == 2 and pane.header.text().startswith("2 messages")
    view = w.teammates_pane.teammate_view
    rect = view.visualRect(w.teammates_pane.teammate_model.index(_teammate_row(w, "implementer-2"), 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert pane.model.rowCount() == 1
    assert pane.header.text().startswith("1 of 2 messages")
    assert pane.filter_strip.isVisible() and pane.filter_label.text() == "Only implementer-2's messages"
    qtbot.mouseClick(pane.filter_button, Qt.MouseButton.LeftButton)  # Show all
    assert pane.model.rowCount() == 2 and pane.header.text().startswith("2 messages")
    assert not pane.filter_strip.isVisible()


def test_paste_message_picks_the_sender_from_the_teammates(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 42.5: "From" was free text, and a typo made a phantom teammate. It is a list of the
    session's teammates (the demo plan's five), the one chosen in the table first."""
    from PySide6.QtWidgets import QInputDialog, QPushButton

    w = controller.window
    activate(qtbot, w)
    view = w.teammates_pane.teammate_view
    rect = view.visualRect(w.teammates_pane.teammate_model.index(_teammate_row(w, "implementer-3"), 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    offered: list[tuple[list[str], int, bool]] = []
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *a: ("[STATUS] Phase 6 | IN_PROGRESS", True))

    def pick(
        parent: object, title: str, label: str, items: list[str], current: int, editable: bool
    ) -> tuple[str, bool]:
        offered.append((list(items), current, editable))
        return items[current], True

    monkeypatch.setattr(QInputDialog, "getItem", pick)
    paste = next(b for b in w.review_pane.findChildren(QPushButton) if b.text() == "Paste message…")
    qtbot.mouseClick(paste, Qt.MouseButton.LeftButton)
    settle_reviews(qtbot, controller)
    roles = ["implementer-1", "implementer-2", "implementer-3", "implementer-4", "researcher-1"]
    assert offered == [([*roles, "(unknown sender)"], 2, False)]
    (saved,) = (demo_copy / "messages" / "inbox").iterdir()
    assert saved.read_text(encoding="utf-8") == "From: implementer-3\n[STATUS] Phase 6 | IN_PROGRESS\n"
