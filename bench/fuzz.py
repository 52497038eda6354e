"""The fuzz harness: damaged copies of real sessions, every CLI subcommand, run in-process
with a deadline. The test suite runs a seeded third of the combinations; ``python -m bench.fuzz``
runs them all and counts what happened.

Run: .venv/bin/python -m bench.fuzz
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "resources" / "demo-project" / ".agent" / "teams" / "payments-ledger-v2"
REAL_SESSIONS = ROOT.parent / "shared" / "sessions"


def sessions() -> list[Path]:
    """Each real shared session, and the demo."""
    real = sorted(p for p in REAL_SESSIONS.iterdir() if p.is_dir()) if REAL_SESSIONS.is_dir() else []
    return [*real, DEMO]


# The session's three files, a teammate's reply in the inbox, a gate record and a GC snapshot:
# each damage lands on one of them.
TARGETS = (
    "global-context.md",
    "orchestration-plan.md",
    "TEAM-MEMORY.md",
    "messages/inbox/implementer-1-status.md",
    "phase-1/gate-record.yaml",
    "gc-history/GC-v6.md",
    "subscriptions.yaml",
)


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


def damage_at(path: Path, damage: Callable[[Path], None]) -> None:
    """Damage ``path``, making its folder first (a session without an inbox gets one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    damage(path)


# (arguments after the session folder's place, whether the command only reads)
COMMANDS: list[tuple[Callable[[Path, Path], list[str]], bool]] = [
    (lambda s, t: ["inspect", str(s), "--json"], True),
    (lambda s, t: ["teammate", str(s), "--json"], True),
    (lambda s, t: ["section", str(s), "§Scope", "--json"], True),
    (lambda s, t: ["section", str(s), "--find", "a", "--json"], True),
    (lambda s, t: ["plan", str(s), "--json"], True),
    (lambda s, t: ["plan", str(s), "--new", str(s / "global-context.md")], True),
    (lambda s, t: ["savings", str(s)], True),
    (lambda s, t: ["memory", "check", str(s), "--json"], True),
    (lambda s, t: ["memory", "show", str(s), "--search", "the", "--json"], True),
    (lambda s, t: ["delta", str(DEMO / "gc-history" / "GC-v5.md"), str(s / "global-context.md")], True),
    (lambda s, t: ["apply", str(s / "global-context.md"), str(t / "delta.txt"), "-o", str(t / "out.md")], False),
    (lambda s, t: ["ack", str(s / "TEAM-MEMORY.md"), "--session", str(s)], True),
    (lambda s, t: ["inbox", str(s), "--json"], True),
    (lambda s, t: ["team", str(s), "--json"], True),
    (lambda s, t: ["team", str(s), "--json", "--cost"], True),
    (lambda s, t: ["savings", str(s), "--json"], True),
    (lambda s, t: ["publish", str(s), "--dry-run", "--json"], True),
    (lambda s, t: ["publish", str(s), "--dry-run", "--add-meta"], True),
    (lambda s, t: ["context", str(s)], True),
    (lambda s, t: ["contexts", str(s), "--json"], True),
    (lambda s, t: ["planning", str(s), "--agent", "gsd-executor", "--phase", "1"], True),
    (lambda s, t: ["memory", "add", str(s), "--role", "Lead", "--tag", "Decision", "fuzz entry"], False),
    (lambda s, t: ["memory", "prune", str(s), "--dry-run"], True),
    (lambda s, t: ["memory", "restore", str(s), "--dry-run"], True),
    (lambda s, t: ["memory", "archive", str(s), "--phase", "5", "--dry-run"], True),
    (lambda s, t: ["inbox", str(s), "--carry-out", "0"], False),
    (lambda s, t: ["memory", "replace", str(s), "implementer-1"], False),
    (lambda s, t: ["baseline", str(s), "--json"], False),
    (lambda s, t: ["gate", "start", str(s), "--phase", "6"], False),
    (lambda s, t: ["publish", str(s), "--add-meta"], False),
    (lambda s, t: ["teammate", str(s), "implementer-1", "--state", "finished"], False),
    (lambda s, t: ["subscriptions", str(s), "--json"], True),
    (lambda s, t: ["subscriptions", str(s), "--propose", "--write", "--dry-run", "--json"], True),
    (lambda s, t: ["brief", str(s), "newcomer-1", "--takes-over", "implementer-1", "--dry-run", "--json"], True),
    (lambda s, t: ["publish", str(s), "--fit", "implementer-1=sections", "--dry-run", "--json"], True),
    (lambda s, t: ["subscriptions", str(s), "--follow", "implementer-1=Scope"], False),
    (lambda s, t: ["brief", str(s), "newcomer-1"], False),
    (lambda s, t: ["repair", str(s), "--dry-run"], True),
    (lambda s, t: ["repair", str(s)], False),
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


def run_quietly(args: list[str], seconds: int = 20) -> tuple[int, str]:
    """One CLI run in-process: its exit code and stderr (stdout discarded)."""
    from app.cli.main import main

    err = io.StringIO()
    with deadline(seconds), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, err.getvalue()


def main() -> int:
    """Every session × every damage × every command; prints the counts."""
    counts, bad = fuzz_all()
    print(", ".join(f"{v:,} {k}" for k, v in counts.items()))
    for line in bad:
        print("  " + line)
    return 0 if not bad else 1


def fuzz_all() -> tuple[dict[str, int], list[str]]:
    """The counts of every combination, and a line for each that went wrong."""
    counts = {"runs": 0, "results": 0, "clean errors": 0, "tracebacks": 0, "hangs": 0, "writes by readers": 0}
    bad: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "delta.txt").write_text("[CONTEXT-UPDATE] GC-v1 → GC-v2\n\n## Delta\n- (no content change)\n")
        for session in sessions():
            rng = random.Random(f"lead-console fuzz {session.name}")
            for n, (name, damage) in enumerate(DAMAGE.items()):
                target = rng.choice(TARGETS)
                for k, (args_of, read_only) in enumerate(COMMANDS):
                    copy = work / f"{session.name}-{n}-{k}" / ".agent" / "teams" / session.name
                    shutil.copytree(session, copy, symlinks=True)
                    damage_at(copy / target, damage)
                    before = tree(copy) if read_only else None
                    args = args_of(copy, work)
                    counts["runs"] += 1
                    try:
                        code, err = run_quietly(args)
                    except Hang:
                        counts["hangs"] += 1
                        bad.append(f"hang: {args[0]} on {session.name}, {name}")
                        continue
                    except Exception as exc:  # a traceback that escaped main()
                        counts["tracebacks"] += 1
                        bad.append(f"traceback: {args[0]} on {session.name}, {name}: {exc!r}")
                        continue
                    counts["results" if code in (0, 1) else "clean errors"] += 1
                    if "Traceback" in err:
                        counts["tracebacks"] += 1
                        bad.append(f"traceback: {args[0]} on {session.name}, {name}")
                    if before is not None and tree(copy) != before:
                        counts["writes by readers"] += 1
                        bad.append(f"write: {args[0]} on {session.name}, {name}")
                    shutil.rmtree(copy.parents[2], ignore_errors=True)
    return counts, bad


if __name__ == "__main__":
    sys.exit(main())
