"""Every CLI subcommand over damaged copies of the real sessions (issue 16): a clear one-line
error or a result, never a traceback or a hang, and no write by a command that only reads.

The corpus is seeded: each real session in ../shared/sessions and the demo, each damaged in
each of the ways the field damages files (missing, a folder, a dangling link, a link loop, a
device, a FIFO, bytes that are not UTF-8, cut short, nested past any parser's depth, garbage
in the app's own files). Hypothesis adds random byte damage to the GC.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli.main import main
from bench.fuzz import COMMANDS, DAMAGE, TARGETS, damage_at, deadline, sessions, tree
from conftest import DEMO

SESSIONS = sessions()


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
        damage_at(copy / rng.choice(TARGETS), damage)
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


def test_memory_add_on_a_link_loop_says_so_in_one_line(demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by the full harness (python -m bench.fuzz): Python reports a link loop while
    resolving a path as RuntimeError, which escaped `memory add`."""
    memory = demo_copy / "TEAM-MEMORY.md"
    memory.unlink()
    memory.symlink_to(memory)
    code, err = run(["memory", "add", str(demo_copy), "--role", "Lead", "--tag", "Decision", "x"], capsys)
    assert code == 1 and "a link that points to itself (a loop); not read; nothing was written" in err
