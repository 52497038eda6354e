"""Issue 15.1/15.2 case by case: what a TEAM-MEMORY write keeps, refuses, and reports."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from app.memory_actions import SETTLE_MS
from models.memory import settle
from models.memory.edits import MemoryEditError, add_entry
from models.memory.journal import APP, MemoryJournal
from models.memory.loss import journal_loss, restore
from models.session.memory_parse import parse_memory

SMALL = "# TEAM-MEMORY\n\n## Lead\n- [Decision] one\n- [Decision] two\n- [Decision] three\n\n## implementer-1\n- [Finding] x\n"


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle, "SETTLE_S", 0.002)


SETTLED_MS = SETTLE_MS * 5


def test_an_empty_file_is_refused_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reproducer: an agent has truncated the file and not yet written it."""
    (tmp_path / "global-context.md").write_text("# GC\n", encoding="utf-8")
    (tmp_path / "TEAM-MEMORY.md").write_bytes(b"")
    assert main(["memory", "add", str(tmp_path), "--role", "Lead", "x"]) == 1
    err = capsys.readouterr().err
    assert "looks half-written (it is empty)" in err and err.count("\n") == 1
    assert (tmp_path / "TEAM-MEMORY.md").read_bytes() == b""


def test_a_bom_and_crlf_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_bytes(b"\xef\xbb\xbf" + SMALL.replace("\n", "\r\n").encode())
    add_entry(path, "Lead", "Decision", "four", timestamp="2026-11-23T00:00Z")
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# TEAM-MEMORY\r\n")
    assert b"- [Decision] 2026-11-23T00:00Z four\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_a_symlinked_file_stays_a_symlink(tmp_path: Path) -> None:
    """A TEAM-MEMORY.md linked to a file within the session is written through, and stays a link."""
    session = tmp_path / "session"
    real = session / "shared" / "TEAM-MEMORY.md"
    real.parent.mkdir(parents=True)
    real.write_text(SMALL, encoding="utf-8")
    link = session / "TEAM-MEMORY.md"
    link.symlink_to(real)
    add_entry(link, "Lead", "Decision", "four", timestamp="2026-11-23T00:00Z")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "four" in real.read_text(encoding="utf-8")


def test_a_link_out_of_the_session_is_never_written_through(tmp_path: Path) -> None:
    """Issue 45.2: no write through a link that leaves the session. A TEAM-MEMORY.md linked to a
    file elsewhere is refused in one line naming the link; that file and the link stay as they
    were."""
    real = tmp_path / "elsewhere" / "TEAM-MEMORY.md"
    real.parent.mkdir()
    real.write_text(SMALL, encoding="utf-8")
    session = tmp_path / "session"
    session.mkdir()
    link = session / "TEAM-MEMORY.md"
    link.symlink_to(real)
    with pytest.raises(
        MemoryEditError,
        match=r"^TEAM-MEMORY.md is a link to .*elsewhere/TEAM-MEMORY.md, outside the session; nothing was written$",
    ):
        add_entry(link, "Lead", "Decision", "four", timestamp="2026-11-23T00:00Z")
    assert real.read_text(encoding="utf-8") == SMALL
    assert link.is_symlink() and os.readlink(link) == str(real)


def test_sections_missing_since_the_last_read_are_refused_once(tmp_path: Path) -> None:
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_text(SMALL, encoding="utf-8")
    add_entry(path, "Lead", "Decision", "four", timestamp="2026-11-23T00:00Z")
    path.write_text(path.read_text(encoding="utf-8").split("## implementer-1")[0], encoding="utf-8")
    with pytest.raises(MemoryEditError, match=r"sections of the last read are missing: ## implementer-1"):
        add_entry(path, "Lead", "Decision", "five", timestamp="2026-11-23T00:00Z")
    add_entry(path, "Lead", "Decision", "five", timestamp="2026-11-23T00:00Z")  # reported; the Lead goes on
    assert "five" in path.read_text(encoding="utf-8")


def test_a_vanished_entry_is_reported_once_with_who_wrote_it(tmp_path: Path) -> None:
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_text(SMALL, encoding="utf-8")
    add_entry(path, "Lead", "Decision", "ours", timestamp="2026-11-23T00:00Z")
    stale = SMALL.replace("- [Decision] two\n", "")  # an agent's Write from an old copy
    path.write_text(stale, encoding="utf-8")
    journal = MemoryJournal(tmp_path)
    vanished = journal.observe(parse_memory(stale))
    assert sorted((v.seen.entry, v.seen.by) for v in vanished) == [
        ("- [Decision] 2026-11-23T00:00Z ours", APP),
        ("- [Decision] two", "the file"),
    ]
    assert journal.observe(parse_memory(stale)) == []
    assert MemoryJournal(tmp_path).observe(parse_memory(stale)) == []  # another process too
    # Restored in place: "two" after "one", ours at the end where it was.
    restore(path, journal_loss(vanished))
    lead = [
        e.text for e in next(s for s in parse_memory(path.read_text("utf-8")).sections if s.header == "Lead").entries
    ]
    assert lead == ["one", "two", "three", "2026-11-23T00:00Z ours"]


