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
    from PySide6.QtWidgets import QDialogButtonBox
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

    def answer(dialog: ReviewDialog) -> None:
        notes.append(dialog.notes.text())
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)

    when_modal(ReviewDialog, answer)
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(notes))  # its preview is worked out off the GUI thread
    assert "⚠ implementer-4: would tip into an automatic compaction (167,600 + " in notes[0]
    assert "implementer-3: would tip" not in notes[0]  # 121,700 and its message fit
    assert session_files(folder) == before
    controller.close()
