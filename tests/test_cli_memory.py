"""``lead-console memory archive|replace|prune|restore``: the memory pane's curation from the
command line.

Each must write exactly what the pane writes for the same action (the window is the other
reading: the same file, byte for byte, from two copies of a session), preview it as the pane
does with ``--dry-run`` and write nothing then, and say a failure in one line.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.memory_actions import MemoryActions
from conftest import (
    DEMO,
    SESSIONS,
    copy_session,
    run_cli,
    settle_reviews,
    shown_controller,
    snapshot_tree,
)
from models.memory.journal import MemoryJournal
from models.session.memory_parse import parse_memory

MEMORY = "TEAM-MEMORY.md"

# (the command's arguments after the folder, what the pane does for the same)
ACTIONS: list[tuple[list[str], Callable[[MemoryActions], bool]]] = [
    (["archive", "--phase", "5"], lambda a: a.archive_phase(5)),
    (["replace", "implementer-2"], lambda a: a.replace_teammate("implementer-2")),
    (["prune"], lambda a: a.prune()),
]


PHASE_5 = "- [Finding] Phase 5 replay of 14 months ran in 3 h on the staging copy\n"


def _copy(tmp_path: Path, name: str) -> Path:
    """The demo, with one entry that names phase 5 (the demo's entries name no phase)."""
    folder = tmp_path / name
    shutil.copytree(DEMO, folder)
    path = folder / MEMORY
    text = path.read_text(encoding="utf-8")
    anchor = "- [Dependency] Waiting on T-2 (posting engine) before T-5 can run end to end\n"
    path.write_text(text.replace(anchor, anchor + PHASE_5), encoding="utf-8")
    return folder


def _window(qtbot: QtBot, tmp_path: Path, folder: Path) -> Controller:
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    controller.window.memory_pane.memory_actions.confirm = lambda title, diff: True  # type: ignore[method-assign]
    return controller


@pytest.mark.parametrize(("args", "pane"), ACTIONS, ids=lambda v: v[0] if isinstance(v, list) else "")
def test_each_action_writes_what_the_memory_pane_writes(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], pane: Callable[..., bool]
) -> None:
    by_cli, by_window = _copy(tmp_path, "cli"), _copy(tmp_path, "window")
    before = snapshot_tree(by_cli)
    start = (by_cli / MEMORY).read_bytes()
    code, diff, err = run_cli(capsys, "memory", args[0], str(by_cli), *args[1:], "--dry-run")
    assert code == 0 and err == "" and diff.startswith(f"--- {MEMORY}\n+++ after\n")
    assert snapshot_tree(by_cli) == before  # a dry run writes nothing
    code, out, err = run_cli(capsys, "memory", args[0], str(by_cli), *args[1:])
    assert code == 0 and out == "" and err.startswith(f"{args[0]} ") and "written to" in err
    controller = _window(qtbot, tmp_path, by_window)
    try:
        assert pane(controller.window.memory_pane.memory_actions)
        assert controller.window.memory_pane.memory_actions.last_preview == diff  # the pane previewed the same change
    finally:
        controller.window.context_pane.wait()
        controller.close()
    written = (by_cli / MEMORY).read_bytes()
    assert written == (by_window / MEMORY).read_bytes()
    assert written != start  # the action changed something


def test_what_each_action_does_to_the_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Read off the demo's TEAM-MEMORY by hand: two entries are [ARCHIVED] (Lead's and
    researcher-1's first); implementer-2 holds three entries; only the entry added here names
    phase 5."""
    folder = _copy(tmp_path, "demo")
    path = folder / MEMORY
    assert run_cli(capsys, "memory", "archive", str(folder), "--phase", "5")[0] == 0
    archived = [
        e.text for s in parse_memory(path.read_text(encoding="utf-8")).sections for e in s.entries if e.archived
    ]
    assert len(archived) == 3 and sum("Phase 5 replay" in text for text in archived) == 1
    assert run_cli(capsys, "memory", "prune", str(folder))[0] == 0
    memory = parse_memory(path.read_text(encoding="utf-8"))
    assert sum(e.archived for s in memory.sections for e in s.entries) == 0
    assert (
        sum(len(s.entries) for s in memory.sections)
        == sum(len(s.entries) for s in parse_memory((DEMO / MEMORY).read_text(encoding="utf-8")).sections) - 2
    )
    assert run_cli(capsys, "memory", "replace", str(folder), "implementer-2")[0] == 0
    sections = [(s.header, s.replaced, len(s.entries)) for s in parse_memory(path.read_text(encoding="utf-8")).sections]
    assert ("[REPLACED] implementer-2", True, 3) in sections and ("implementer-2", False, 0) in sections
    code, _, err = run_cli(capsys, "memory", "replace", str(folder), "nobody")
    assert code == 1 and err == "lead-console: no section for nobody\n"
    code, _, err = run_cli(capsys, "memory", "archive", str(folder), "--phase", "99")
    assert code == 0 and "nothing to change" in err


def test_restore_puts_back_what_an_outside_write_took(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The app's journal saw the file; an agent's stale write dropped two entries of another
    section; ``memory check`` names them lost and ``restore`` puts them back where they stood."""
    folder = _copy(tmp_path, "demo")
    path = folder / MEMORY
    original = path.read_text(encoding="utf-8")
    MemoryJournal(folder).observe(parse_memory(original), report=False)
    dropped = [
        line
        for line in original.splitlines(keepends=True)
        if line.startswith(("- [Finding] Adyen batch", "- [Finding] Snapshot every 1,000"))
    ]
    assert len(dropped) == 2
    path.write_text("".join(line for line in original.splitlines(keepends=True) if line not in dropped), "utf-8")
    code, out, _ = run_cli(capsys, "memory", "check", str(folder))
    assert code == 1 and "Adyen batch" in out and "Snapshot every 1,000" in out
    code, _, err = run_cli(capsys, "memory", "restore", str(folder))
    assert code == 0 and "written to" in err
    assert path.read_text(encoding="utf-8") == original
    code, _, err = run_cli(capsys, "memory", "restore", str(folder))
    assert code == 0 and "nothing to change" in err


