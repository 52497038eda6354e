"""An action killed half-way is found and taken back (issue 45: after SIGKILL at most write
steps of a publish, the GC still said GC-v6 while gc-history, the outbox, the plan and
TEAM-MEMORY's Meta said GC-v7; nothing reported it, and a retry said "nothing to publish").

Each case runs ``lead-console publish`` in a process of its own that dies (``os._exit``, as a
kill leaves it: no cleanup runs) at one of its file writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DEMO, ROOT, copy_session, run_cli

SCRIPT = textwrap.dedent(
    """
    import os, sys
    import models.text.transaction as transaction
    real, calls, die_at = transaction.atomic_write, [0], int(sys.argv[2])
    def dying(path, data, expected):
        calls[0] += 1
        if calls[0] == die_at:
            os._exit(9)
        return real(path, data, expected)
    transaction.atomic_write = dying
    from app.cli.main import main
    sys.exit(main(["publish", sys.argv[1]]))
    """
)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".lead-console" not in p.parts
    }


@pytest.mark.parametrize("die_at", [1, 4, 7])
def test_a_publish_killed_at_a_write_is_reported_and_the_next_command_takes_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], die_at: int
) -> None:
    folder = copy_session(DEMO, tmp_path)
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n- Interrupted: a line the Lead added\n", encoding="utf-8")
    before = _files(folder)
    killed = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), str(die_at)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == 9, killed.stderr
    assert _files(folder) != before or die_at == 1  # the first write died before it landed

    # A dry run writes nothing: it says the publish was cut short, and refuses.
    code, out, _ = run_cli(capsys, "publish", str(folder), "--dry-run")
    assert "'Publish GC-v7 to 4 teammates' was cut short" in out and "the next command" in out

    code, out, err = run_cli(capsys, "inspect", str(folder))
    assert code == 0
    assert err.startswith("lead-console: 'Publish GC-v7 to 4 teammates' was cut short (started ")
    assert "; taken back: " in err and "Warnings" not in out
    assert _files(folder) == before  # every file as it was before the publish began
    assert not (folder / ".lead-console" / "action-in-progress.json").exists()

    code, out, err = run_cli(capsys, "publish", str(folder))
    assert code == 0 and out.startswith("Published GC-v7 to 4 teammates") and err == ""
    ledger = (folder / "messages" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    assert len([line for line in ledger if '"gc_version": 7' in line]) == 4  # once to each, not twice


def test_the_next_publish_takes_back_a_killed_one_then_publishes_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_session(DEMO, tmp_path)
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n- Interrupted: a line the Lead added\n", encoding="utf-8")
    killed = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), "5"], cwd=ROOT, capture_output=True, timeout=120
    )
    assert killed.returncode == 9
    code, out, err = run_cli(capsys, "publish", str(folder))
    assert code == 0 and "was cut short" in err and out.startswith("Published GC-v7 to 4 teammates")
    assert sorted(p.name for p in (folder / "gc-history").iterdir())[-2:] == ["GC-v6.md", "GC-v7.md"]
    assert not (folder / "gc-history" / "GC-v8.md").exists()  # published once: v7, not v7 then v8


def test_a_record_that_cannot_be_read_keeps_every_action_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fail closed: a damaged record says an action was cut short, and repair guesses nothing."""
    folder = copy_session(DEMO, tmp_path)
    record = folder / ".lead-console" / "action-in-progress.json"
    record.parent.mkdir()
    record.write_bytes(b'{"title": "Publish GC-v7", "wri')  # torn
    code, _out, _ = run_cli(capsys, "baseline", str(folder))
    assert code == 1
    code, _, err = run_cli(capsys, "repair", str(folder))
    assert code == 1 and "action-in-progress.json cannot be read; look at it, then remove it" in err
    assert record.exists()


def test_opening_the_session_in_the_window_takes_a_cut_short_action_back(qtbot: object, tmp_path: Path) -> None:
    from pytestqt.qtbot import QtBot

    from conftest import settle_reviews, shown_controller

    assert isinstance(qtbot, QtBot)
    folder = copy_session(DEMO, tmp_path)
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n- Interrupted: a line the Lead added\n", encoding="utf-8")
    before = _files(folder)
    killed = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), "4"], cwd=ROOT, capture_output=True, timeout=120
    )
    assert killed.returncode == 9
    assert _files(folder) != before
    controller = shown_controller(qtbot, tmp_path)
    assert controller.open(folder)
    settle_reviews(qtbot, controller)
    said = controller.window.statusBar().currentMessage()
    assert said.startswith("'Publish GC-v7 to 4 teammates' was cut short (started ")
    assert said.endswith("; taken back: 3 files undone, 6 untouched")
    assert _files(folder) == before
    pane = controller.window.composer
    assert "cut short" not in pane.banner.text()
    assert "- Interrupted: a line the Lead added" in pane.composer.working_text  # what the Lead wrote stays


def test_a_record_of_an_action_under_way_elsewhere_is_no_cut_short_one(tmp_path: Path) -> None:
    """Another process writing an action holds the lock: its record is not taken for a killed
    action's (and nothing of it is undone) until it lets go."""
    from models.text.intent import holding_action_lock, read_interrupted

    folder = copy_session(DEMO, tmp_path)
    record = folder / ".lead-console" / "action-in-progress.json"
    record.parent.mkdir()
    record.write_text('{"title": "Publish GC-v7", "started": "2026-11-29T10:00:00Z", "writes": []}', encoding="utf-8")
    with holding_action_lock(folder):
        assert read_interrupted(folder) is None
    found = read_interrupted(folder)
    assert found is not None and found.title == "Publish GC-v7"


def test_repair_removes_the_temp_files_killed_writes_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 45.6: killed runs left ``.lc-tmp-`` files that nothing cleaned up. A write under way
    (a fresh temp file) is left alone; an agent's own temp file is not ours."""
    import os
    import time

    folder = copy_session(DEMO, tmp_path)
    old = folder / ".orchestration-plan.md.lc-tmp-4242-deadbeef"
    old.write_text("half a plan", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    fresh = folder / "messages" / ".ledger.jsonl.lc-tmp-4243-cafebabe"
    fresh.parent.mkdir()
    fresh.write_text("a write under way", encoding="utf-8")
    theirs = folder / "global-context.md.tmp.33393.1777"
    theirs.write_text("an agent's", encoding="utf-8")
    os.utime(theirs, (an_hour_ago, an_hour_ago))
    code, out, _ = run_cli(capsys, "repair", str(folder))
    assert code == 0
    assert out == ".orchestration-plan.md.lc-tmp-4242-deadbeef: removed (a killed write's temp file)\n"
    assert not old.exists() and fresh.exists() and theirs.exists()