def test_a_journal_with_torn_lines_is_read_past_them(tmp_path: Path) -> None:
    """The journal is read in one call when every line is whole; a line torn by a crash, in
    the middle (another process appended after it) or at the end, costs that line only."""
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_text(SMALL, encoding="utf-8")
    MemoryJournal(tmp_path).observe(parse_memory(SMALL))
    journal_file = tmp_path / ".lead-console" / "memory-journal.jsonl"
    lines = journal_file.read_bytes().splitlines(keepends=True)
    assert len(lines) == 5  # four entries seen and the section list
    torn = lines[0] + lines[1][:20] + b"\n" + b"".join(lines[2:]) + lines[1][:10]
    journal_file.write_bytes(torn)
    stale = SMALL.replace("- [Decision] two\n", "").replace("- [Decision] one\n", "")
    vanished = MemoryJournal(tmp_path).observe(parse_memory(stale))
    # "one" (line 0) is still known and reported; "two" (the torn line) is not known any more.
    assert [v.seen.entry for v in vanished] == ["- [Decision] one"]


def test_memory_check_lists_lost_entries_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "TEAM-MEMORY.md"
    path.write_text(SMALL, encoding="utf-8")
    add_entry(path, "Lead", "Decision", "ours", timestamp="2026-11-23T00:00Z")
    path.write_text(SMALL, encoding="utf-8")
    journal = tmp_path / ".lead-console" / "memory-journal.jsonl"
    before = journal.read_bytes()
    assert main(["memory", "check", str(tmp_path), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(x["header"], x["entry"], x["by"]) for x in data["lost"]] == [
        ("Lead", "- [Decision] 2026-11-23T00:00Z ours", APP)
    ]
    assert any(
        p.startswith("entry lost: ## Lead: - [Decision] 2026-11-23T00:00Z ours (written by Lead Console")
        for p in data["problems"]
    )
    assert journal.read_bytes() == before


def test_the_window_reports_who_wrote_a_lost_entry_and_restores_it_in_place_after_a_preview(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    w, actions = controller.window, controller.window.memory_pane.memory_actions
    previews: list[str] = []
    actions.confirm = lambda title, diff: previews.append(diff) or True  # type: ignore[method-assign]
    memory = demo_copy / "TEAM-MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    lead = next(s for s in parse_memory(text).sections if s.header == "Lead")
    second = "".join(text.splitlines(keepends=True)[slice(*lead.span_of(lead.entries[1]))])
    wait = qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts)
    with wait:
        memory.write_text(text.replace(second, ""), encoding="utf-8")
    qtbot.waitUntil(lambda: w.memory_pane.loss_box.isVisibleTo(w), timeout=3000)  # judged once the file holds still
    assert "Lead: 1 entry vanished" in w.memory_pane.loss_label.text()
    assert "first seen in the file" in w.memory_pane.loss_label.text()
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        qtbot.mouseClick(w.memory_pane.restore_button, Qt.MouseButton.LeftButton)
    assert previews and "+" + second.rstrip("\n") in previews[-1]
    assert memory.read_text(encoding="utf-8") == text  # back where it stood, byte for byte
    qtbot.wait(SETTLED_MS)  # past the judgement of the last write
    assert not w.memory_pane.loss_box.isVisibleTo(w)


def test_separate_appends_to_several_sections_raise_no_warning(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """Three teammates each appending to their own section, seen as one change, is no loss."""
    w = controller.window
    memory = demo_copy / "TEAM-MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    for role in ("implementer-1", "implementer-2", "implementer-3"):
        text = re.sub(rf"(## {role}\n(?:.*\S.*\n)+)", rf"\1- [Finding] {role} adds one\n", text, count=1)
    with qtbot.waitSignal(w.viewUpdated, timeout=5000, check_params_cb=lambda parts: "memory" in parts):
        memory.write_text(text, encoding="utf-8")
    qtbot.wait(SETTLED_MS)  # past the judgement of the last write
    assert not w.memory_pane.loss_box.isVisibleTo(w)
