"""Issue 16, in part: a FIFO, a device or a huge file where a session file should be gives one
line and no hang, in the CLI and the window; nothing is read from it."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.controller import Controller
from conftest import CH006
from models.text import textfile


def _session(tmp_path: Path, replace_gc_with: str) -> Path:
    folder = tmp_path / "s"
    shutil.copytree(CH006, folder)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    gc = folder / "global-context.md"
    gc.unlink()
    if replace_gc_with == "fifo":
        os.mkfifo(gc)
    else:
        gc.symlink_to(replace_gc_with)
    return folder


@pytest.mark.parametrize(("kind", "said"), [("fifo", "a FIFO"), ("/dev/zero", "a device")])
def test_cli_reads_no_special_file(kind: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _session(tmp_path, kind)
    start = time.monotonic()
    assert main(["inspect", str(folder), "--tokenizer", "estimate"]) == 0
    assert f"global-context.md: cannot be read: not a regular file ({said})" in capsys.readouterr().out
    assert main(["delta", str(folder / "global-context.md"), str(folder / "orchestration-plan.md")]) == 2
    err = capsys.readouterr().err
    assert f"not a regular file ({said})" in err and err.count("\n") == 1
    assert time.monotonic() - start < 10


def test_a_file_over_the_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(textfile, "MAX_FILE_BYTES", 1024)
    big = tmp_path / "big.md"
    big.write_text("# GC\n" + "- k: v\n" * 400, encoding="utf-8")  # 2,805 bytes
    assert main(["delta", str(big), str(big)]) == 2
    assert capsys.readouterr().err == f"lead-console: {big}: 2,805 bytes, over the 1,024 bytes the app reads\n"


def test_a_file_larger_than_its_size_says_is_read_to_its_end_and_bounded() -> None:
    """The file is read in one call of its size; one that reports no size (as /proc's do, or
    one growing while read) is read on to its end, and past the limit not at all."""
    path = Path("/proc/self/status")
    assert path.stat().st_size == 0
    raw, _ = textfile.read_bounded(path)
    assert raw.startswith(b"Name:") and raw.endswith(b"\n") and len(raw) > 100
    with pytest.raises(textfile.UnreadableFile, match="grew past the 16 bytes the app reads; not read"):
        textfile.read_bounded(path, limit=16)


def test_the_window_opens_a_session_whose_gc_is_a_fifo(qtbot: QtBot, controller: Controller, tmp_path: Path) -> None:
    folder = _session(tmp_path, "fifo")
    start = time.monotonic()
    assert controller.open(folder)
    assert time.monotonic() - start < 10
    assert "not a regular file (a FIFO)" in controller.window.status_line.problems.toolTip()
