"""``memory add`` and ``memory check``: TEAM-MEMORY from the command line."""

from __future__ import annotations

import argparse
import json
import sys

from app.cli.common import session_args
from app.cli.memory_output import memory_check_text
from app.resolve import EXIT_FAILED, EXIT_OK, read_file, resolve_session
from models.memory.check import memory_check_data
from models.memory.edits import MemoryEditError, utc_now_minutes
from models.memory.journal import MemoryJournal
from models.memory.skeleton import create_with_entry
from models.session.folder import open_session
from models.session.memory_entries import TAGS
from models.session.team_memory import parse_memory
from models.text.tokens import get_tokenizer


def cmd_memory_add(args: argparse.Namespace) -> int:
    """Add an entry to a role's TEAM-MEMORY section with a section-anchored, checked edit."""
    folder = resolve_session(args.folder, args.session)
    session = open_session(folder, get_tokenizer("estimate"))
    path = folder / "TEAM-MEMORY.md"
    try:
        result, created = create_with_entry(session, args.role, args.tag, " ".join(args.text), utc_now_minutes())
    except MemoryEditError as exc:
        print(f"lead-console: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if created:
        print(f"created {path} from ADR-001 §4's skeleton (Meta, Lead, active teammates)", file=sys.stderr)
    note = f" (merged with a concurrent change to {', '.join(result.merged)})" if result.merged else ""
    print(f"added to ## {args.role} in {path}{note}", file=sys.stderr)
    if result.warning:
        print(f"lead-console: {result.warning}", file=sys.stderr)
    return EXIT_OK


def cmd_memory_check(args: argparse.Namespace) -> int:
    """TEAM-MEMORY's structure, line count, tags per section and protocol problems."""
    folder = resolve_session(args.folder, args.session)
    memory_file = read_file(str(folder / "TEAM-MEMORY.md"))
    memory = parse_memory(memory_file.text)
    vanished = MemoryJournal(folder).vanished(memory)  # reads only
    data = memory_check_data(memory, memory_file.problems, vanished)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(memory_check_text(data))
    return EXIT_OK if not data["problems"] else EXIT_FAILED


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    memory = sub.add_parser("memory", help="TEAM-MEMORY: add an entry safely, or check the file")
    memory_sub = memory.add_subparsers(dest="memory_command", required=True, metavar="ACTION")
    add = memory_sub.add_parser("add", help="add an entry to a role's section (section-anchored, checked)")
    session_args(add, json_output=False)
    add.add_argument("--role", required=True, help="the section: Lead or a role id (relay roles are marked)")
    add.add_argument("--tag", choices=TAGS, help="one of ADR-001's seven tags")
    add.add_argument("text", nargs="+", help="the entry")
    add.set_defaults(func=cmd_memory_add)
    check = memory_sub.add_parser(
        "check", help="structure, line count, tags, protocol problems, and entries lost since the app saw them"
    )
    session_args(check)
    check.set_defaults(func=cmd_memory_check)
