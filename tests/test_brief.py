"""Issue 47 (replacement pack): a spawn brief for a teammate that replaces another, written
out by hand from the demo's files: its GC sections (subscriptions.yaml), its TEAM-MEMORY and
the Lead's entries (TEAM-MEMORY.md), its row of the plan's Phase 6 table; then its ACK
confirms it at the version it started at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from models.text.tokens import get_tokenizer
from tests.conftest import DEMO, REAL_SESSIONS, copy_session, demo_follows, role_full, run_cli

LEAD = """## Lead
- [Decision] 2026-11-21T09:05Z Implementers own disjoint folders (File Ownership Map); cross-folder changes go through the Lead
- [Warning] 2026-11-21T13:55Z Interface contracts are frozen (GC-v5); any change needs a GC version bump and a [CONTEXT-UPDATE]
- [Question] 2026-11-21T14:00Z Legal has not answered Q-2 (webhook body retention); keep 30 days until they do"""


def _front(folder: Path) -> dict[str, object]:
    text = (folder / "orchestration-plan.md").read_text(encoding="utf-8")
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def test_a_replacement_is_briefed_with_its_sections_memory_and_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """implementer-5 takes over implementer-3's work (projection + API, T-5, T-6, T-9)."""
    folder = copy_session(DEMO, tmp_path)
    code, out, err = run_cli(capsys, "brief", str(folder), "implementer-5", "--takes-over", "implementer-3")
    assert code == 0, err
    gc = (folder / "global-context.md").read_text(encoding="utf-8")
    follows = demo_follows("implementer-3")
    assert follows is not None
    sections = role_full(gc, "GC-v6", follows).split("\n\n", 1)[1]
    expected = (
        "[CONTEXT-UPDATE] GC-v6 (full injection: spawn brief for implementer-5, the sections you follow)\n\n"
        "You are implementer-5, taking over from implementer-3, starting at GC-v6. Read the global context, "
        "your TEAM-MEMORY and your open items below, then reply to the Lead: [ACK-UPDATE] GC-v6 received "
        "(applied/total, impact, action, unclear items).\n\n"
        f"{sections}\n"
        "# TEAM-MEMORY: implementer-3 and the Lead\n\n"
        f"{LEAD}\n\n"
        "## implementer-3\n"
        "- [Finding] Snapshot every 1,000 postings keeps cold reads at 38 ms p99 on the staging copy\n"
        "- [Question] Should `GetBalance(as_of=…)` older than 90 days be allowed? Replays are slow beyond that\n"
        "- [Dependency] Waiting on T-2 (posting engine) before T-5 can run end to end\n\n"
        "# Open items of implementer-3 (orchestration-plan.md)\n\n"
        "- role: projection + API; tasks: T-5, T-6, T-9; status: IN_PROGRESS\n"
    )
    assert out == expected
    (path,) = (folder / "messages" / "outbox").glob("GC-v6-implementer-5-spawn-*.md")
    assert path.read_text(encoding="utf-8") == expected
    front = _front(folder)
    last = front["teammate_gc_last_delta"]
    assert isinstance(last, dict) and last["implementer-5"]["sent_version"] == 6
    assert last["implementer-5"]["delta_size"] == get_tokenizer("o200k_base").count(expected)
    assert front["teammate_status"] == {"implementer-4": "CONTEXT_LOST", "implementer-5": "ACTIVE"}
    ledger = [json.loads(line) for line in (folder / "messages" / "ledger.jsonl").read_text().splitlines()]
    assert (ledger[-1]["to"], ledger[-1]["mode"], ledger[-1]["gc_version"]) == ("implementer-5", "full", 6)

    # The new teammate is due to confirm GC-v6; its ACK does.
    code, out, err = run_cli(capsys, "teammate", str(folder), "implementer-5", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["receives_updates"] is True
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-5-ack.md").write_text(
        "[ACK-UPDATE] GC-v6 received.\n- Delta items applied: 0/0\n- Impact on my work: NONE\n"
        "- Action taken: CONTINUE\n- Unclear items: none\n",
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "inbox", str(folder), "--json")
    (row,) = [m for m in json.loads(out)["messages"] if m["from"] == "implementer-5"]
    assert row["lead_action"] == "confirm"
    assert run_cli(capsys, "inbox", str(folder), "--carry-out", row["id"])[0] == 0
    versions = _front(folder)["teammate_gc_versions"]
    assert isinstance(versions, dict) and versions["implementer-5"] == 6


