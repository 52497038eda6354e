"""``brief``: a spawn brief for a teammate that replaces another (or joins), written through
its preview; its text goes to standard output, to paste into the new teammate's spawn prompt."""

from __future__ import annotations

import argparse
import sys

from app.cli.common import dry_run_arg, load_session, run_action, session_args, tokenizer_arg
from app.resolve import EXIT_OK, UsageError


def cmd_brief(args: argparse.Namespace) -> int:
    """Prepare the brief, show its preview with ``--dry-run``, else write it and print it."""
    from models.actions.brief import BriefError, prepare_brief  # when run

    session = load_session(args)
    try:
        preview = prepare_brief(session, args.role, args.takes_over)
    except BriefError as exc:
        raise UsageError(str(exc)) from None
    done = run_action(lambda: preview, args)
    if done == EXIT_OK and not args.dry_run and not args.json:
        write = preview.message_write(args.role)
        if write is not None:
            sys.stdout.write(write.data.decode("utf-8"))
    return done


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    brief = sub.add_parser(
        "brief", help="a spawn brief for a replacement or new teammate: GC, its TEAM-MEMORY, its open items"
    )
    session_args(brief)
    brief.add_argument("role", help="the new teammate's role id")
    brief.add_argument(
        "--takes-over", metavar="ROLE", help="the teammate whose work it takes over (default: ROLE's own)"
    )
    dry_run_arg(brief)
    tokenizer_arg(brief)
    brief.set_defaults(func=cmd_brief)
