"""The ``lead-console`` command: the window by default, headless jobs as subcommands.

This module imports no Qt, so that the headless jobs run on machines without Qt's system
libraries; the window is imported only when it is asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from models.report import session_data, session_summary
from models.session import Session, find_sessions, open_session
from models.tokens import DEFAULT_TOKENIZER, TOKENIZER_NAMES, get_tokenizer

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


def _tokenizer_arg(parser: argparse.ArgumentParser, default: str | None = DEFAULT_TOKENIZER) -> None:
    parser.add_argument(
        "--tokenizer",
        choices=TOKENIZER_NAMES,
        default=default,
        help=f"how tokens are counted (default {DEFAULT_TOKENIZER}; 'estimate' = 4 chars a token)",
    )


def resolve_session(path: str, session_id: str | None) -> Path:
    """The one session folder meant by ``path`` (a session, a project or a folder of them)."""
    folder = Path(path).expanduser()
    if not folder.exists():
        raise UsageError(f"{path}: no such folder")
    sessions = find_sessions(folder)
    if session_id is not None:
        sessions = [s for s in sessions if s.name == session_id]
    if not sessions:
        raise UsageError(
            f"{path}: no session here (a session folder holds global-context.md, "
            "orchestration-plan.md or TEAM-MEMORY.md; a project holds .agent/teams/<id>/)"
        )
    if len(sessions) > 1:
        names = ", ".join(s.name for s in sessions)
        raise UsageError(f"{path}: {len(sessions)} sessions here ({names}); pick one with --session ID")
    return sessions[0]


def _load(args: argparse.Namespace) -> Session:
    folder = resolve_session(args.folder, args.session)
    return open_session(folder, get_tokenizer(args.tokenizer))


def cmd_inspect(args: argparse.Namespace) -> int:
    """Print the session; reads only, never writes."""
    session = _load(args)
    if args.json:
        print(json.dumps(session_data(session), ensure_ascii=False, indent=2))
    else:
        print(session_summary(session))
    return EXIT_OK


def _build_commands() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lead-console",
        description="Headless jobs of Lead Console. Run without a command to open the window.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    inspect = sub.add_parser("inspect", help="print a session's GC, teammates, memory and gates")
    inspect.add_argument("folder", help="a session folder, or a project holding .agent/teams/")
    inspect.add_argument("--session", help="session id, when the folder holds several")
    inspect.add_argument("--json", action="store_true", help="print JSON for scripts")
    _tokenizer_arg(inspect)
    inspect.set_defaults(func=cmd_inspect)
    return parser


def _build_window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lead-console",
        description="Lead Console: see and steer a team of LLM coding agents. "
        "Commands: inspect (see 'lead-console inspect --help').",
    )
    parser.add_argument("folder", nargs="?", help="session or project folder (default: the demo)")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window to a PNG and exit")
    parser.add_argument("--session", help="session id, when the folder holds several")
    parser.add_argument("--reset-demo", action="store_true", help="copy the demo session afresh")
    _tokenizer_arg(parser, default=None)  # None: keep the tokenizer chosen in the window
    return parser


COMMANDS = ("inspect",)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = _build_commands().parse_args(args_list)
            func: Callable[[argparse.Namespace], int] = args.func
            return func(args)
        args = _build_window_parser().parse_args(args_list)
        from app.gui import run_window  # Qt only from here on

        return run_window(args)
    except UsageError as exc:
        print(f"lead-console: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
