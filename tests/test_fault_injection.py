"""Faults at every write-related system call of five Lead actions, injected by ``strace`` into
the real command (issue 45, "Done when" 1).

Each action is run once under ``strace`` to list its system calls; then once per fault: an
error (ENOSPC and EIO) at every ``write``, ``fsync`` and ``rename``, and SIGKILL at every
write-related call (those, ``unlink``, ``ftruncate``, ``mkdir`` and each ``openat`` that
creates). After each fault the next command (``inspect``) must leave the session exactly as
it was before the action or exactly as the action leaves it, and say so when it took something
back; a retry of the action must end exactly as one unfaulted run does (nothing twice); and
no run may end in a traceback. "Exactly" is byte for byte, with only the clock's stamps (the
times in messages, ledger lines and outbox names) read as equal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import DEMO, REAL_SESSIONS, ROOT, run_cli

TRACED = ("write", "fsync", "rename", "unlink", "ftruncate", "mkdir", "openat")
ERRORS = ("ENOSPC", "EIO")
_CALL = re.compile(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+=\s+(-?\d+)")
_STAMPS = re.compile(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?Z|\d{8}T\d{6}Z")


@dataclass(frozen=True)
class Action:
    source: Path
    argv: tuple[str, ...]  # "{F}": the session folder; "{ID}": its one inbox message's id
    prepare: Callable[[Path], None] = lambda folder: None


def _edit_gc(folder: Path) -> None:
    gc = folder / "global-context.md"
    gc.write_text(gc.read_text(encoding="utf-8") + "\n- Faults: a line the Lead added\n", encoding="utf-8")


def _clarification(folder: Path) -> None:
    """implementer-1 understood none of GC-v6, and the Lead has seen it in the window's Inbox
    (which records the message as received: not part of the carry out that follows)."""
    from datetime import UTC, datetime

    from models.claude.reviews import gather_reviews
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "implementer-1-ack.md").write_text(
        "From: implementer-1\n[ACK-UPDATE] GC-v6 received. Items: 0/2. Impact: unclear. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    gather_reviews(open_session(folder, get_tokenizer("estimate")), datetime.now(UTC), 30)
    assert (folder / "messages" / "ledger.jsonl").is_file()


ACTIONS = {
    "publish": Action(DEMO, ("publish", "{F}", "--tokenizer", "estimate"), _edit_gc),
    "carry-out": Action(DEMO, ("inbox", "{F}", "--carry-out", "{ID}"), _clarification),
    "gate-conclude": Action(DEMO, ("gate", "conclude", "{F}", "--verdict", "CONDITIONAL_PASS", "--notes", "tests")),
    "baseline": Action(REAL_SESSIONS / "ch001-ldap", ("baseline", "{F}")),
    "memory-add": Action(
        DEMO, ("memory", "add", "{F}", "--role", "Lead", "--tag", "Decision", "Keep", "one", "ledger")
    ),
}


class Zygote:
    """``fault_zygote.py``: forks a stopped child per command, for strace to attach to."""

    def __init__(self, warm: Path) -> None:
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "fault_zygote.py"), str(warm)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._read() == {"ready": True}

    def _read(self) -> dict[str, object]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the zygote ended"
        result: dict[str, object] = json.loads(line)
        return result

    def run(self, argv: list[str], out: Path, err: Path, strace: list[str]) -> int:
        """Run ``argv`` in a child traced by ``strace`` (its options); the wait status."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"argv": argv, "out": str(out), "err": str(err)}) + "\n")
        self.proc.stdin.flush()
        pid = self._read()["pid"]
        assert isinstance(pid, int)
        # The child goes on once its getppid() answers ATTACHED (fault_zygote.py).
        handshake = ["-e", "inject=getppid:retval=4242"]
        tracer = subprocess.Popen(["strace", "-qq", "-p", str(pid), *strace, *handshake], stderr=subprocess.PIPE)
        status = self._read()["status"]
        _, said = tracer.communicate(timeout=60)
        assert tracer.returncode == 0, said
        assert isinstance(status, int)
        return status

    def close(self) -> None:
        self.proc.communicate(timeout=60)  # closes its stdin: it ends


@pytest.fixture(scope="module")
def zygote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zygote]:
    warm = tmp_path_factory.mktemp("warm") / ".agent" / "teams" / DEMO.name
    shutil.copytree(DEMO, warm)
    z = Zygote(warm)
    yield z
    z.close()


def _tree(folder: Path) -> dict[str, bytes]:
    """The session's files (the app's own records under ``.lead-console/`` aside)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".lead-console" not in p.relative_to(folder).parts
    }


def _same(tree: dict[str, bytes]) -> dict[bytes, bytes]:
    """A tree with the clock's stamps (in names and bytes) read as equal."""
    return {_STAMPS.sub(b"<t>", k.encode()): _STAMPS.sub(b"<t>", v) for k, v in tree.items()}


def _session(action: Action, root: Path) -> Path:
    folder = root / ".agent" / "teams" / action.source.name
    shutil.copytree(action.source, folder, symlinks=True)
    action.prepare(folder)
    return folder