@pytest.mark.parametrize(("lines", "over"), [(500, False), (501, True)])
def test_the_line_limit_is_passed_past_500_lines_not_at(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], lines: int, over: bool
) -> None:
    """ADR-001 §5 rule 4 (seed 002: "파일 500줄 초과 시", when the file exceeds 500 lines): the
    demo's 43 lines padded with entries to ``lines``, as ``wc -l`` counts them."""
    folder = demo_copy
    path = folder / MEMORY
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == 43 and text.endswith("\n")
    path.write_text(text + "".join(f"- [Finding] padding {n}\n" for n in range(lines - 43)), encoding="utf-8")
    assert parse_memory(path.read_text(encoding="utf-8")).over_limit is over
    code, out, _ = run_cli(capsys, "memory", "check", str(folder))
    assert (f"{lines} lines, over 500" in out) is over
    assert code == (1 if over else 0)


def test_a_missing_or_unreadable_file_is_said_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(tmp_path, "demo")
    (folder / MEMORY).unlink()
    (folder / MEMORY).mkdir()
    for args in (["prune"], ["archive", "--phase", "6"], ["replace", "implementer-2"], ["restore"]):
        code, out, err = run_cli(capsys, "memory", args[0], str(folder), *args[1:])
        assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("lead-console: "), args


def test_archive_by_entry_writes_what_archive_selected_writes(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--entry`` pieces of text pick out the entries the pane's list would have selected:
    researcher-1's Adyen finding and implementer-1's BIGINT decision (read off the demo)."""
    by_cli, by_window = _copy(tmp_path, "cli"), _copy(tmp_path, "window")
    args = ["memory", "archive", str(by_cli), "--entry", "Adyen batch", "--entry", "BIGINT everywhere"]
    code, _, err = run_cli(capsys, *args)
    assert code == 0 and err.startswith("archive 2 entries: written to")
    controller = _window(qtbot, tmp_path, by_window)
    try:
        memory = parse_memory((by_window / MEMORY).read_text(encoding="utf-8"))
        chosen = [
            (s.header, e)
            for s in memory.sections
            for e in s.entries
            if e.text.startswith(("Adyen batch", "`amount_minor` is BIGINT"))
        ]
        assert [h for h, _ in chosen] == ["researcher-1", "implementer-1"]
        assert controller.window.memory_pane.memory_actions.archive(chosen)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    assert (by_cli / MEMORY).read_bytes() == (by_window / MEMORY).read_bytes()
    before = (by_cli / MEMORY).read_bytes()
    code, _, err = run_cli(capsys, "memory", "archive", str(by_cli), "--entry", "the")  # in many entries
    assert code == 1 and err.startswith("lead-console: ") and "entries hold 'the': give a piece of one" in err
    code, _, err = run_cli(capsys, "memory", "archive", str(by_cli), "--entry", "Adyen batch")  # archived now
    assert code == 1 and err == (
        "lead-console: no entry not archived yet holds 'Adyen batch': give a piece of one entry's text\n"
    )
    assert (by_cli / MEMORY).read_bytes() == before
    assert run_cli(capsys, "memory", "archive", str(by_cli))[0] == 2  # neither --phase nor --entry


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_memory_add_writes_what_the_panes_add_writes(
    qtbot: QtBot, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, source: Path
) -> None:
    """Add… from the memory pane and ``memory add`` on every real session: a Lead entry, one
    into the first teammate's section (relayed or direct, as its role says), and one for a role
    with no section yet; a session with no TEAM-MEMORY.md gets one from the skeleton first. The
    same file after each, byte for byte; the clock both read is fixed (Lead entries carry it)."""
    import app.cli.memory_cmds as cli_module
    import app.memory_actions as actions_module
    import models.memory.edits as edits_module

    for module in (edits_module, actions_module, cli_module):
        monkeypatch.setattr(module, "utc_now_minutes", lambda: "2026-11-24T07:00Z")
    by_cli, by_window = copy_session(source, tmp_path / "cli"), copy_session(source, tmp_path / "window")
    controller = _window(qtbot, tmp_path, by_window)
    actions = controller.window.memory_pane.memory_actions
    session = controller.live.session  # type: ignore[union-attr]
    roles = [m.role for m in session.teammates()]
    steps = [("Lead", "Decision", "adopted by Lead Console"), ("devils-advocate-7", "Warning", "a new section")]
    if roles:
        steps.insert(1, (roles[0], "Finding", "relayed from the Lead"))
    try:
        for role, tag, text in steps:
            code, _out, err = run_cli(capsys, "memory", "add", str(by_cli), "--role", role, "--tag", tag, text)
            assert code == 0, err
            path = by_window / MEMORY
            if path.is_file():
                assert actions.add_entry(role, tag, text)
            else:
                assert actions.create_with(session, role, tag, text)
            qtbot.waitUntil(lambda p=path: p.is_file(), timeout=5000)
            assert (by_window / MEMORY).read_bytes() == (by_cli / MEMORY).read_bytes(), (role, err)
    finally:
        controller.window.context_pane.wait()
        controller.close()
    # ADR-001 IP-010: a devils-advocate's section is written by the Lead, stamped and marked
    written = (by_cli / MEMORY).read_text(encoding="utf-8")
    assert "\n## devils-advocate-7\n- [Warning] 2026-11-24T07:00Z (relayed by Lead) a new section\n" in written
