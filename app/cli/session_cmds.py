"""``inspect``: what a session folder holds, as the window shows it."""

from __future__ import annotations

import argparse
import json

from app.cli.common import load_session, session_args, tokenizer_arg
from app.cli.report import (
    session_data,
    session_summary,
)
from app.resolve import EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    """Print the session; reads only, never writes."""
    session = load_session(args)
    if args.json:
        print(json.dumps(session_data(session), ensure_ascii=False, indent=2))
    else:
        print(session_summary(session))
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    inspect = sub.add_parser("inspect", help="print a session's GC, teammates, memory and gates")
    session_args(inspect)
    tokenizer_arg(inspect)
    inspect.set_defaults(func=cmd_inspect)
