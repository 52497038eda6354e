"""Issue 42: what needs the Lead, first on screen: one list (a lost context, replies to carry out,
a blocked teammate, deliveries in trouble, pings, a gate waiting for its verdict), most urgent
first, each row answered by its own action from the keyboard."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import drop_two_replies, report_lost_context, run_cli, settle_reviews
from models.actions.attention import needs_lead
from models.review.inbox import Message
from models.review.validation import Review
from models.session.teammates import Teammate


def _review(sender: str, action: str, ts: str, summary: str = "") -> Review:
    return Review(Message(f"inbox/{sender}-{ts}.md", sender, "...", ts), action=action, summary=summary)


def test_the_list_puts_a_lost_context_first_and_a_gate_last() -> None:
    reviews = [
        _review("implementer-1", "confirm", "2026-11-29T01:00:00Z", "all applied: confirm GC-v7"),
        _review("implementer-2", "resend", "2026-11-29T01:01:00Z", "2 of 3 unclear: re-send §Risks"),
        _review("implementer-3", "lost", "2026-11-29T01:02:00Z", "CONTEXT_LOST: send the full GC"),
        _review("implementer-4", "record", "2026-11-29T01:03:00Z"),  # nothing for the Lead to do
        _review("researcher-1", "confirm", "2026-11-29T00:59:00Z"),  # already carried out
    ]
    handled = {(reviews[4].message.source, reviews[4].message.sha)}
    mates = [Teammate("implementer-4", status="BLOCKED"), Teammate("implementer-1", status="IN_PROGRESS")]
    pings = {"implementer-2": "2026-11-29T00:40:00Z"}
    items = needs_lead(reviews, handled, mates, pings, None, {"phase": 6})
    assert [(a.kind, a.role, a.action) for a in items] == [
        ("lost", "implementer-3", "carry-out"),
        ("reply", "implementer-2", "carry-out"),  # a re-send before a confirmation
        ("reply", "implementer-1", "carry-out"),
        ("blocked", "implementer-4", None),  # only the Lead can answer it: no action
        ("ping", "implementer-2", "ping"),
        ("gate", None, "conclude-gate"),
    ]
    assert items[0].what == "CONTEXT_LOST: send the full GC" and items[-1].what.startswith("the gate of phase 6")


def test_a_lost_context_is_answered_from_needs_you_with_return(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    w = controller.window
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    assert not w.attention_dock.visibleRegion().isEmpty()  # first on screen
    report_lost_context(qtbot, controller, demo_copy)
    pane = w.attention_pane
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0)
    first = pane.model.items[0]
    assert (first.kind, first.role, first.action_label) == ("lost", "implementer-3", "Carry out")
    assert pane.header.text().endswith("need you") or pane.header.text().endswith("needs you")
    pane.view.setFocus()
    pane.view.setCurrentIndex(pane.model.index(0, 0))
    qtbot.keyClick(pane.view, Qt.Key.Key_Return)  # the row's action: Carry out (reviewed: the fixture's OK)
    settle_reviews(qtbot, controller)
    (sent,) = (demo_copy / "messages" / "outbox").glob("GC-v6-implementer-3-full-*.md")
    # implementer-3 follows nine sections (the demo's subscriptions.yaml): they are its full GC.
    assert sent.read_text(encoding="utf-8").startswith(
        "[CONTEXT-UPDATE] GC-v6 (full injection: the sections you follow)"
    )
    # done: nothing of implementer-3's is left (no team is linked: the Lead pastes the re-send)
    qtbot.waitUntil(lambda: all(i.role != "implementer-3" for i in pane.model.items))


def test_a_team_read_again_with_nothing_new_leaves_the_list_and_its_selection_alone(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """A working team is read again at every append to a transcript: the list is not made
    again (which moved the Lead's selection back and re-measured its columns each time)."""
    w = controller.window
    w.show()
    drop_two_replies(demo_copy / "messages" / "inbox")
    report_lost_context(qtbot, controller, demo_copy)
    pane = w.attention_pane
    qtbot.waitUntil(lambda: pane.model.rowCount() > 1)
    pane.view.setFocus()
    qtbot.keyClick(pane.view, Qt.Key.Key_Down)
    chosen = pane.current()
    assert chosen is not None and chosen != pane.model.items[0]
    with qtbot.assertNotEmitted(pane.model.modelReset), qtbot.waitSignal(controller.team.viewReady):
        controller.team.refresh()
    assert pane.current() == chosen


def test_a_gate_waiting_is_concluded_from_needs_you(
    qtbot: QtBot,
    controller: Controller,
    demo_copy: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Return on the gate's row brings the composer to the front and asks for the verdict and
    the notes, as its Conclude gate button does."""
    from PySide6.QtWidgets import QInputDialog

    assert run_cli(capsys, "gate", "start", str(demo_copy), "--phase", "6")[0] == 0
    controller.reload()
    settle_reviews(qtbot, controller)
    monkeypatch.setattr(QInputDialog, "getItem", lambda *args: ("APPROVED", True))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *args: ("", True))
    w = controller.window
    w.show()
    pane = w.attention_pane
    qtbot.waitUntil(lambda: any(i.kind == "gate" for i in pane.model.items))
    row = next(n for n, i in enumerate(pane.model.items) if i.kind == "gate")
    pane.view.setFocus()
    pane.view.setCurrentIndex(pane.model.index(row, 0))
    with qtbot.waitSignal(w.composer.gateConcluded, timeout=5000) as concluded:
        qtbot.keyClick(pane.view, Qt.Key.Key_Return)
    assert w.central_tabs.currentWidget() is w.composer
    assert "result: APPROVED" in Path(concluded.args[0]).read_text(encoding="utf-8")


def test_deliveries_in_trouble_are_listed_only_for_a_linked_team(tmp_path: Path) -> None:
    from models.claude.following import Followed
    from models.claude.status import TeamRow, TeamView
    from models.claude.team import Link, Team

    def row(role: str, **state: object) -> TeamRow:
        base: dict[str, object] = dict(
            member=role, file=f"outbox/{role}.md", gc_version=7, mode="delta", sent_ts="2026-11-29T01:00:00Z",
            delivered_ts="2026-11-29T01:00:01Z", reason=None, picked_up=True, acked=False,
        )  # fmt: skip
        base.update(state)
        return TeamRow(role, role, Followed(role, **base), None, None)  # type: ignore[arg-type]

    rows = {
        "implementer-1": row("implementer-1", lost_at="2026-11-29T01:05:00Z"),
        "implementer-2": row("implementer-2", delivered_ts=None, reason="inbox lock busy"),
        "implementer-3": row("implementer-3", received_ts="2026-11-29T01:00:02Z"),  # the model has it
        "implementer-4": row("implementer-4", delivered_ts=None, undecided=True, reason="an attempt may have arrived"),
    }
    compacted = row("implementer-5", acked=True)
    rows["implementer-5"] = TeamRow("implementer-5", "implementer-5", compacted.followed, None, "2026-11-29T02:00:00Z")
    team = Team(tmp_path, "pay", "team-lead", None)
    linked = TeamView(team, Link(tmp_path), rows)
    items = needs_lead([], set(), [], {}, linked, None)
    lost = items.pop(0)  # a context presumed lost comes first: the next update sends it the full GC
    assert (lost.kind, lost.role, lost.action_label) == ("lost", "implementer-5", "Show its next update")
    assert [(a.role, a.action, a.what) for a in items] == [  # the oldest first
        ("implementer-2", "deliver", "GC-v7 undelivered: inbox lock busy"),
        ("implementer-4", "deliver-again", "GC-v7 undecided: an attempt may have arrived"),
        (
            "implementer-1",
            "deliver-again",
            "GC-v7 lost: the teammate compacted at 2026-11-29T01:05:00Z before its model received it",
        ),  # since it was delivered
    ]
    assert needs_lead([], set(), [], {}, TeamView(None, None, rows), None) == []  # not linked: the Lead pastes


def test_a_session_with_no_snapshot_is_offered_a_baseline_first(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Issue 42 (adopt on first open): a GC whose version gc-history has no snapshot of (every
    session an agent Lead ran by hand) is offered a baseline at the top of Needs you; Return
    shows the review, and once taken, the offer is gone."""
    import shutil

    from PySide6.QtWidgets import QMessageBox

    shutil.rmtree(demo_copy / "gc-history")
    controller.reload()
    settle_reviews(qtbot, controller)
    w = controller.window
    w.show()
    pane = w.attention_pane
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0)
    first = pane.model.items[0]
    assert (first.kind, first.action_label) == ("adopt", "Baseline…")
    assert first.what.startswith("GC-v6 has no snapshot in gc-history/")
    shown: list[str] = []

    def review(box: object) -> QMessageBox.StandardButton:
        shown.extend(box.preview.relative(wr) for wr in box.preview.writes)  # type: ignore[attr-defined]
        return QMessageBox.StandardButton.Ok

    w.composer.confirm = review  # type: ignore[method-assign]
    pane.view.setFocus()
    pane.view.setCurrentIndex(pane.model.index(0, 0))
    qtbot.keyClick(pane.view, Qt.Key.Key_Return)
    settle_reviews(qtbot, controller)
    assert "gc-history/GC-v6.md" in shown
    gc = (demo_copy / "global-context.md").read_text(encoding="utf-8")
    assert (demo_copy / "gc-history" / "GC-v6.md").read_text(encoding="utf-8") == gc
    assert all(i.kind != "adopt" for i in pane.model.items)  # gone once it is taken
