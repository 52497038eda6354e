"""Issue 18: the GC and TEAM-MEMORY are read as soon as their writer is done with them, during
the quiet spell the watcher waits out, and the reload that ends the spell shows that read
(``Session.read_ahead``, ``FolderWatcher.written``).

The reload must show what the file holds: the read ahead when nothing touched the file since,
else a read of its own. Expected values come from a cold ``parse_gc`` or ``parse_memory`` of
the bytes the test wrote, and from the events a writer's calls make (a close, a rename into
place).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
from gc_facts import cold_caches, gc_facts, memory_facts, reads_clean
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.watcher import FolderWatcher
from conftest import DEMO, REAL_SESSIONS
from gc_edits import edits, random_edit
from models.session import folder as folder_module
from models.session.folder import ALL_PARTS, GC_FILE, MEMORY_FILE, Session, open_session
from models.session.gc_parse import parse_gc
from models.session.memory_parse import parse_memory
from models.session.snapshot import Part
from models.text import compared_read
from models.text.tokens import get_tokenizer

TOKENIZER = get_tokenizer("o200k_base")
FILES: dict[Part, str] = {"gc": GC_FILE, "memory": MEMORY_FILE}
# Every real session folder with the file, and the demo's, for each part read ahead.
CASES = [
    (part, folder)
    for part, name in FILES.items()
    for folder in sorted(p.parent for p in [*REAL_SESSIONS.glob(f"*/{name}"), DEMO / name])
]


def _cold(part: Part, raw: bytes) -> list[object]:
    """What a full parse of ``raw`` reads, with no earlier parse to start from."""
    cold_caches()
    text = raw.decode("utf-8")
    if part == "gc":
        return gc_facts(parse_gc(text, TOKENIZER))
    return memory_facts(parse_memory(text, MEMORY_FILE))


def _shown(session: Session, part: Part) -> list[object]:
    if part == "gc":
        assert session.gc is not None
        return gc_facts(session.gc)
    assert session.memory is not None
    return memory_facts(session.memory)


def _append(path: Path, line: str) -> bytes:
    """An agent's append: the file with ``line`` added as the last entry; its new bytes."""
    raw = path.read_bytes()
    raw += (b"" if raw.endswith(b"\n") else b"\n") + line.encode("utf-8") + b"\n"
    path.write_bytes(raw)
    return raw


def test_the_watcher_says_a_file_is_whole_after_its_last_event(qtbot: QtBot, tmp_path: Path) -> None:
    """Written in place: every event touches the file, and its close says it is whole.
    Renamed into place: the temp file is never named, the file it becomes is written."""
    watcher = FolderWatcher(tmp_path, debounce_ms=80)
    log: list[tuple[str, str]] = []
    watcher.touched.connect(lambda p: log.append(("touched", p)))
    watcher.written.connect(lambda p: log.append(("written", p)))
    in_place, renamed = str(tmp_path / "a.md"), str(tmp_path / "b.md")
    try:
        with qtbot.waitSignal(watcher.pathsChanged, timeout=5000), open(in_place, "w", encoding="utf-8") as f:
            f.write("first")
            f.flush()
            f.write(" and second")
        assert log[-1] == ("written", in_place)
        assert log[:-1] and set(log[:-1]) == {("touched", in_place)}
        log.clear()
        temp = tmp_path / "b.md.tmp.1.2"
        with qtbot.waitSignal(watcher.pathsChanged, timeout=5000) as blocker:
            temp.write_text("new", encoding="utf-8")
            os.replace(temp, renamed)
        assert blocker.args == [[renamed]]
        assert log == [("touched", renamed), ("written", renamed)]
        with qtbot.waitSignal(watcher.pathsChanged, timeout=5000):
            (tmp_path / "folder").mkdir()
        log.clear()
        moved = str(tmp_path / "moved")
        with qtbot.waitSignal(watcher.pathsChanged, timeout=5000, check_params_cb=lambda paths: moved in paths):
            os.rename(tmp_path / "folder", moved)
        assert ("touched", moved) in log
        assert not [entry for entry in log if entry[0] == "written"]  # a folder is no file written
    finally:
        watcher.stop()


