"""A live session that went through broken files reads the good ones as a fresh open does.

An agent's write can leave a session file half-written, binary, not UTF-8, empty, gone, or
replaced by a folder, a FIFO or a dangling link; the next write mends it. In between, the live
session shows the last good version with a warning (a fresh open has no such version, so the
two differ by design); once every file is good again, nothing of the broken states may be
left: not a problem, not kept bytes, not a follow-up from a version that was never shown. So
after random runs of good and broken states of the GC, the plan and TEAM-MEMORY, each file
made good again and reloaded as the watcher reloads it, the session must equal
``open_session`` of the same folder: the expected value is the app's own cold read, which
``tests/test_gc.py`` and ``tests/test_memory_follow.py`` hold to the files themselves.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from gc_facts import cold_caches, gc_facts, memory_facts, reads_clean

from conftest import DEMO, REAL_SESSIONS
from gc_edits import random_edit
from models.session.folder import GC_FILE, MEMORY_FILE, PLAN_FILE, Session, open_session
from models.session.snapshot import Part
from models.text.tokens import get_tokenizer

SESSIONS = sorted([*(p for p in REAL_SESSIONS.iterdir() if p.is_dir()), DEMO])
FILES: dict[str, Part] = {GC_FILE: "gc", PLAN_FILE: "plan", MEMORY_FILE: "memory"}


def _broken(rng: random.Random, path: Path, good: bytes) -> None:
    """Leave ``path`` in one of the states an agent's write or a mistake leaves it in."""
    kind = rng.choice(["half", "binary", "not-utf8", "empty", "gone", "folder", "fifo", "dangling"])
    if kind == "half":
        path.write_bytes(good[: rng.randint(0, max(len(good) - 1, 0))])
    elif kind == "binary":
        path.write_bytes(good[:10] + b"\x00\x01" + good[10:])
    elif kind == "not-utf8":
        at = rng.randint(0, len(good))
        path.write_bytes(good[:at] + b"\xff\xfe" + good[at:])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind in ("folder", "fifo", "dangling"):
        make: Callable[[], None] = {
            "folder": path.mkdir,
            "fifo": lambda: os.mkfifo(path),
            "dangling": lambda: path.symlink_to(path.with_name("nowhere")),
        }[kind]
        make()


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file() or path.is_fifo():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _good(rng: random.Random, name: str, original: str, last: str | None) -> str:
    """A good version (one that reads without an error): the last good one again (a file put
    back as it was), the original, or an edit of the last good one (an entry appended, a line
    changed), now and then with CRLF line ends."""
    if last is not None and rng.random() < 0.3:
        return last
    base = last if last is not None and rng.random() < 0.7 else original
    for _ in range(20):
        text = random_edit(base, rng) if base and rng.random() < 0.8 else base
        if rng.random() < 0.15:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        if reads_clean(name, text):
            return text
    return original


def _phase_step(rng: random.Random, folder: Path) -> list[Part]:
    """A write to the phase folders: a gate record edited, broken or taken away, a teammate's
    folder made or removed, a phase folder made, removed or turned into a file. The parts the
    watcher would reload for it."""
    phases = sorted(p for p in folder.iterdir() if p.name.startswith("phase-"))
    kind = rng.choice(["gate-good", "gate-broken", "gate-gone", "mate", "mate-gone", "phase", "phase-file"])
    if kind.startswith("gate") and phases:
        phase = rng.choice(phases)
        if phase.is_dir():
            path = phase / "gate-record.yaml"
            _clear(path)
            if kind == "gate-good":
                path.write_text(f"phase: {phase.name[6:]}\nresult: {rng.choice(['APPROVED', 'ITERATE'])}\n")
            elif kind == "gate-broken":
                _broken(rng, path, b"phase: 1\nresult: [APPROVED\n")
    elif kind == "mate" and phases and phases[0].is_dir():
        (rng.choice([p for p in phases if p.is_dir()]) / f"implementer-{rng.randint(1, 9)}").mkdir(exist_ok=True)
    elif kind == "mate-gone" and phases:
        mates = [m for p in phases if p.is_dir() for m in p.iterdir() if m.is_dir()]
        if mates:
            shutil.rmtree(rng.choice(mates))
    elif kind == "phase":
        (folder / f"phase-{rng.randint(1, 12)}" / f"researcher-{rng.randint(1, 3)}").mkdir(parents=True, exist_ok=True)
    elif kind == "phase-file" and phases:
        victim = rng.choice(phases)
        _clear(victim)
        victim.write_text("not a folder\n")
    return ["folders", "gates"]


