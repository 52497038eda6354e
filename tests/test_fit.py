"""Issue 47 (fit check): whether an update takes a teammate past Claude Code's auto-compact
threshold. The threshold is Claude Code 2.1.332's own arithmetic, read from the client: the
window, less min(maxOutputTokens, 20,000), less a 13,000-token summary buffer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.demo import copy_session
from models.claude.fit import autocompact_threshold, fit_of
from models.claude.transcript_read import TeammateContext
from tests.conftest import run_cli


def test_the_threshold_is_the_clients_arithmetic() -> None:
    assert autocompact_threshold(200_000) == 167_000  # 200,000 − 20,000 − 13,000
    assert autocompact_threshold(1_000_000) == 967_000
    assert autocompact_threshold(200_000, max_output=8_000) == 179_000  # a model reserving less output
    assert autocompact_threshold(200_000, pct_override=50) == 90_000  # half of the 180,000 effective window
    assert autocompact_threshold(200_000, pct_override=99) == 167_000  # an override only lowers it


def test_a_message_that_reaches_the_threshold_tips_it() -> None:
    context = TeammateContext("implementer-3", tokens=160_000, window=200_000)
    tipping = fit_of("implementer-3", context, 7_000)
    assert tipping is not None and tipping.after == 167_000 and tipping.tips
    fitting = fit_of("implementer-3", context, 6_999)
    assert fitting is not None and not fitting.tips
    assert fit_of("implementer-3", TeammateContext("implementer-3"), 500) is None  # no size known
    assert fit_of("implementer-3", None, 500) is None  # no linked team


def test_publish_previews_each_recipients_fit_from_the_demo_transcripts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's transcripts (their last usage, summed by hand): implementer-1 61,900,
    implementer-2 34,800, implementer-3 121,700, implementer-4 167,600 of 200,000. implementer-4
    is already past 167,000: any update tips it; the others fit."""
    folder = copy_session(None, tmp_path)  # the demo with its team linked
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n## Fit Check\n- one: more line\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "publish", str(folder), "--dry-run", "--json")
    assert code == 0, err
    fits = {f["role"]: f for f in json.loads(out)["preview"]["fits"]}
    assert {role: f["context"] for role, f in fits.items()} == {
        "implementer-1": 61_900,
        "implementer-2": 34_800,
        "implementer-3": 121_700,
        "implementer-4": 167_600,
    }
    assert {role: f["tips"] for role, f in fits.items()} == {
        "implementer-1": False,
        "implementer-2": False,
        "implementer-3": False,
        "implementer-4": True,
    }
    assert all(f["threshold"] == 167_000 for f in fits.values())
    code, out, _ = run_cli(capsys, "publish", str(folder), "--dry-run")
    assert "⚠ implementer-4: would tip into an automatic compaction (167,600 + " in out


