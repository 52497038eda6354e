"""Issue 45.4: a command's exit status says what happened on disk. When the lines that say what
was written cannot be written themselves (stderr or stdout on a full disk: /dev/full), the
action is still done, and the exit status is 0: an exit of 2 invited a retry that added the
entry, or concluded the gate, a second time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import DEMO, ROOT, copy_session


def _run(*args: str, full: str) -> int:
    """``lead-console ARGS`` with ``full`` ("stdout" or "stderr") going to a full disk."""
    with open("/dev/full", "wb") as disk:
        streams = {"stdout": disk, "stderr": subprocess.DEVNULL} if full == "stdout" else {"stderr": disk}
        done = subprocess.run(
            [sys.executable, "-m", "app", *args],
            cwd=ROOT,
            timeout=120,
            check=False,
            **streams,  # type: ignore[call-overload]
        )
    return int(done.returncode)


def test_a_memory_entry_whose_report_cannot_be_said_exits_0_and_is_added_once(tmp_path: Path) -> None:
    folder = copy_session(DEMO, tmp_path / "demo")
    assert _run("memory", "add", str(folder), "--role", "Lead", "--tag", "Finding", "said", "once", full="stderr") == 0
    assert (folder / "TEAM-MEMORY.md").read_text(encoding="utf-8").count("said once") == 1


def test_a_gate_whose_report_cannot_be_said_exits_0_and_is_written_once(tmp_path: Path) -> None:
    """The demo's plan is at phase 6 with no gate open: start, then conclude APPROVED, each
    with its report lost; one gate record for phase 6."""
    folder = copy_session(DEMO, tmp_path / "demo")
    assert _run("gate", "start", str(folder), "--phase", "6", full="stderr") == 0
    assert _run("gate", "conclude", str(folder), "--verdict", "APPROVED", full="stderr") == 0
    records = sorted(p.name for p in (folder / "phase-6").glob("gate-record*.yaml"))
    assert records == ["gate-record.yaml"]
    assert "APPROVED" in (folder / "phase-6" / "gate-record.yaml").read_text(encoding="utf-8")


def test_a_baseline_whose_json_cannot_be_written_exits_0_and_is_taken(tmp_path: Path) -> None:
    """``baseline --json`` with stdout on a full disk: the snapshot of the demo's GC-v6 is
    taken (gc-history/GC-v6.md, removed first), and the exit says so."""
    folder = copy_session(DEMO, tmp_path / "demo")
    snapshot = folder / "gc-history" / "GC-v6.md"
    snapshot.unlink()
    assert _run("baseline", str(folder), "--json", full="stdout") == 0
    assert snapshot.read_bytes() == (folder / "global-context.md").read_bytes()
