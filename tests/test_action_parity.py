"""One preview, whoever asks: the window's Publish review and ``lead-console publish --dry-run``
(on every real session: ``tests/test_cli_publish_parity.py``), and what a commit writes.

Both go through ``models.actions``; these tests hold the inputs each gathers to one reading too. The case that drifted before: a NEED_CLARIFICATION reply in a linked Claude Code team's
lead inbox (never in the session's own inbox). ADR-002 §6 says that teammate gets the full GC
(FC-5); the window said so, while ``plan`` and ``publish --dry-run`` sent it a delta.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_team_steps import make_team
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

import models.publish.publishing as publishing
from conftest import (
    DEMO,
    REAL_SESSIONS,
    SESSIONS,
    actions_done,
    copy_session,
    edited_copy,
    run_cli,
    settle_reviews,
    shown_controller,
)

NOW = "2026-11-24T06:30:00Z"
ASKS_FULL = "[ACK-UPDATE] GC-v6 received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n"


def _window_review(qtbot: QtBot, tmp_path: Path, folder: Path) -> str | None:
    """The review the window shows when the Lead clicks Publish (answered Cancel), or None
    when the button is disabled."""
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    pane = controller.window.composer
    controller.window.central_tabs.setCurrentWidget(pane)
    shown: list[str] = []

    def cancel(box: QMessageBox) -> QMessageBox.StandardButton:
        shown.append(box.detailedText())
        return QMessageBox.StandardButton.Cancel

    pane.confirm = cancel  # type: ignore[method-assign]
    if not pane.publish_button.isEnabled():
        return None
    qtbot.mouseClick(pane.publish_button, Qt.MouseButton.LeftButton)
    actions_done(qtbot, controller)
    assert len(shown) == 1
    return shown[0]


def test_a_clarification_asked_in_the_linked_teams_inbox_gets_the_full_gc_everywhere(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publishing, "utc_now", lambda: NOW)
    folder = edited_copy(DEMO, tmp_path / "project")
    team = make_team(tmp_path / "claude")
    reply = {"from": "implementer-2", "text": ASKS_FULL, "timestamp": "2026-11-24T06:00:00.000Z", "read": False}
    (team / "inboxes" / "team-lead.json").write_text(json.dumps([reply]), encoding="utf-8")
    assert run_cli(capsys, "team", str(folder), "--team", str(team), "--json")[0] == 0  # links the session

    code, out, _ = run_cli(capsys, "plan", str(folder), "--new", str(folder / "global-context.md"), "--json")
    assert code == 0
    planned = {d["role"]: d for d in json.loads(out)["teammates"]}
    code, out, _ = run_cli(capsys, "publish", str(folder), "--dry-run", "--json")
    assert code == 0
    previewed = {d["role"]: d for d in json.loads(out)["preview"]["decisions"]}
    for decisions in (planned, previewed):
        asked = decisions["implementer-2"]
        assert asked["mode"] == "full"
        codes = [c["code"] if isinstance(c, dict) else c.split(":")[0] for c in asked["conditions"]]
        assert "FC-5" in codes, asked
        assert decisions["implementer-1"]["mode"] == "delta"  # one version behind, asked nothing

    code, text_out, _ = run_cli(capsys, "publish", str(folder), "--dry-run")
    review = _window_review(qtbot, tmp_path, folder)
    assert review is not None and review in text_out
    assert "implementer-2: full (FC-5:" in review
    inboxes = team / "inboxes"
    modes = {"implementer-1": "delta", "implementer-2": "full", "implementer-3": "full", "implementer-4": "full"}
    for member, mode in modes.items():  # make_team's members
        inbox = inboxes / (member + ".json")
        assert (
            f"deliver {member}'s CONTEXT-UPDATE GC-v7 ({mode}) into {member}'s inbox ({inbox}) as lead-console"
            in review
        )
    reply = "Reply to team-lead with SendMessage: [ACK-UPDATE] GC-v7 (applied/total, impact, action, unclear items)."
    assert f"each delivered message ends: {reply}" in review


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_publishing_writes_byte_for_byte_what_its_dry_run_showed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, source: Path
) -> None:
    monkeypatch.setattr(publishing, "utc_now", lambda: NOW)
    folder = edited_copy(source, tmp_path / "project")
    code, out, _ = run_cli(capsys, "publish", str(folder), "--dry-run", "--json")
    if code == 2:  # dia-v5-optimization: no GC, nothing to publish
        assert not (folder / "global-context.md").exists()
        return
    preview = json.loads(out)["preview"]
    writes = preview["writes"]
    ledger = folder / "messages" / "ledger.jsonl"
    before = ledger.read_bytes() if ledger.exists() else b""
    assert run_cli(capsys, "publish", str(folder))[0] == 0
    for write in writes:
        data = (folder / write["path"]).read_bytes()
        expected = write["text"].encode("utf-8")
        if write["kind"] == "append":
            assert data == before + expected
        else:
            assert data.removeprefix(b"\xef\xbb\xbf") == expected, write["path"]
    paths = {w["path"] for w in writes}
    assert {"global-context.md", "orchestration-plan.md"} <= paths
    recipients = [d for d in preview["decisions"] if d["mode"] in ("delta", "full")]
    assert ("messages/ledger.jsonl" in paths) == bool(recipients)  # a team all shut down is sent nothing


def test_a_file_changed_between_prepare_and_commit_refuses_the_whole_action(tmp_path: Path) -> None:
    """An agent edits the plan after the Lead's review: nothing of the publish is written."""
    from models.actions.commit import commit
    from models.actions.publish import prepare_publish
    from models.publish.composer import Composer
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer
    from models.text.transaction import WriteRefused

    folder = edited_copy(DEMO, tmp_path / "project")
    composer = Composer.open(open_session(folder, get_tokenizer("estimate")))
    preview = prepare_publish(composer, now=NOW)
    assert len(preview.writes) > 5 and not preview.blocked
    plan = folder / "orchestration-plan.md"
    plan.write_text(plan.read_text(encoding="utf-8") + "\n- an agent's line\n", encoding="utf-8")
    tree = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(WriteRefused, match=r"^orchestration-plan\.md changed on disk since the preview$"):
        commit(preview)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == tree


def test_a_baseline_writes_what_its_dry_run_showed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ch006 as its files say: GC-v2, and architect-1 at GC-v2 in the plan's table."""
    folder = copy_session(REAL_SESSIONS / "ch006-dia-v4", tmp_path / "project")
    code, out, _ = run_cli(capsys, "baseline", str(folder), "--dry-run", "--json")
    assert code == 0
    shown = json.loads(out)
    assert [(w["path"], w["kind"]) for w in shown["writes"]] == [
        ("gc-history/GC-v2.md", "create"),
        ("orchestration-plan.md", "replace"),
    ]
    assert not (folder / "gc-history").exists()  # a dry run writes nothing
    code, out, _ = run_cli(capsys, "baseline", str(folder), "--json")
    assert code == 0 and json.loads(out)["written"] == ["gc-history/GC-v2.md", "orchestration-plan.md"]
    for write in shown["writes"]:
        assert (folder / write["path"]).read_text(encoding="utf-8") == write["text"]
    assert "architect-1: 2" in (folder / "orchestration-plan.md").read_text(encoding="utf-8")
