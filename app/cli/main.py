"""The ``lead-console`` command: the window by default, headless jobs as subcommands.

Each command group lives in its own module and adds its subcommands through ``register``.
This module imports no Qt, so that the headless jobs run on machines without Qt's system
libraries; the window is imported only when it is asked for.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from app.cli.common import tokenizer_arg
from app.resolve import EXIT_OK, EXIT_USAGE, UsageError, resolve_session

# The subcommands and the module of each, named here so that the window and `--help` start
# without importing what the commands need, and a subcommand imports its own group only (a
# test checks this table against the parser the groups build).
GROUPS = {
    "session_cmds": ("inspect", "section", "teammate", "baseline", "gate", "repair"),
    "delta_cmds": ("delta", "apply", "plan", "savings"),
    "review_cmds": ("ack", "inbox"),
    "context_cmds": ("context", "contexts", "planning"),
    "memory_cmds": ("memory",),
    "team_cmds": ("publish", "team"),
    "subscription_cmds": ("subscriptions",),
    "brief_cmds": ("brief",),
}
COMMANDS = tuple(command for commands in GROUPS.values() for command in commands)


def _build_commands(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``command``'s group only (what it runs)."""
    import importlib

    names = [g for g, commands in GROUPS.items() if command is None or command in commands]
    groups = [importlib.import_module(f"app.cli.{name}") for name in names]
    parser = argparse.ArgumentParser(
        prog="lead-console",
        description="Headless jobs of Lead Console. Run without a command to open the window.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in groups:
        group.register(sub)
    return parser


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def installed_version() -> str:
    """The version pip installed (pyproject's), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lead-console")
    except PackageNotFoundError:
        return "unknown"


class _Version(argparse.Action):
    """``--version``: the package's metadata is looked up only when asked for, so that
    ``--help`` and the window's start do not pay for it."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"lead-console {installed_version()}")
        parser.exit()


def _take_back_cut_short(args: argparse.Namespace) -> None:
    """Before a command reads or writes a session, take back what an action of ours cut short
    there (killed, the machine down) wrote, and say so on stderr: the command then starts from
    the session as it was before that action. A dry run writes nothing, ``repair`` says it in
    full itself, and a record that cannot be read is left for the command to refuse on."""
    folder = getattr(args, "folder", None)
    if args.command == "repair" or getattr(args, "dry_run", False) or not isinstance(folder, str):
        return
    try:
        session = resolve_session(folder, getattr(args, "session", None))
    except UsageError:
        return  # not a session (a GC file, a typo): the command says what it is
    from models.text.intent import TakenBack, take_back  # when a session is named

    try:
        found = take_back(session)
    except OSError as exc:
        print(f"lead-console: warning: {exc.strerror or exc}", file=sys.stderr)
        return
    if isinstance(found, TakenBack):
        print(f"lead-console: {found.describe()}", file=sys.stderr)


def _build_window_parser(commands: list[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lead-console",
        description="Lead Console: see and steer a team of LLM coding agents. "
        f"Commands: {', '.join(commands)} (see 'lead-console COMMAND --help').",
    )
    parser.add_argument("folder", nargs="?", help="session or project folder (default: the demo)")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window to a PNG and exit")
    parser.add_argument("--session", help="session id, when the folder holds several")
    parser.add_argument("--reset-demo", action="store_true", help="copy the demo session afresh")
    parser.add_argument("--version", action=_Version)
    tokenizer_arg(parser, default=None)  # None: keep the tokenizer chosen in the window
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = _build_commands(args_list[0]).parse_args(args_list)
            func: Callable[[argparse.Namespace], int] = args.func
            _take_back_cut_short(args)
            return func(args)
        args = _build_window_parser(list(COMMANDS)).parse_args(args_list)
        from app.gui import run_window  # Qt only from here on

        return run_window(args)
    except UsageError as exc:
        print(f"lead-console: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        # The last net under every job: a file that went away, a link loop, a full disk, a
        # permission. One line naming the file; the write that failed left the file as it was.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"lead-console: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
