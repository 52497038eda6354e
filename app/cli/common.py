"""Arguments and helpers that every command group shares."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.resolve import EXIT_FAILED, EXIT_OK, UsageError, resolve_session
from models.text.tokens import DEFAULT_TOKENIZER, TOKENIZER_NAMES, get_tokenizer

if TYPE_CHECKING:
    from models.actions.preview import Preview
    from models.session.folder import Session
    from models.text.problems import Problem


def tokenizer_arg(parser: argparse.ArgumentParser, default: str | None = DEFAULT_TOKENIZER) -> None:
    parser.add_argument(
        "--tokenizer",
        choices=TOKENIZER_NAMES,
        default=default,
        help=f"how tokens are counted (default {DEFAULT_TOKENIZER}; 'estimate' = 4 chars a token)",
    )


def session_args(parser: argparse.ArgumentParser, json_output: bool = True) -> None:
    """``FOLDER [--session ID] [--json]``, as most commands take them."""
    parser.add_argument("folder", help="a session folder, or a project holding .agent/teams/")
    parser.add_argument("--session", help="session id, when the folder holds several")
    if json_output:
        parser.add_argument("--json", action="store_true", help="print JSON for scripts")


def load_session(args: argparse.Namespace) -> Session:
    from models.session.folder import open_session  # imported when used: `--help` stays quick

    folder = resolve_session(args.folder, args.session)
    return open_session(folder, get_tokenizer(args.tokenizer))


def warn_all(problems: list[Problem]) -> None:
    """One line on stderr for each thing left out, so that ``--json`` output stays JSON."""
    for problem in problems:
        print(f"lead-console: warning: {problem}", file=sys.stderr)


def said_after_writing(say: Callable[[], None]) -> int:
    """Say what a committed action wrote and exit 0: the files are written whatever happens to
    the saying. A stdout or stderr that fails then (a full disk, a closed pipe) must not turn
    the exit status into a failure, or a script's retry would do the action twice."""
    try:
        say()
        sys.stdout.flush()  # a full disk under a redirected stdout says so now, not at exit
    except OSError:
        # Nothing more can be said; the streams go quiet so that the exit's own flush does
        # not fail the command after all.
        sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the rest of the run
    return EXIT_OK


def dry_run_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print every file it would write; write nothing")


def run_action(prepare: Callable[[], Preview], args: argparse.Namespace, report: bool = True) -> int:
    """Prepare an action, print its preview with ``--dry-run`` (as JSON with ``--json``), else
    commit it exactly as prepared. The request's own error (a verdict not known, a teammate not
    in the session, ...) is a usage error; a refused commit (a file changed since it was read)
    prints its reasons and exits 1, nothing written. With ``report`` off, ``--json`` is left to
    the command, which prints a document of its own after the action (a dry run's is the
    preview's, whatever the command)."""
    from models.actions.commit import commit
    from models.publish.baseline import BaselineError
    from models.publish.gate import GateError
    from models.publish.teammate_state import StateError
    from models.text.transaction import WriteRefused

    try:
        preview = prepare()
    except (BaselineError, GateError, StateError) as exc:
        raise UsageError(str(exc)) from None
    wants_json = getattr(args, "json", False)
    if getattr(args, "dry_run", False):
        print(json.dumps(preview.data(), ensure_ascii=False, indent=2) if wants_json else preview.text())
        return EXIT_OK
    as_json = report and wants_json
    try:
        outcome = commit(preview)
    except WriteRefused as exc:
        print(f"lead-console: {preview.title}: nothing was written: {exc}", file=sys.stderr)
        return EXIT_FAILED
    written = [preview.relative_path(path) for path in outcome.written]

    def say() -> None:
        if as_json:
            print(json.dumps({**preview.data(), "written": written}, ensure_ascii=False, indent=2))
        for path in written:
            print(f"wrote {path}", file=sys.stderr)

    return said_after_writing(say)
