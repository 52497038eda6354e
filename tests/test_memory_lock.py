"""Issue 42.10 and 45.2: TEAM-MEMORY's writers take their lock in the app's own folder, so that
no lock file is left beside the Lead's files after a write (or a quit), and a link in the lock's
place is refused in one line instead of creating the file it points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli


def test_an_entry_added_leaves_no_file_beside_the_sessions_own(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in demo_copy.iterdir())
    code, _, err = run_cli(capsys, "memory", "add", str(demo_copy), "--role", "Lead", "--tag", "Decision", "ship it")
    assert code == 0, err
    assert sorted(p.name for p in demo_copy.iterdir()) == sorted({*before, ".lead-console"})
    assert (demo_copy / ".lead-console" / "memory.lock").is_file()
    assert "ship it" in (demo_copy / "TEAM-MEMORY.md").read_text(encoding="utf-8")


def test_a_link_in_the_locks_place_is_refused_and_its_target_never_made(
    demo_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere" / "made-by-the-app"
    target.parent.mkdir()
    (demo_copy / ".lead-console").mkdir(exist_ok=True)
    (demo_copy / ".lead-console" / "memory.lock").symlink_to(target)
    memory = (demo_copy / "TEAM-MEMORY.md").read_bytes()
    code, out, err = run_cli(capsys, "memory", "add", str(demo_copy), "--role", "Lead", "--tag", "Decision", "x")
    assert code != 0
    assert ".lead-console/memory.lock is a link; nothing was written" in err + out
    assert len((err + out).strip().splitlines()) == 1
    assert not target.exists()
    assert (demo_copy / "TEAM-MEMORY.md").read_bytes() == memory