def test_the_publish_review_warns_of_the_recipient_it_would_tip(qtbot: object, tmp_path: Path) -> None:
    """In the window, with the demo's team linked: the review Publish shows says, above its
    buttons, that implementer-4 would tip into a compaction; Cancel writes nothing."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox, QMessageBox
    from pytestqt.qtbot import QtBot

    from tests.composer_steps import type_a_question
    from tests.conftest import session_files, settle_reviews, shown_controller, when_modal
    from ui.review_dialog import ReviewDialog

    assert isinstance(qtbot, QtBot)

    controller = shown_controller(qtbot, tmp_path)
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]  # the draft, at the end
    folder = copy_session(None, tmp_path / "demo")
    assert controller.open(folder)
    qtbot.waitUntil(lambda: controller.window.teammates_pane.teammate_model.linked, timeout=10_000)
    settle_reviews(qtbot, controller)
    pane = type_a_question(qtbot, controller)
    before = session_files(folder)
    notes: list[str] = []

    asked: list[str] = []
    entries: list[list[str]] = []

    def choose(box: QMessageBox) -> None:
        asked.append(box.text())
        hold = next(b for b in box.buttons() if b.text() == "&Hold Until Compaction")
        when_modal(ReviewDialog, answer)
        qtbot.mouseClick(hold, Qt.MouseButton.LeftButton)

    def answer(dialog: ReviewDialog) -> None:
        notes.append(dialog.notes.text())
        entries.append([dialog.files.item(i).text() for i in range(dialog.files.count())])
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)

    when_modal(QMessageBox, choose)
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(notes))  # its preview is worked out off the GUI thread, twice
    assert asked[0].startswith("implementer-4: would tip into an automatic compaction (167,600 + ")
    assert "⚠ implementer-4: would tip into an automatic compaction (167,600 + " in notes[0]
    assert "implementer-3: would tip" not in notes[0]  # 121,700 and its message fit
    assert "implementer-4: held until its next compaction; Deliver (Ctrl+Shift+D) sends it then" in notes[0]
    inboxes = [e for e in entries[0] if e.startswith("inbox")]
    assert [e.split()[1] for e in inboxes] == ["implementer-1", "implementer-2", "implementer-3"]
    assert session_files(folder) == before
    controller.close()


def _edited_demo(tmp_path: Path) -> Path:
    folder = copy_session(None, tmp_path)  # the demo with its team linked
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n## Fit Check\n- one: more line\n", encoding="utf-8")
    return folder


def _inbox(tmp_path: Path, member: str) -> list[dict[str, object]]:
    (path,) = tmp_path.glob(f"project/.claude-demo/teams/*/inboxes/{member}.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def test_an_update_held_for_the_teammate_it_would_tip_waits_for_its_compaction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """implementer-4 (167,600 of 167,000) is held: its GC-v7 is written and recorded, the
    others are delivered; Deliver leaves it until its transcript shows a compaction, then
    delivers it."""
    folder = _edited_demo(tmp_path)
    before = len(_inbox(tmp_path, "implementer-4"))
    code, out, err = run_cli(capsys, "publish", str(folder), "--fit", "implementer-4=hold", "--deliver", "--json")
    assert code == 0, err
    rows = {r["role"]: r for r in json.loads(out)["recipients"]}
    assert (rows["implementer-4"]["delivered"], rows["implementer-4"]["reason"]) == (
        None,
        "held until its next compaction",
    )
    assert all(rows[r]["delivered"] is True for r in ("implementer-1", "implementer-2", "implementer-3"))
    assert len(_inbox(tmp_path, "implementer-4")) == before
    ledger = [json.loads(line) for line in (folder / "messages" / "ledger.jsonl").read_text().splitlines()]
    sent = [e for e in ledger if e.get("direction") == "sent" and e.get("to") == "implementer-4"][-1]
    assert (sent["gc_version"], sent["held"]) == (7, "compaction")
    assert (folder / sent["file"]).is_file()
    code, out, err = run_cli(capsys, "team", str(folder), "--json")
    row = next(r for r in json.loads(out)["teammates"] if r["role"] == "implementer-4")
    assert row["suggested"] == "held until its next compaction (it would have tipped it into one)"
    assert run_cli(capsys, "team", str(folder), "--deliver")[0] == 0
    assert len(_inbox(tmp_path, "implementer-4")) == before  # no compaction yet
    (transcript,) = tmp_path.glob("project/.claude-demo/projects/*/*000000000004.jsonl")
    compaction = {
        "type": "system",
        "subtype": "compact_boundary",
        "timestamp": "2099-01-01T00:00:00.000Z",
        "content": "Conversation compacted",
        "compactMetadata": {"trigger": "auto", "preTokens": 167_900, "postTokens": 12_000},
    }
    with transcript.open("a", encoding="utf-8") as f:
        f.write(json.dumps(compaction) + "\n")
    code, out, err = run_cli(capsys, "team", str(folder), "--deliver")
    assert code == 0, err
    delivered = _inbox(tmp_path, "implementer-4")
    assert len(delivered) == before + 1
    held = (folder / sent["file"]).read_text(encoding="utf-8").rstrip("\n")
    assert str(delivered[-1]["text"]).startswith(held + "\n\nReply to team-lead with SendMessage: [ACK-UPDATE] GC-v7")


def test_sections_only_sends_the_role_its_proposed_sections_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no subscriptions file, implementer-4 (FC-2) would get the whole GC and tips; its
    sections only are those the proposal gives it: the demo's GC names implementer-4 in Team,
    Task Decomposition, File Ownership Map and Phase 5 Validation Results, and every other
    section names no teammate, so all 13 plus the new one: the whole update, said so. For
    implementer-1 the proposal leaves out Phase 5 Validation Results (implementer-3 and -4's)."""
    from tests.conftest import role_full

    folder = _edited_demo(tmp_path)
    (folder / "subscriptions.yaml").unlink()
    code, out, err = run_cli(capsys, "publish", str(folder), "--fit", "implementer-4=sections", "--dry-run", "--json")
    assert code == 0, err
    preview = json.loads(out)["preview"]
    assert "implementer-4: its sections are every section of the GC; it is sent the whole update" in preview["skipped"]
    # implementer-1 lost its context too: its sections only, cut from the GC at its ## lines.
    plan = folder / "orchestration-plan.md"
    lost = "  implementer-4: CONTEXT_LOST"
    plan.write_text(
        plan.read_text(encoding="utf-8").replace(lost, lost + "\n  implementer-1: CONTEXT_LOST"), encoding="utf-8"
    )
    code, out, err = run_cli(capsys, "publish", str(folder), "--fit", "implementer-1=sections")
    assert code == 0, err
    (sent,) = (folder / "messages" / "outbox").glob("GC-v7-implementer-1-*.md")
    gc = (folder / "global-context.md").read_text(encoding="utf-8")
    titles = [line[3:] for line in gc.splitlines() if line.startswith("## ")]
    follows = [t for t in titles if t != "Phase 5 Validation Results"]
    assert sent.read_text(encoding="utf-8") == role_full(gc, "GC-v7", follows)
