"""Issue 45.6: a TEAM-MEMORY.md cut off in the middle of a line, which the app has no earlier
read of to compare with, was taken as whole without a word. Nothing tells such a file from one
that ends so on purpose, so it is not refused: the CLI, the window and a write of ours show the
line it ends on, and the write keeps that line as the file holds it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import SESSIONS, run_cli

WITH_MEMORY = [s for s in SESSIONS if (s / "TEAM-MEMORY.md").is_file()]


def _cut_in_last_line(data: bytes) -> tuple[bytes, str]:
    """The file cut halfway through its last line that holds text, and what of that line is
    left: worked out here on the bytes, as a person cutting the file would."""
    lines = data.splitlines(keepends=True)
    k = max(i for i, line in enumerate(lines) if line.strip())
    keep = lines[k].rstrip(b"\r\n")[: len(lines[k].rstrip(b"\r\n")) // 2]
    while True:  # on a character's boundary: a cut inside one would be a decoding error
        try:
            return b"".join(lines[:k]) + keep, keep.decode("utf-8")
        except UnicodeDecodeError:
            keep = keep[:-1]


def _copy(tmp_path: Path, source: Path) -> Path:
    folder = tmp_path / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns(".lead-console"))
    return folder


@pytest.mark.parametrize("source", WITH_MEMORY, ids=lambda p: p.name)
def test_memory_check_shows_the_line_a_cut_off_file_ends_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    assert len(WITH_MEMORY) >= 3  # the demo and the real sessions that have one
    folder = _copy(tmp_path, source)
    path = folder / "TEAM-MEMORY.md"
    code, out, _ = run_cli(capsys, "memory", "check", str(folder))
    assert "has no end" not in out  # the whole file, as the agents left it
    cut, left = _cut_in_last_line(path.read_bytes())
    path.write_bytes(cut)
    code, out, _ = run_cli(capsys, "memory", "check", str(folder))
    assert code == 1  # problems found
    said = [line for line in out.splitlines() if "the last line has no end" in line]
    assert len(said) == 1 and left.strip()[-40:] in said[0] and "may be cut off" in said[0]


def test_a_write_onto_a_cut_off_file_keeps_its_last_line_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``memory add`` to the Lead's section, the app never having read the file: written, the
    cut line kept byte for byte at the end, and the Lead told which line it was."""
    folder = _copy(tmp_path, SESSIONS[0])
    path = folder / "TEAM-MEMORY.md"
    cut, left = _cut_in_last_line(path.read_bytes())
    path.write_bytes(cut)
    code, _, err = run_cli(capsys, "memory", "add", str(folder), "--role", "Lead", "--tag", "Decision", "keep it")
    assert code == 0
    assert "its last line had no end" in err and left.strip()[-40:] in err
    written = path.read_bytes()
    assert written.endswith(b"\n" + left.encode("utf-8"))  # not ended, not dropped
    assert written.replace(b"- [Decision]", b"", 1) != cut and len(written) > len(cut)
    assert b"keep it\n" in written


def test_the_window_shows_the_line_a_cut_off_file_ends_on(
    qtbot: QtBot, controller: Controller, demo_copy: Path
) -> None:
    """An agent's write leaves the file cut off: the memory pane's banner names the line."""
    path = demo_copy / "TEAM-MEMORY.md"
    cut, left = _cut_in_last_line(path.read_bytes())
    banner = controller.window.memory_pane.memory_banner
    assert "has no end" not in banner.text()
    with qtbot.waitSignal(controller.window.viewUpdated, timeout=5000):
        path.write_bytes(cut)
    qtbot.waitUntil(lambda: "has no end" in banner.text(), timeout=5000)
    assert left.strip()[-40:] in banner.text()