@pytest.mark.parametrize(("part", "folder"), CASES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_a_reload_shows_the_read_ahead_until_the_file_is_touched(part: Part, folder: Path, tmp_path: Path) -> None:
    """On every real session's GC and TEAM-MEMORY: what ``read_ahead`` read is what the
    watcher's reload shows (the file is not read again: a later write the watcher has not
    reported is not in it), with the stamp our writes check against; dropped, or on any other
    reload, the file is read afresh."""
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    path = copy / FILES[part]
    session = open_session(copy, TOKENIZER)
    session.settle_stamps()
    ahead = _append(path, "- [Finding] read as its writer closed it — 먼저")
    session.read_ahead(part)
    later = _append(path, "- [Finding] written after the read ahead")
    assert session.reload((part,), ahead=True) == {part}
    shown = session.gc if part == "gc" else session.memory
    assert shown is not None and shown.text == ahead.decode("utf-8")
    assert _shown(session, part) == _cold(part, ahead)
    stamp = session.stamps[FILES[part]]
    assert stamp is not None and stamp.size == len(ahead)
    assert session.reload((part,), ahead=True) == {part}  # taken once: now the file itself
    assert _shown(session, part) == _cold(part, later)

    session.read_ahead(part)
    again = _append(path, "- [Finding] touched again")
    assert session.drop_ahead(part) and not session.drop_ahead(part)
    assert session.reload((part,), ahead=True) == {part}
    assert _shown(session, part) == _cold(part, again)

    session.read_ahead(part)
    last = _append(path, "- [Finding] and once more")
    session.reload(("plan",))  # any reload but the watcher's forgets the read ahead
    assert session.reload((part,), ahead=True) == {part}
    assert _shown(session, part) == _cold(part, last)


@pytest.mark.parametrize(("part", "folder"), CASES, ids=lambda v: v if isinstance(v, str) else v.name)
def test_every_kind_of_edit_read_ahead_reads_as_a_cold_parse(part: Part, folder: Path, tmp_path: Path) -> None:
    """Item edits, sections added, removed, renamed and moved, a version bump, and the whole
    file rewritten (another session's file in its place), each read ahead and shown by the
    watcher's reload (the file is put back before it, unseen: the reload must not read it):
    what a full parse of the same bytes reads, every time."""
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    path = copy / FILES[part]
    session = open_session(copy, TOKENIZER)
    original = path.read_text(encoding="utf-8")
    other = next(p for _, p in CASES if p != folder and (p / FILES[part]).is_file())
    versions = [new for _, new in edits(original)] + [(other / FILES[part]).read_text(encoding="utf-8"), original]
    assert len(versions) > 5
    for n, text in enumerate(versions):
        session.settle_stamps()
        path.write_text(text, encoding="utf-8")
        session.read_ahead(part)
        path.write_text(original, encoding="utf-8")  # unseen: the reload shows the read ahead
        session.reload((part,), ahead=True)
        assert _shown(session, part) == _cold(part, text.encode("utf-8")), n


@pytest.mark.parametrize("folder", [f for part, f in CASES if part == "memory"], ids=lambda f: f.name)
def test_team_memory_read_on_both_cores_reads_as_a_cold_parse(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same edits with TEAM-MEMORY read and compared on two threads
    (``models.text.compared_read``, for files of megabytes; here from the first byte, in pieces
    of a few dozen): every version shown is what a full parse of its bytes reads."""
    monkeypatch.setattr(compared_read, "PARALLEL_FROM", 0)
    monkeypatch.setattr(compared_read, "_PIECE", 61)
    compared: list[object] = []
    reading = compared_read.read_compared

    def counted(path: Path, old: bytes, limit: int) -> compared_read.Compared | None:
        got = reading(path, old, limit)
        compared.append(got)
        return got

    monkeypatch.setattr(folder_module, "read_compared", counted)
    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    path = copy / MEMORY_FILE
    session = open_session(copy, TOKENIZER)
    original = path.read_text(encoding="utf-8")
    first = original.index("\n- ", original.index("\n## ")) + 1
    last = original.rindex("\n- ") + 1
    assert original.index("\n## ", first) < last  # two sections apart
    both_ends = (  # an entry in the first section and one in the last changed at once
        original[:first] + "- x" + original[first + 3 : last] + "- y" + original[last + 3 :]
    )
    versions = [both_ends, original] + [new for _, new in edits(original)] + [original + "- [Finding] more\n", original]
    for n, text in enumerate(versions):
        session.settle_stamps()
        path.write_text(text, encoding="utf-8")
        session.read_ahead("memory")
        path.write_text(original, encoding="utf-8")  # unseen: the reload shows the read ahead
        session.reload(("memory",), ahead=True)
        assert _shown(session, "memory") == _cold("memory", text.encode("utf-8")), n
    assert len(compared) == len(versions) and None not in compared


def test_the_plan_and_the_folders_are_read_at_the_reload(tmp_path: Path) -> None:
    """Only the GC and TEAM-MEMORY are read ahead: the plan is small, the rest are folders."""
    copy = tmp_path / DEMO.name
    shutil.copytree(DEMO, copy)
    session = open_session(copy, TOKENIZER)
    others: tuple[Part, ...] = ("plan", "gates", "folders", "inbox")
    for part in others:
        session.read_ahead(part)
        assert not session.drop_ahead(part)


def test_a_file_not_read_yet_is_left_to_the_reload(tmp_path: Path) -> None:
    """A session opened before its TEAM-MEMORY existed: the first version is read whole by
    the reload, not ahead (there is no version shown to follow from)."""
    copy = tmp_path / DEMO.name
    shutil.copytree(DEMO, copy)
    (copy / MEMORY_FILE).unlink()
    session = open_session(copy, TOKENIZER)
    assert session.memory is None
    (copy / MEMORY_FILE).write_bytes((DEMO / MEMORY_FILE).read_bytes())
    session.read_ahead("memory")
    assert not session.drop_ahead("memory")
    assert session.reload(("memory",), ahead=True) == {"memory"}
    assert _shown(session, "memory") == _cold("memory", (DEMO / MEMORY_FILE).read_bytes())


@pytest.mark.parametrize("part", list(FILES))
def test_a_burst_of_writes_reads_ahead_once_per_reload_and_shows_the_last(
    qtbot: QtBot, controller: Controller, demo_copy: Path, monkeypatch: pytest.MonkeyPatch, part: Part
) -> None:
    """A shell appending line by line closes the file twenty times in a moment: the first
    close reads ahead, the next write drops that read, and no other is made before the
    reload. The window ends on the last version, as a fresh parse reads it."""
    controller.open(demo_copy)
    controller.settle(timeout_s=30)
    reads: list[Part] = []
    reloads: list[Part] = []
    read_ahead, reload = Session.read_ahead, Session.reload

    def counted_read(self: Session, read: Part) -> None:
        reads.append(read)
        read_ahead(self, read)

    def counted_reload(self: Session, parts: Iterable[Part] = ALL_PARTS, ahead: bool = False) -> set[Part]:
        parts = tuple(parts)
        if ahead and part in parts:
            reloads.append(part)
        return reload(self, parts, ahead)

    monkeypatch.setattr(Session, "read_ahead", counted_read)
    monkeypatch.setattr(Session, "reload", counted_reload)
    path = demo_copy / FILES[part]
    for n in range(20):
        raw = _append(path, f"- [Finding] line {n} of a burst")
    live = controller.live
    assert live is not None

    def shown_text() -> str | None:
        shown = live.session.gc if part == "gc" else live.session.memory
        return None if shown is None else shown.text

    qtbot.waitUntil(lambda: shown_text() == raw.decode(), timeout=5000)
    controller.settle(timeout_s=30)
    assert _shown(live.session, part) == _cold(part, raw)
    assert reads.count(part) >= 1 and reads.count(part) <= len(reloads)


@pytest.mark.parametrize("seed", range(4))
def test_random_runs_of_writes_reads_ahead_drops_and_reloads(seed: int, tmp_path: Path) -> None:
    """Writes, reads ahead, drops and reloads of either file in any order, as the watcher's
    signals and the Lead's own reloads interleave. The model kept here: a watcher's reload of
    a part shows the bytes last read ahead of it, if nothing dropped them and no other reload
    ran since; else the file's bytes now. After every reload the session equals a cold parse
    of those bytes."""
    rng = random.Random(f"read-ahead-{seed}")
    copy = tmp_path / DEMO.name
    shutil.copytree(DEMO, copy)
    session = open_session(copy, TOKENIZER)
    ahead: dict[Part, bytes] = {}
    for step in range(60):
        part: Part = rng.choice(list(FILES))
        path = copy / FILES[part]
        action = rng.choice(("write", "write", "read ahead", "drop", "watcher reload", "other reload"))
        if action == "write":
            text = path.read_text(encoding="utf-8")
            for _ in range(20):
                edited = random_edit(text, rng)
                if reads_clean(FILES[part], edited):
                    path.write_text(edited, encoding="utf-8")
                    break
        elif action == "read ahead":
            session.settle_stamps()
            session.read_ahead(part)
            ahead[part] = path.read_bytes()
        elif action == "drop":
            assert session.drop_ahead(part) == (part in ahead), step
            ahead.pop(part, None)
        else:
            parts: tuple[Part, ...] = (part,) if action == "watcher reload" else (part, "plan")
            shown = ahead.pop(part, None) if action == "watcher reload" else None
            if action == "other reload":
                ahead.clear()
            session.reload(parts, ahead=action == "watcher reload")
            expected = path.read_bytes() if shown is None else shown
            assert _shown(session, part) == _cold(part, expected), (step, action, part)