def test_a_teammate_replaced_under_its_own_name_gets_both_its_sections_of_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """implementer-4 was replaced under its name: the [REPLACED] section's lines and the new
    one's, with the Lead's; --dry-run writes nothing and names the three files."""
    folder = copy_session(DEMO, tmp_path)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    code, out, err = run_cli(capsys, "brief", str(folder), "implementer-4", "--dry-run")
    assert code == 0, err
    assert "create  messages/outbox/GC-v6-implementer-4-spawn-" in out
    assert "replace orchestration-plan.md" in out and "append  messages/ledger.jsonl" in out
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    code, out, err = run_cli(capsys, "brief", str(folder), "implementer-4")
    assert code == 0, err
    assert out.endswith(
        f"{LEAD}\n\n"
        "## [REPLACED] implementer-4\n"
        "- [Finding] `balances_v1.updated_at` has second resolution; several rows share a timestamp\n"
        "- [Warning] Context lost after compact at 2026-11-21T13:40Z; replaced by a fresh implementer-4\n\n"
        "## implementer-4\n"
        "- [Pattern] Replay orders v1 rows by (updated_at, id) — COND-2 from Gate 5\n"
        "- [Conflict] migrate/replay_v1.py needs `LedgerAccount` from implementer-1's rename; imports updated\n\n"
        "# Open items of implementer-4 (orchestration-plan.md)\n\n"
        "- role: migration + reconciliation; tasks: T-7, T-8; status: IN_PROGRESS\n"
    )
    assert _front(folder)["teammate_status"] == {"implementer-4": "CONTEXT_LOST"}  # receiving already


@pytest.mark.parametrize("source", sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_every_real_session_briefs_its_first_teammate_or_says_why_not(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real session's first teammate, by a new name: the whole GC (no subscriptions file) and
    whatever its TEAM-MEMORY and plan say of it; a session without a GC says so in one line."""
    folder = copy_session(source, tmp_path)
    code, out, err = run_cli(capsys, "teammate", str(folder), "--json")
    first = json.loads(out)[0]["role"]
    code, out, err = run_cli(capsys, "brief", str(folder), "newcomer-1", "--takes-over", first, "--dry-run")
    gc = folder / "global-context.md"
    if not gc.is_file():
        assert code == 2 and err.count("\n") == 1 and "no global-context.md" in err
        return
    assert code == 0, err
    assert "messages/outbox/GC-v" in out and "newcomer-1" in out


def test_the_window_briefs_a_replacement_from_the_teammate_menu(qtbot: object, tmp_path: Path) -> None:
    """The teammate table's menu, opened with the Menu key on implementer-3's row: Spawn brief…,
    the new teammate's name typed, the review's OK; the brief is written as the CLI writes it
    and put on the clipboard."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QContextMenuEvent, QGuiApplication
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QInputDialog, QLineEdit, QMenu
    from pytestqt.qtbot import QtBot

    from tests.conftest import actions_done, activate, settle_reviews, shown_controller, when_modal
    from ui.review_dialog import ReviewDialog

    assert isinstance(qtbot, QtBot)
    controller = shown_controller(qtbot, tmp_path)
    folder = copy_session(DEMO, tmp_path / "demo")
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    activate(qtbot, controller.window)
    view = controller.window.teammates_pane.teammate_view
    model = view.model()
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "implementer-3")
    view.setFocus()
    view.setCurrentIndex(model.index(row, 0))
    asked: list[str] = []

    def pick_in_menu() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(10, pick_in_menu)
            return
        action = next(a for a in menu.actions() if a.text().startswith("Spawn brief"))
        menu.setActiveAction(action)
        when_modal(QInputDialog, name_it)
        qtbot.keyClick(menu, Qt.Key.Key_Return)

    def name_it(dialog: QInputDialog) -> None:
        asked.append(dialog.textValue())
        edit = dialog.findChild(QLineEdit)
        edit.selectAll()
        qtbot.keyClicks(edit, "implementer-5")
        when_modal(ReviewDialog, accept)
        qtbot.keyClick(edit, Qt.Key.Key_Return)

    def accept(dialog: ReviewDialog) -> None:
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    QGuiApplication.clipboard().setText("before")
    QTimer.singleShot(0, pick_in_menu)
    # The Menu key, as the platform turns it into the row's context menu (a key sent straight
    # to the widget does not open it).
    at = view.visualRect(model.index(row, 0)).center()
    QApplication.sendEvent(
        view.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, view.viewport().mapToGlobal(at))
    )
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() != "before", timeout=10_000)
    actions_done(qtbot, controller)
    assert asked == ["implementer-3"]  # the same name offered first
    (path,) = (folder / "messages" / "outbox").glob("GC-v6-implementer-5-spawn-*.md")
    text = path.read_text(encoding="utf-8")
    assert QGuiApplication.clipboard().text() == text
    assert text.startswith("[CONTEXT-UPDATE] GC-v6 (full injection: spawn brief for implementer-5, the sections")
    assert "You are implementer-5, taking over from implementer-3, starting at GC-v6." in text
    assert text.endswith("- role: projection + API; tasks: T-5, T-6, T-9; status: IN_PROGRESS\n")
    controller.close()
