"""Issue 13.2: merging the Lead's draft with an agent's change, section by section."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import DEMO, when_modal
from models.publish.merge import Conflict, merge_drafts
from ui.composer.merge_dialog import MergeReview
from ui.widgets import is_shown

BASE = (DEMO / "global-context.md").read_text(encoding="utf-8")
MINE = BASE.replace("## Open Questions\n", "## Open Questions\n- Q-9: mine\n")
THEIRS = BASE.replace("## Risks\n", "## Risks\n- R-9: theirs\n")


def test_each_side_keeps_its_own_changes() -> None:
    merged, conflicts = merge_drafts(BASE, MINE, THEIRS)
    assert conflicts == []
    assert merged == MINE.replace("## Risks\n", "## Risks\n- R-9: theirs\n")
    assert merge_drafts(BASE, BASE, THEIRS) == (THEIRS, [])
    assert merge_drafts(BASE, MINE, BASE) == (MINE, [])
    assert merge_drafts(BASE, MINE, MINE) == (MINE, [])


def test_a_section_both_changed_is_the_leads_choice() -> None:
    mine = BASE.replace("## Risks\n", "## Risks\n- R-8: mine\n")
    _, conflicts = merge_drafts(BASE, mine, THEIRS)
    assert [c.key for c in conflicts] == ["Risks"]
    assert isinstance(conflicts[0], Conflict) and "R-8: mine" in (conflicts[0].mine or "")
    assert "R-9: theirs" in (conflicts[0].theirs or "")
    assert merge_drafts(BASE, mine, THEIRS, {"Risks": "theirs"}) == (THEIRS, [])
    assert merge_drafts(BASE, mine, THEIRS, {"Risks": "mine"}) == (mine, [])


def test_sections_added_and_removed() -> None:
    added = MINE + "\n## Lead Notes\n- N-1: mine\n"
    removed = "".join(BASE.split("## Constraints\n", 1)[0]) + "## Phase 5" + BASE.split("## Phase 5", 1)[1]
    merged, conflicts = merge_drafts(BASE, added, removed)
    assert conflicts == []
    assert "## Lead Notes\n- N-1: mine\n" in merged and "## Constraints\n" not in merged and "Q-9: mine" in merged


def test_the_merge_button_takes_the_agents_change_into_the_draft(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    pane = controller.window.composer
    controller.window.central_tabs.setCurrentWidget(pane)
    gc_index = controller.window.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Open Questions")
    controller.window.sections_pane.gc_view.setCurrentIndex(gc_index)
    with qtbot.waitSignal(pane.changed, timeout=3000):
        pane.editor.setPlainText(pane.editor.toPlainText() + "- Q-9: mine\n")
    gc = demo_copy / "global-context.md"
    theirs = gc.read_text(encoding="utf-8").replace("## Risks\n", "## Risks\n- R-9: theirs\n")
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda p: "gc" in p):
        gc.write_text(theirs, encoding="utf-8")
    assert is_shown(pane.merge_button) and not pane.publish_button.isEnabled()
    shown: list[str] = []

    def review(dialog: MergeReview) -> None:  # the merge's review, up in its own loop: read, then taken
        shown.append(dialog.change.toPlainText())
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)

    when_modal(MergeReview, review)
    qtbot.mouseClick(pane.merge_button, Qt.MouseButton.LeftButton)
    (diff,) = shown  # Issue 42.10: Merge with disk… showed nothing of what it took
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert added == ["+- R-9: theirs"]
    working = pane.composer.working_text  # type: ignore[union-attr]
    assert "- R-9: theirs\n" in working and "- Q-9: mine\n" in working
    assert not is_shown(pane.merge_button) and pane.publish_button.isEnabled()
    assert "changed on disk" not in pane.banner.text()


def test_a_conflict_is_decided_in_the_dialog(qtbot: QtBot, controller: Controller, demo_copy: Path) -> None:
    pane = controller.window.composer
    controller.window.central_tabs.setCurrentWidget(pane)
    gc_index = controller.window.sections_pane.gc_model.find(lambda s: s is not None and s.title == "Risks")
    controller.window.sections_pane.gc_view.setCurrentIndex(gc_index)
    with qtbot.waitSignal(pane.changed, timeout=3000):
        pane.editor.setPlainText(pane.editor.toPlainText().replace("## Risks\n", "## Risks\n- R-8: mine\n"))
    gc = demo_copy / "global-context.md"
    theirs = gc.read_text(encoding="utf-8").replace("## Risks\n", "## Risks\n- R-9: theirs\n")
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000, check_params_cb=lambda p: "gc" in p):
        gc.write_text(theirs, encoding="utf-8")
    seen: list[list[str]] = []

    def choose(conflicts: list[Conflict]) -> dict[str, str]:
        seen.append([c.key for c in conflicts])
        return {"Risks": "theirs"}

    pane.disk_merge.choose_conflicts = choose  # type: ignore[method-assign]
    reviewed: list[str] = []
    pane.disk_merge.confirm_merge = lambda diff: reviewed.append(diff) is None  # type: ignore[method-assign]
    assert pane.disk_merge.run()
    assert "-- R-8: mine\n+- R-9: theirs\n" in reviewed[0]
    assert seen == [["Risks"]]
    assert pane.composer.working_text == theirs  # type: ignore[union-attr]


def test_a_gc_with_a_bom_is_not_taken_for_a_draft_and_follows_the_disk(demo_copy: Path) -> None:
    """A GC saved with a byte order mark is the disk's text until the Lead edits it here: an
    agent's edit on disk reaches the composer (it used to compare a hash of the draft's text
    with the file's bytes, which the mark never matched, so the draft never followed)."""
    from models.publish.composer import Composer
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    path = demo_copy / "global-context.md"
    text = path.read_text(encoding="utf-8")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    session = open_session(demo_copy, get_tokenizer("o200k_base"))
    composer = Composer.open(session)
    assert not composer.edited_in_app
    edited = text.replace("## Risks\n", "## Risks\n- budget: two engineers\n")
    path.write_bytes(b"\xef\xbb\xbf" + edited.encode("utf-8"))
    assert session.reload({"gc"}) == {"gc"}
    assert composer.follow_disk()
    assert composer.working_text == edited
    composer.working_text = edited + "- a line of the Lead's\n"
    assert composer.edited_in_app  # and a draft is still told apart


