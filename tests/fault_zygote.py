"""A process that has imported the CLI and forks a stopped child for each command it is sent.

The fault-injection test (``test_fault_injection.py``) attaches ``strace`` to each child
before it starts the command, so that the injected fault counts only the command's own system
calls, and each run costs the command, not Python's start and the app's imports (four hundred
runs of 0.4 s would be most of the suite). Protocol, one JSON line each way:

- in: ``{"argv": [...], "out": PATH, "err": PATH}``
- out: ``{"pid": PID}`` once the child is forked, then ``{"status": WAIT_STATUS}`` once it
  has ended.

The child waits for its tracer by asking for its parent's pid until the answer is
``ATTACHED``: the tracer injects that answer (``-e inject=getppid:retval=4242``), so the
command starts only once every system call of it is seen.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys


def _warm_up(folder: str) -> None:
    """Import what every command imports when it runs, by running each as a dry run (or a
    read-only command) on a copy of the demo: nothing is written there."""
    from app.cli.main import main

    runs = [
        ["inspect", folder],
        ["publish", folder, "--dry-run", "--tokenizer", "estimate"],
        ["baseline", folder, "--dry-run"],
        ["gate", "conclude", folder, "--verdict", "APPROVED", "--dry-run"],
        ["inbox", folder, "--json"],
        ["memory", "show", folder],
        ["memory", "check", folder],
    ]
    for argv in runs:
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet), contextlib.suppress(SystemExit):
            main(argv)
    # Every module a command may import when it commits (no dry run above reaches them all):
    # a child that imported one itself would open its .py or .pyc, whichever the other test
    # worker had just written, and its system calls would no longer be the listed ones.
    import importlib
    import pkgutil

    import app.cli
    import models

    for package in (models, app.cli):
        for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(found.name)


ATTACHED = 4242  # what the tracer makes getppid() return


def _child(argv: list[str], fd_out: int, fd_err: int) -> None:
    """Wait until the tracer sees our system calls; then run the command and end without any
    cleanup of the parent's (``os._exit``). Its output files were opened by the parent: an
    open of ours before the handshake would be counted, or hit, by a tracer that attached
    early (on a busy machine it did: a fault meant for the command met its stderr's open)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    # The streams on the new descriptors, for as long as the child lives (it ends in os._exit).
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    while os.getppid() != ATTACHED:
        os.sched_yield()
    from app.cli.main import main

    code = 70
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    # No child writes a module's bytecode: in a fresh clone the first child to import a module
    # the warm-up did not (memory add's) would create its .pyc, and every later child's
    # creating opens would be counted one short, so a fault meant for the command's 41st
    # would never come.
    sys.dont_write_bytecode = True
    _warm_up(sys.argv[1])
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        fd_out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fd_err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        pid = os.fork()
        if pid == 0:
            _child(request["argv"], fd_out, fd_err)
        os.close(fd_out)
        os.close(fd_err)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": status}), flush=True)


if __name__ == "__main__":
    serve()