def _argv(action: Action, folder: Path, ident: str) -> list[str]:
    return [a.replace("{F}", str(folder)).replace("{ID}", ident) for a in action.argv]


def _points(zygote: Zygote, action: Action, root: Path, ident: str) -> list[tuple[str, int, str]]:
    """Every fault to inject: (system call, its n-th call, ENOSPC | EIO | SIGKILL)."""
    folder = _session(action, root / "listed")
    trace = root / "trace"
    argv = _argv(action, folder, ident)
    status = zygote.run(
        argv, root / "out", root / "err", ["-y", "-o", str(trace), "-e", f"trace={','.join(TRACED)},getppid"]
    )
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (root / "err").read_text()
    counts = dict.fromkeys(TRACED, 0)
    points: list[tuple[str, int, str]] = []
    said = False  # a write to stdout or stderr seen: the first stands for them all
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        call = _CALL.match(line)
        if call is None or call[1] not in counts:
            continue
        name, args, result = call[1], call[2], int(call[3])
        counts[name] += 1
        if name == "openat" and ("O_CREAT" not in args or str(root) not in args):
            continue  # reads: no write goes through them
        if name == "write" and str(root) not in args.split(",")[0]:
            if said:
                continue
            said = True
        # A kill at a call that changed nothing (a mkdir of a folder that is there) leaves what
        # a kill at the next call leaves: that one stands for both.
        if result >= 0:
            points.append((name, counts[name], "SIGKILL"))
        if name in ("write", "fsync", "rename"):
            points.extend((name, counts[name], e) for e in ERRORS)
    return points


def _check_every_fault(
    zygote: Zygote, action: Action, root: Path, capsys: pytest.CaptureFixture[str], shard: tuple[int, int] = (0, 1)
) -> int:
    """Inject each fault of the action's ``shard`` (k of n: every n-th, from the k-th); how many."""
    after_folder = _session(action, root / "reference")
    before = _same(_tree(after_folder))
    code, out, _ = run_cli(capsys, "inbox", str(after_folder), "--json")
    messages = json.loads(out)["messages"]
    ident = str(messages[0]["id"]) if messages else ""  # the same in every copy: the id is the message's
    code, _, err = run_cli(capsys, *_argv(action, after_folder, ident))
    assert code == 0, err
    after = _same(_tree(after_folder))
    assert after != before
    points = _points(zygote, action, root, ident)
    assert len(points) >= 10
    points = points[shard[0] :: shard[1]]
    for n, (call, when, fault) in enumerate(points):
        trial = root / f"t{n}"
        folder = _session(action, trial)
        argv = _argv(action, folder, ident)
        how = "signal=SIGKILL" if fault == "SIGKILL" else f"error={fault}"
        status = zygote.run(
            argv,
            trial / "out",
            trial / "err",
            ["-o", "/dev/null", "-e", f"trace={call},getppid", "-e", f"inject={call}:{how}:when={when}"],
        )
        where = f"{fault} at {call} #{when}"
        said = (trial / "err").read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in said, f"{where}: {said}"
        if fault == "SIGKILL":
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"{where}: not killed"
        record = (folder / ".lead-console" / "action-in-progress.json").exists()
        left = _tree(folder)
        if fault == "SIGKILL":  # the next command finds what the killed one left
            code, _, next_err = run_cli(capsys, "inspect", str(folder), "--tokenizer", "estimate")
            assert code == 0, f"{where}: {next_err}"
            if record:
                assert "was cut short" in next_err, f"{where}: the next command said nothing of it"
            else:
                assert _tree(folder) == left, f"{where}: the next command changed files with no record"
        else:  # an error is taken back by the command that met it: nothing is left for the next
            assert not record, f"{where}: the failed command left its record"
        now = _same(_tree(folder))
        assert now in (before, after), f"{where}: the session is neither before nor after"
        if os.WIFEXITED(status):  # the exit status says what is on disk
            expected = after if os.WEXITSTATUS(status) == 0 else before
            assert now == expected, f"{where}: exit {os.WEXITSTATUS(status)} but the session is the other"

        run_cli(capsys, *argv)  # the Lead tries again
        assert _same(_tree(folder)) == after, f"{where}: the retry did not end as one run does"
    return len(points)


# Publish has four times the faults of the others, carry out twice: in thirds and halves, run
# side by side (one worker with all of publish's was the suite's last minute).
SHARDS = {"publish": 3, "carry-out": 2}
CASES = [(name, (k, SHARDS.get(name, 1))) for name in ACTIONS for k in range(SHARDS.get(name, 1))]


@pytest.mark.parametrize(("name", "shard"), CASES, ids=[f"{n}-{k}" for n, (k, _) in CASES])
def test_every_fault_leaves_before_or_after_and_a_retry_duplicates_nothing(
    zygote: Zygote, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, shard: tuple[int, int]
) -> None:
    assert _check_every_fault(zygote, ACTIONS[name], tmp_path, capsys, shard) >= 10
