"""Issue 18: the watch begins once the window shows the open, and ``Session.catch_up`` then
reads again whatever may have changed since the open read it.

A file is left as read only when its status proves it unchanged (``unchanged_since``): the
same size and modification time, and an inode last changed well before the read. Expected
values come from a fresh ``open_session`` of the folder as it is after the test's writes, and
from which files the test touched.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

import models.session.folder as folder_module
import models.text.textfile as textfile
from app.live_session import LiveSession
from conftest import DEMO, SESSIONS, copy_session
from models.session.folder import GC_FILE, MEMORY_FILE, PLAN_FILE, Session, open_session
from models.session.subscriptions import SUBSCRIPTIONS_FILE
from models.text.textfile import SETTLED_NS, Stamp, unchanged_since
from models.text.tokens import get_tokenizer

TOKENIZER = get_tokenizer("estimate")
FILES = {"gc": GC_FILE, "plan": PLAN_FILE, "memory": MEMORY_FILE, "subscriptions": SUBSCRIPTIONS_FILE}
# Each part's file in every session that has it.
EDITS = [(part, source) for part, name in FILES.items() for source in SESSIONS if (source / name).is_file()]


def _open_settled(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    """Open once the files have settled: the margin a change must lie before the read is cut
    from seconds to 20 ms (a file's change time cannot be set back), and the open waits 50 ms,
    longer than any tick of the file system's clock."""
    monkeypatch.setattr(textfile, "SETTLED_NS", 20_000_000)
    time.sleep(0.05)
    return open_session(folder, TOKENIZER)


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files read from now on."""
    read: list[str] = []
    real = folder_module.read_bounded

    def counting(path: Path, limit: int | None = None) -> tuple[bytes, int]:
        read.append(path.name)
        return real(path, limit)

    monkeypatch.setattr(folder_module, "read_bounded", counting)
    return read


def _facts(session: Session) -> tuple[object, ...]:
    """What each part shows: the texts read, the gate records, phase roles and inbox."""
    return (
        session.gc.text if session.gc else None,
        session.plan.text if session.plan else None,
        session.memory.text if session.memory else None,
        [(g.phase, g.verdict, g.path) for g in session.gates],
        session.phase_roles,
        session.inbox_listing,
    )


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "just-copied"])
@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_a_catch_up_reads_again_only_what_may_have_changed(
    source: Path, settled: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files settled before the read are not read again. Files copied a moment ago are (their
    change times are too near the read to prove anything), and found unchanged."""
    folder = copy_session(source, tmp_path / "project")
    session = _open_settled(folder, monkeypatch) if settled else open_session(folder, TOKENIZER)
    read = _reads(monkeypatch)
    assert session.catch_up() == set()
    expected = [] if settled else sorted(name for name in FILES.values() if (folder / name).is_file())
    assert sorted(read) == expected


@pytest.mark.parametrize(("part", "source"), EDITS, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_an_edit_that_keeps_size_and_time_is_found(
    source: Path, part: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worst case: one byte changed in place after the read, the size kept and the
    modification time put back as it was. Only the change time tells."""
    folder = copy_session(source, tmp_path / "project")
    path = folder / FILES[part]
    session = _open_settled(folder, monkeypatch)
    raw = path.read_bytes()
    before = os.stat(path)
    at = raw.rfind(b"e")
    assert at >= 0
    path.write_bytes(raw[:at] + b"E" + raw[at + 1 :])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert session.catch_up() == {part}
    assert _facts(session) == _facts(open_session(folder, TOKENIZER))


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_files_removed_added_and_folders_made_are_found(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = copy_session(source, tmp_path / "project")
    session = _open_settled(folder, monkeypatch)
    had = {part for part, name in FILES.items() if (folder / name).is_file()}
    for name in FILES.values():
        path = folder / name
        if path.is_file():
            path.unlink()
        else:
            path.write_text("---\nversion: GC-v2\n---\n# Added\n\n## Scope\n- a: b\n", encoding="utf-8")
    (folder / "phase-9" / "implementer-9").mkdir(parents=True)
    changed = session.catch_up()
    assert changed >= set(FILES) - ({"memory"} if "memory" in had else set())  # a missing TEAM-MEMORY is no problem
    assert "folders" in changed
    assert _facts(session) == _facts(open_session(folder, TOKENIZER))


def test_unchanged_since_asks_for_every_sign(tmp_path: Path) -> None:
    path = tmp_path / "f.md"
    path.write_bytes(b"twelve bytes")
    st = os.stat(path)
    stamp = Stamp.of_bytes(b"twelve bytes", st.st_mtime_ns)
    later = st.st_ctime_ns + SETTLED_NS + 1
    assert unchanged_since(path, stamp, later)
    assert not unchanged_since(path, stamp, st.st_ctime_ns + SETTLED_NS)  # changed too near the read
    assert not unchanged_since(path, Stamp.of_bytes(b"eleven byte", st.st_mtime_ns), later)
    assert not unchanged_since(path, Stamp.of_bytes(b"twelve bytes", st.st_mtime_ns - 1), later)
    assert not unchanged_since(path, None, later)  # missing when read, there now
    assert unchanged_since(tmp_path / "gone.md", None, later)  # missing then and now
    assert not unchanged_since(tmp_path / "gone.md", stamp, later)


def test_a_session_left_before_its_first_turn_never_watches(qtbot: QtBot, tmp_path: Path) -> None:
    folder = copy_session(DEMO, tmp_path / "project")
    live = LiveSession(folder, TOKENIZER)
    assert live.watcher is None  # the open's read is shown first
    live.close()
    qtbot.wait(50)
    assert live.watcher is None
    live = LiveSession(folder, TOKENIZER)
    try:
        qtbot.waitUntil(lambda: live.watcher is not None, timeout=5000)
    finally:
        live.close()


def test_a_folder_that_cannot_be_watched_is_said_once_and_stays_open(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The system's limit of watches reached: the session stays open as read, the window says
    why in one line, and the watch is not tried again on every turn."""
    import errno

    import app.live_session as live_session
    from conftest import shown_controller

    tries: list[Path] = []

    def refused(folder: Path, *args: object, **kwargs: object) -> None:
        tries.append(folder)
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(live_session, "FolderWatcher", refused)
    folder = copy_session(DEMO, tmp_path / "project")
    controller = shown_controller(qtbot, tmp_path)  # headless: the message is printed, not a dialog
    assert controller.open(folder)
    qtbot.waitUntil(lambda: bool(tries), timeout=5000)
    qtbot.wait(50)
    out = capsys.readouterr().out
    assert (
        out
        == f"lead-console: {folder} cannot be watched (inotify watch limit reached): changes on disk are not shown\n"
    )
    assert len(tries) == 1 and controller.live is not None and controller.live.watcher is None
    assert controller.window.sections_pane.gc_model.rowCount() > 0  # the session as read is shown