def _facts(session: Session) -> list[object]:
    cold_caches()
    facts: list[object] = [
        {part: [str(p) for p in session.problems.get(part, [])] for part in (*FILES.values(), "gates")},
        [(g.phase, g.verdict, g.path, [str(p) for p in g.problems]) for g in session.all_gates],
        session.phase_roles,
        session.gc_version,
        gc_facts(session.gc) if session.gc is not None else None,
        memory_facts(session.memory) if session.memory is not None else None,
        session.memory.text if session.memory is not None else None,
        session.plan.text if session.plan is not None else None,
        [(m.role, m.state, m.receives) for m in session.teammates()],
    ]
    return facts


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_a_session_back_to_good_files_reads_as_a_fresh_open(source: Path, tmp_path: Path) -> None:
    rng = random.Random(f"states-{source.name}")
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    originals = {
        name: (folder / name).read_text(encoding="utf-8") if (folder / name).is_file() else "" for name in FILES
    }
    tokenizer = get_tokenizer("o200k_base")
    session = open_session(folder, tokenizer)
    last: dict[str, str | None] = dict.fromkeys(FILES)
    checked = broken_seen = 0
    for _ in range(20):
        for _ in range(rng.randint(1, 5)):  # a run of writes, some of them broken
            if rng.random() < 0.3:
                session.reload(_phase_step(rng, folder))
                continue
            name = rng.choice(list(FILES))
            path = folder / name
            _clear(path)
            if rng.random() < 0.5:
                _broken(rng, path, (last[name] or originals[name]).encode("utf-8"))
                broken_seen += 1
            else:
                last[name] = _good(rng, name, originals[name], last[name])
                path.write_bytes(last[name].encode("utf-8"))  # type: ignore[union-attr]
            session.reload([FILES[name]])
        for name, part in FILES.items():  # every file good again, each reloaded on its own
            path = folder / name
            _clear(path)
            if originals[name]:  # else the session has none, and that is its good state
                last[name] = _good(rng, name, originals[name], last[name])
                path.write_bytes(last[name].encode("utf-8"))  # type: ignore[union-attr]
            session.reload([part])
        assert _facts(session) == _facts(open_session(folder, tokenizer))
        checked += 1
    assert checked == 20 and broken_seen >= 15


def test_edits_to_a_gc_that_reads_with_an_error_are_shown(tmp_path: Path) -> None:
    """A GC whose front matter is not YAML reads with an error; an agent's edit of it reads
    with the same error and must be shown (it used to stay hidden behind "the last good
    version", which had the error too). An empty write is still kept off the screen: the
    version before stays, named for what it is. Once the GC reads clean, an empty write keeps
    the last good version, as before."""
    folder = tmp_path / "session"
    shutil.copytree(DEMO, folder)
    path = folder / GC_FILE
    tokenizer = get_tokenizer("o200k_base")
    broken = path.read_text(encoding="utf-8").replace("---\n", "---\nowners: [lead\n", 1)
    path.write_text(broken, encoding="utf-8")
    session = open_session(folder, tokenizer)
    said = [str(p) for p in session.problems["gc"]]
    assert len(said) == 1 and "front matter is not valid YAML" in said[0]
    edited = broken + "\n## Added by an agent\n- owner: implementer-2\n"
    path.write_text(edited, encoding="utf-8")
    assert session.reload(["gc"]) == {"gc"}
    assert session.gc is not None and session.gc.text == edited
    assert _facts(session) == _facts(open_session(folder, tokenizer))
    path.write_bytes(b"")
    assert session.reload(["gc"]) == {"gc"} and session.gc.text == edited
    assert [p.message for p in session.problems["gc"]] == [
        "is empty (perhaps being written right now)",
        "showing the version read before this one",
    ]
    mended = edited.replace("owners: [lead\n", "owners: [lead]\n")
    path.write_text(mended, encoding="utf-8")
    assert session.reload(["gc"]) == {"gc"} and session.problems["gc"] == []
    assert _facts(session) == _facts(open_session(folder, tokenizer))
    path.write_text(broken, encoding="utf-8")
    assert session.reload(["gc"]) == {"gc"} and session.gc.text == mended
    assert [p.message for p in session.problems["gc"]][-1] == "showing the last good version of the file"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: path.mkdir(), "phase-1/gate-record.yaml: cannot be read: is a folder, not a file"),
        (
            lambda path: os.mkfifo(path),
            "phase-1/gate-record.yaml: cannot be read: not a regular file (a FIFO); not read",
        ),
    ],
    ids=["folder", "fifo"],
)
def test_a_gate_record_that_is_no_file_is_named_in_one_line(
    make: Callable[[Path], None], said: str, tmp_path: Path
) -> None:
    """It used to be passed over in silence, as if the phase had no record."""
    folder = tmp_path / "session"
    shutil.copytree(REAL_SESSIONS / "cow-pipeline-redesign", folder)
    path = folder / "phase-1" / "gate-record.yaml"
    path.unlink()
    make(path)
    session = open_session(folder, get_tokenizer("o200k_base"))
    assert [str(p) for p in session.problems["gates"]] == [said]
    assert "phase-1/gate-record.yaml" not in [g.path for g in session.gates]
    path.unlink() if not path.is_dir() else path.rmdir()
    path.symlink_to(folder / "nowhere.yaml")  # a link to nothing is no record, and no error
    assert session.reload(["gates"]) == {"gates"} and session.problems["gates"] == []


def test_a_phase_folder_removed_while_the_session_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listed, then gone before its teammates were read (an agent cleaning up): it names no
    teammate, and the reload does not fail."""
    folder = tmp_path / "session"
    shutil.copytree(DEMO, folder)
    session = open_session(folder, get_tokenizer("o200k_base"))
    assert session.phase_roles
    monkeypatch.setattr(Session, "_phase_folders", lambda self: [folder / "phase-99"])
    assert session.reload(["folders", "gates"]) == {"folders", "gates"}
    assert session.phase_roles == {} and session.gates == []
