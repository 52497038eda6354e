"""Every CLI subcommand over damaged copies of the real sessions (issue 16): a clear one-line
error or a result, never a traceback or a hang, and no write by a command that only reads.

The corpus is seeded: each real session in ../shared/sessions and the demo, each damaged in
each of the ways the field damages files (missing, a folder, a dangling link, a link loop, a
device, a FIFO, bytes that are not UTF-8, cut short, nested past any parser's depth, garbage
in the app's own files). Hypothesis adds random byte damage to the GC.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli.main import main
from conftest import DEMO, REAL_SESSIONS

SESSIONS = [*sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir()), DEMO]
TARGETS = ("global-context.md", "orchestration-plan.md", "TEAM-MEMORY.md")


def _missing(p: Path) -> None:
    p.unlink(missing_ok=True)


def _folder(p: Path) -> None:
    p.unlink(missing_ok=True)
    p.mkdir()


def _dangling(p: Path) -> None:
    p.unlink(missing_ok=True)
    p.symlink_to(p.parent / "no-such-file")


def _loop(p: Path) -> None:
    p.unlink(missing_ok=True)
    p.symlink_to(p)


def _device(p: Path) -> None:
    p.unlink(missing_ok=True)
    p.symlink_to("/dev/zero")


def _fifo(p: Path) -> None:
    p.unlink(missing_ok=True)
    os.mkfifo(p)


def _not_utf8(p: Path) -> None:
    data = p.read_bytes() if p.is_file() else b"text\n"
    p.write_bytes(data[: len(data) // 2] + b"\xff\xfe\xc3(" + data[len(data) // 2 :])


def _cut(p: Path) -> None:
    data = p.read_bytes() if p.is_file() else b""
    p.write_bytes(data[: len(data) // 3])


def _nested(p: Path) -> None:
    p.write_text("---\nversion: " + "[" * 5000 + "\n---\n# x\n" + "- " * 3000 + "deep\n", encoding="utf-8")


def _app_files(p: Path) -> None:
    folder = p.parent
    (folder / "messages").mkdir(exist_ok=True)
    (folder / "messages" / "ledger.jsonl").write_bytes(b'{"direction": "sent", "to": 5, "file": 7}\n[\n\xff\n')
    (folder / ".lead-console").mkdir(exist_ok=True)
    (folder / ".lead-console" / "claude-team.json").write_text('{"team": 3, "members": []}', encoding="utf-8")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "missing": _missing,
    "folder": _folder,
    "dangling link": _dangling,
    "link loop": _loop,
    "device": _device,
    "fifo": _fifo,
    "not utf-8": _not_utf8,
    "cut short": _cut,
    "nested": _nested,
    "garbage in the app's files": _app_files,
}
# (arguments after the session folder's place, whether the command only reads)
COMMANDS: list[tuple[Callable[[Path, Path], list[str]], bool]] = [
    (lambda s, t: ["inspect", str(s), "--json"], True),
    (lambda s, t: ["teammate", str(s), "--json"], True),
    (lambda s, t: ["plan", str(s), "--json"], True),
    (lambda s, t: ["plan", str(s), "--new", str(s / "global-context.md")], True),
    (lambda s, t: ["savings", str(s)], True),
    (lambda s, t: ["memory", "check", str(s), "--json"], True),
    (lambda s, t: ["delta", str(DEMO / "gc-history" / "GC-v5.md"), str(s / "global-context.md")], True),
    (lambda s, t: ["apply", str(s / "global-context.md"), str(t / "delta.txt"), "-o", str(t / "out.md")], False),
    (lambda s, t: ["ack", str(s / "TEAM-MEMORY.md"), "--session", str(s)], True),
    (lambda s, t: ["team", str(s), "--json"], True),
    (lambda s, t: ["publish", str(s), "--dry-run", "--json"], True),
    (lambda s, t: ["context", str(s)], True),
    (lambda s, t: ["planning", str(s), "--agent", "gsd-executor", "--phase", "1"], True),
    (lambda s, t: ["memory", "add", str(s), "--role", "Lead", "--tag", "Decision", "fuzz entry"], False),
    (lambda s, t: ["baseline", str(s), "--json"], False),
    (lambda s, t: ["gate", "start", str(s), "--phase", "6"], False),
]


class Hang(Exception):
    pass


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def tree(folder: Path) -> dict[str, object]:
    """Every entry with what it is: bytes of regular files, targets of links, kinds of others."""
    out: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = "folder" if path.is_dir() else "other"
    return out


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """One CLI run in-process: its exit code and stderr; a traceback or a hang fails the test."""
    with deadline(20):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err, (args, err)
    return code, err


@pytest.mark.parametrize("session", SESSIONS, ids=[p.name for p in SESSIONS])
def test_every_subcommand_on_damaged_copies_says_what_is_wrong(
    session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(f"lead-console fuzz {session.name}")
    (tmp_path / "delta.txt").write_text("[CONTEXT-UPDATE] GC-v1 → GC-v2\n\n## Delta\n- (no content change)\n")
    runs = 0
    for n, (name, damage) in enumerate(DAMAGE.items()):
        copy = tmp_path / f"{n}" / ".agent" / "teams" / session.name
        shutil.copytree(session, copy, symlinks=True)
        damage(copy / rng.choice(TARGETS))
        # Each damage meets a third of the commands; over the ten, every command meets every file.
        for k, (args_of, read_only) in enumerate(COMMANDS):
            if (k + n) % 3:
                continue
            before = tree(copy) if read_only else None
            code, err = run(args_of(copy, tmp_path), capsys)
            runs += 1
            assert code in (0, 1, 2), (name, code)
            if code == 2:
                assert err.strip().count("\n") < 3 and err.startswith(("lead-console", "usage")), (name, err)
            if before is not None:
                assert tree(copy) == before, (name, args_of(copy, tmp_path)[0])  # a reading command wrote
    assert runs >= len(DAMAGE) * len(COMMANDS) // 3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=4000), junk=st.binary(min_size=1, max_size=64))
def test_random_byte_damage_to_the_gc_never_escapes(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], cut: int, junk: bytes
) -> None:
    folder = tmp_path_factory.mktemp("h") / ".agent" / "teams" / DEMO.name
    shutil.copytree(DEMO, folder)
    gc = folder / "global-context.md"
    data = gc.read_bytes()
    gc.write_bytes(data[:cut] + junk + data[cut:])
    before = tree(folder)
    for args in (["inspect", str(folder), "--json"], ["plan", str(folder), "--json"], ["memory", "check", str(folder)]):
        code, _ = run(args, capsys)
        assert code in (0, 1, 2)
    assert tree(folder) == before


def test_a_session_file_linked_from_outside_is_read_and_named(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = demo_copy.parents[3] / "shared-memory.md"
    (demo_copy / "TEAM-MEMORY.md").rename(outside)
    (demo_copy / "TEAM-MEMORY.md").symlink_to(outside)
    code, _ = run(["inspect", str(demo_copy), "--json"], capsys)
    assert code == 0
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    session = open_session(demo_copy, get_tokenizer("estimate"))
    messages = [p.message for p in session.problems["memory"]]
    assert messages == [f"is a link to {outside}, outside the session; read from there"]
    assert session.memory is not None and len(session.memory.sections) > 3  # and read
