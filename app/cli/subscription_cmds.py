"""``subscriptions``: what each role follows of the GC; ``--propose`` starts the matrix from the
session, ``--follow ROLE=SECTIONS`` changes it, and either is written through its preview."""

from __future__ import annotations

import argparse
import json

from app.cli.common import dry_run_arg, load_session, run_action, session_args, tokenizer_arg
from app.resolve import EXIT_OK, UsageError


def cmd_subscriptions(args: argparse.Namespace) -> int:
    """Print the matrix (and with ``--propose`` each choice's reason); write it when it was
    changed by ``--propose --write`` or ``--follow``."""
    from models.actions.subscriptions import (  # when run
        SubscriptionsError,
        current_matrix,
        prepare_subscriptions,
        proposed_matrix,
    )
    from models.session.subscriptions import section_title

    session = load_session(args)
    try:
        matrix = current_matrix(session)
        reasons: dict[str, dict[str, str]] = {}
        if args.propose:
            matrix, choices = proposed_matrix(session)
            reasons = {role: {c.section: c.reason for c in found} for role, found in choices.items()}
        for wish in args.follow or []:
            role, sep, sections = wish.partition("=")
            if not sep or role.strip() not in matrix:
                raise UsageError(f"--follow {wish}: give ROLE=SECTION,SECTION (or ROLE=all) for a teammate")
            titles = tuple(t for t in (section_title(s) for s in sections.split(",")) if t)
            matrix[role.strip()] = None if titles in (("all",), ("*",)) else titles
        if args.follow or (args.propose and args.write):
            return run_action(lambda: prepare_subscriptions(session, matrix), args)
    except SubscriptionsError as exc:
        raise UsageError(str(exc)) from None
    problems = [str(p) for p in session.problems.get("subscriptions", [])]
    if args.json:
        rows = [
            {
                "role": role,
                "follows": list(follows) if follows is not None else None,
                "why": reasons.get(role, {}),
            }
            for role, follows in matrix.items()
        ]
        print(json.dumps({"roles": rows, "proposed": args.propose, "problems": problems}, ensure_ascii=False, indent=2))
        return EXIT_OK
    for problem in problems:
        print(problem)
    width = max([len(r) for r in matrix] + [8])
    for role, follows in matrix.items():
        print(f"{role:<{width}}  " + ("every section" if follows is None else ", ".join(f"§{t}" for t in follows)))
        for title, why in reasons.get(role, {}).items():
            print(f"{'':<{width}}    §{title}: {why}")
    if args.propose:
        print("(proposed; --write writes it, after its preview with --dry-run)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    subs = sub.add_parser(
        "subscriptions", help="which GC sections each role follows: updates carry only those (subscriptions.yaml)"
    )
    session_args(subs)
    subs.add_argument("--propose", action="store_true", help="propose from the GC's ownership and the roles' messages")
    subs.add_argument("--write", action="store_true", help="with --propose: write the proposal")
    subs.add_argument(
        "--follow",
        action="append",
        metavar="ROLE=SECTIONS",
        help="ROLE follows these top-level sections (comma-separated; 'all' for every one); repeatable",
    )
    dry_run_arg(subs)
    tokenizer_arg(subs)
    subs.set_defaults(func=cmd_subscriptions)
