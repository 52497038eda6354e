"""Issue 47 (subscriptions) in the window: Session ▸ Subscriptions… (Ctrl+Shift+S) edits the
matrix with the keyboard, its write is reviewed, and the composer then sends implementer-2,
which follows Risks only, a version bump for an edit of Scope."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from models.session.subscriptions import parse_subscriptions
from tests.conftest import (
    DEMO,
    actions_done,
    activate,
    copy_session,
    session_files,
    settle_reviews,
    shown_controller,
    when_modal,
)
from ui.review_dialog import ReviewDialog
from ui.subscriptions_dialog import SubscriptionsDialog


def test_the_lead_limits_a_role_by_keyboard_and_its_next_update_is_a_bump(qtbot: QtBot, tmp_path: Path) -> None:
    controller = shown_controller(qtbot, tmp_path)
    controller.window.confirm_discard = lambda: True  # type: ignore[method-assign]  # the draft, at the end
    folder = copy_session(DEMO, tmp_path / "demo")
    (folder / "subscriptions.yaml").unlink()  # none yet, as in every real session: all follow all
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    activate(qtbot, controller.window)
    cleared: list[str] = []
    reviewed: list[str] = []

    def in_matrix(dialog: SubscriptionsDialog) -> None:
        model, table = dialog.model, dialog.table
        table.setFocus()
        for _ in range(model.roles.index("implementer-2")):
            qtbot.keyClick(table, Qt.Key.Key_Right)
        for row, section in enumerate(model.sections):
            if section != "Risks":
                qtbot.keyClick(table, Qt.Key.Key_Space)  # clears the check: every cell starts checked
                cleared.append(section)
            if row + 1 < len(model.sections):
                qtbot.keyClick(table, Qt.Key.Key_Down)
        when_modal(ReviewDialog, in_review)
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    def in_review(dialog: ReviewDialog) -> None:
        reviewed.append(dialog.change.toPlainText())
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    when_modal(SubscriptionsDialog, in_matrix)
    qtbot.keyClick(
        controller.window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    qtbot.waitUntil(lambda: bool(reviewed), timeout=10_000)
    actions_done(qtbot, controller)
    assert len(cleared) == 12  # the demo's GC has 13 top-level sections
    assert "+implementer-2:\n+  - Risks" in reviewed[0]
    subs = parse_subscriptions((folder / "subscriptions.yaml").read_text(encoding="utf-8"))
    assert {role: subs.follows(role) for role in ("implementer-1", "implementer-2", "implementer-4")} == {
        "implementer-1": None,
        "implementer-2": ("Risks",),
        "implementer-4": None,
    }

    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8").replace("under 50 ms", "under 40 ms"), encoding="utf-8")
    window = controller.window
    activate(qtbot, window)  # back from the dialogs
    qtbot.keyClick(window, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    pane = window.composer
    bar = pane.preview_tabs.tabBar()
    tab = next(i for i in range(bar.count()) if bar.tabText(i) == "Teammates")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(tab).center())
    model = pane.decisions_model

    def sends(role: str) -> str | None:
        found = [r for r in range(model.rowCount()) if model.index(r, 0).data() == role]
        return model.index(found[0], 1).data() if found else None

    qtbot.waitUntil(lambda: sends("implementer-2") == "bump", timeout=10_000)
    assert sends("implementer-1") == "delta"  # follows every section
    summary = pane.decisions_detail.toPlainText().splitlines()
    bump = next(line for line in summary if line.startswith("implementer-2: "))
    assert bump.startswith("implementer-2: bump · ")
    assert "it follows §Risks; not sent 1 item in §Scope" in bump
    controller.close()


def test_propose_fills_the_matrix_with_its_reasons_and_cancel_writes_nothing(qtbot: QtBot, tmp_path: Path) -> None:
    controller = shown_controller(qtbot, tmp_path)
    folder = copy_session(DEMO, tmp_path / "demo")
    (folder / "subscriptions.yaml").unlink()  # none yet: every cell starts checked
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    before = session_files(folder)
    seen: list[tuple[object, object]] = []

    def in_matrix(dialog: SubscriptionsDialog) -> None:
        qtbot.mouseClick(dialog.propose_button, Qt.MouseButton.LeftButton)
        model = dialog.model
        row = model.sections.index("Phase 5 Validation Results")
        for role in ("implementer-1", "implementer-3"):
            index = model.index(row, model.roles.index(role))
            seen.append((index.data(Qt.ItemDataRole.CheckStateRole), index.data(Qt.ItemDataRole.ToolTipRole)))
        qtbot.mouseClick(dialog.buttons_box.button(QDialogButtonBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)

    when_modal(SubscriptionsDialog, in_matrix)
    controller.window.menus.subscriptions_action.trigger()
    qtbot.waitUntil(lambda: len(seen) == 2)
    assert seen[0] == (Qt.CheckState.Unchecked, "implementer-1 does not follow §Phase 5 Validation Results")
    assert seen[1] == (
        Qt.CheckState.Checked,
        "implementer-3 follows §Phase 5 Validation Results\nProposed: names implementer-3",
    )
    actions_done(qtbot, controller)
    assert session_files(folder) == before
    controller.close()