def test_a_session_without_a_gc_holds_no_draft_of_the_leads(qtbot: QtBot, tmp_path: Path) -> None:
    """dia-v5-optimization has no global-context.md (only phase-6/): nothing the Lead wrote
    waits in the composer, so closing the window asks nothing, and a GC an agent writes later
    is taken as it is. It used to count as an unpublished edit and ask before closing."""
    from PySide6.QtCore import QSettings

    from app.demo import copy_session
    from app.settings import AppSettings
    from conftest import REAL_SESSIONS

    folder = copy_session(REAL_SESSIONS / "dia-v5-optimization", tmp_path)
    assert not (folder / "global-context.md").exists()
    controller = Controller(AppSettings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    asked: list[bool] = []
    controller.window.confirm_discard = lambda: asked.append(True) or True  # type: ignore[method-assign]
    controller.window.show()
    assert controller.open(folder)
    composer = controller.window.composer.composer
    assert composer is not None and not composer.dirty
    gc = "# Global Context — GC-v1\n\n## Scope\n- phase 6 only\n"
    (folder / "global-context.md").write_text(gc, encoding="utf-8")
    assert composer.session.reload({"gc"}) == {"gc"}
    assert composer.follow_disk() and composer.working_text == gc
    controller.window.close()
    assert asked == []
    composer.working_text = gc + "- a line of the Lead's\n"
    assert composer.dirty  # and a draft is still told apart
    controller.close()
