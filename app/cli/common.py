"""Arguments and helpers that every command group shares."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.resolve import resolve_session
from models.text.tokens import DEFAULT_TOKENIZER, TOKENIZER_NAMES, get_tokenizer

if TYPE_CHECKING:
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
