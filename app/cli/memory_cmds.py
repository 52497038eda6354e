"""``memory show``, ``add``, ``check``, ``archive``, ``replace``, ``prune`` and ``restore``:
TEAM-MEMORY from the command line, with the memory pane's own filter, edits and checked writes."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Callable
from pathlib import Path

from app.cli.common import said_after_writing, session_args
from app.cli.memory_output import memory_check_text
from app.resolve import EXIT_FAILED, EXIT_OK, UsageError, read_file, resolve_session
from models.memory.check import memory_check_data
from models.memory.edits import Conflict, MemoryEditError, SectionEdit, edit_memory, preview, utc_now_minutes
from models.memory.journal import MemoryJournal
from models.memory.lead_edits import archive_edits, archive_phase_edits, entries_matching, prune_edits, replace_edits
from models.memory.loss import journal_loss, restore_edits
from models.memory.skeleton import create_with_entry
from models.session.folder import open_session
from models.session.memory_entries import TAGS
from models.session.memory_parse import parse_memory
from models.session.roles import role_key
from models.session.team_memory import MemoryQuery
from models.text.textfile import read_text
from models.text.tokens import get_tokenizer
from models.text.wording import counted


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
    note = f" (merged with a concurrent change to {', '.join(result.merged)})" if result.merged else ""

    def say() -> None:
        if created:
            print(f"created {path} from ADR-001 §4's skeleton (Meta, Lead, active teammates)", file=sys.stderr)
        if result.text == result.before:
            print(f"## {args.role} in {path} holds this entry already; nothing was written", file=sys.stderr)
            return
        print(f"added to ## {args.role} in {path}{note}", file=sys.stderr)
        if result.warning:
            print(f"lead-console: {result.warning}", file=sys.stderr)

    return said_after_writing(say)


def cmd_memory_show(args: argparse.Namespace) -> int:
    """The entries the memory pane shows for a role, a tag, a search and the archived toggle,
    as the file holds them (what the pane's Copy gives), each under its section's heading."""
    folder = resolve_session(args.folder, args.session)
    memory_file = read_file(str(folder / "TEAM-MEMORY.md"))
    for problem in memory_file.problems:
        print(f"lead-console: {problem}", file=sys.stderr)
    memory = parse_memory(memory_file.text)
    tag = next((known for known in TAGS if args.tag and known.lower() == args.tag.lower()), args.tag)
    query = MemoryQuery(tag, args.search or "", not args.no_archived)
    rows: list[dict[str, object]] = []
    lines: list[str] = []
    for section in memory.sections:
        if args.role is not None and role_key(section.role) != role_key(args.role):
            continue
        shown = [entry for entry in section.entries if query.matches(entry)]
        if shown:
            lines.append(memory.written(section).splitlines(keepends=True)[0])
        for entry in shown:
            written = memory.written(section, entry)
            lines.append(written if written.endswith("\n") else written + "\n")
            rows.append(
                {
                    "section": section.header,
                    "role": section.role,
                    "line": section.span_of(entry)[0] + 1,
                    "tag": entry.tag,
                    "archived": entry.archived,
                    "text": entry.text,
                    "written": written,
                }
            )
    if args.json:
        print(json.dumps({"entries": rows}, ensure_ascii=False, indent=2))
    elif lines:
        sys.stdout.write("".join(lines))
    else:
        print("no entry matches", file=sys.stderr)
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


def _curate(args: argparse.Namespace, title: str, build: Callable[[Path], list[SectionEdit]]) -> int:
    """Make the memory pane's edit ``build`` gives on the file as it is, after the same preview
    the pane shows (printed, and only printed, with ``--dry-run``)."""
    folder = resolve_session(args.folder, args.session)
    path = folder / "TEAM-MEMORY.md"
    try:
        edits = build(path)
        before, after = preview(path, edits) if edits else ("", "")
        diff = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), path.name, "after", n=1))
        if not diff:
            print(f"{title}: nothing to change in {path}", file=sys.stderr)
            return EXIT_OK
        if args.dry_run:
            print(diff, end="")
            return EXIT_OK
        result = edit_memory(path, edits, MemoryJournal(folder), title)
    except Conflict as exc:
        print(f"lead-console: {exc}; nothing was written", file=sys.stderr)
        return EXIT_FAILED
    except MemoryEditError as exc:
        print(f"lead-console: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:  # the file as read for the edit: not there, a folder, unreadable
        print(f"lead-console: {path.name}: {exc.strerror or exc}; nothing was written", file=sys.stderr)
        return EXIT_FAILED
    note = f" (merged with a concurrent change to {', '.join(result.merged)})" if result.merged else ""

    def say() -> None:
        print(f"{title}: written to {path}{note}", file=sys.stderr)
        if result.warning:
            print(f"lead-console: {result.warning}", file=sys.stderr)

    return said_after_writing(say)


def _text(path: Path) -> str:
    return read_text(path).text


def cmd_memory_archive(args: argparse.Namespace) -> int:
    """[ARCHIVED] before every entry that names the phase, and every entry of a section whose
    header names it (the memory pane's Archive phase…, at a gate); or before the entries that
    ``--entry`` pieces of text pick out (Archive selected)."""
    if (args.phase is None) == (not args.entry):
        raise UsageError("give --phase N or --entry TEXT (one or more), not both")
    if args.phase is not None:
        return _curate(args, f"archive phase {args.phase}", lambda path: archive_phase_edits(_text(path), args.phase))
    count = len(args.entry)
    return _curate(
        args,
        f"archive {counted(count, 'entry', 'entries')}",
        lambda path: archive_edits(entries_matching(_text(path), args.entry)),
    )


def cmd_memory_replace(args: argparse.Namespace) -> int:
    """Mark a teammate's section [REPLACED] and start a new one for its successor."""
    return _curate(args, f"replace {args.role}", lambda path: replace_edits(_text(path), args.role))


def cmd_memory_prune(args: argparse.Namespace) -> int:
    """Remove the [ARCHIVED] entries (ADR-001: once the file is over 500 lines)."""
    return _curate(args, "prune archived entries", lambda path: prune_edits(_text(path)))


def cmd_memory_restore(args: argparse.Namespace) -> int:
    """Put back the entries the app's journal saw that outside writes took away (what ``memory
    check`` lists as lost), each where it stood."""

    def lost(path: Path) -> list[SectionEdit]:
        vanished = MemoryJournal(path.parent).vanished(parse_memory(_text(path)))
        return restore_edits(journal_loss(vanished))

    return _curate(args, "restore lost entries", lost)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    memory = sub.add_parser(
        "memory", help="TEAM-MEMORY: show entries; add, archive, replace, prune, restore; or check the file"
    )
    memory_sub = memory.add_subparsers(dest="memory_command", required=True, metavar="ACTION")
    show = memory_sub.add_parser("show", help="the entries a role, tag or search picks, as the file holds them")
    session_args(show)
    show.add_argument("role", nargs="?", help="one section: Lead, Meta or a role id (any case)")
    show.add_argument("--tag", help="entries with this tag only (ADR-001's seven, or any other the file uses)")
    show.add_argument("--search", help="entries whose text holds this (any case)")
    show.add_argument("--no-archived", action="store_true", help="leave out entries marked [ARCHIVED]")
    show.set_defaults(func=cmd_memory_show)
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
    curation: list[tuple[str, str, Callable[[argparse.Namespace], int]]] = [
        ("archive", "prefix a phase's entries, or the ones named, with [ARCHIVED]", cmd_memory_archive),
        ("replace", "mark a teammate's section [REPLACED] and start a new one", cmd_memory_replace),
        ("prune", "remove [ARCHIVED] entries (over 500 lines)", cmd_memory_prune),
        ("restore", "put back entries outside writes took away (memory check's lost)", cmd_memory_restore),
    ]
    for name, summary, run in curation:
        action = memory_sub.add_parser(name, help=summary)
        session_args(action, json_output=False)
        if name == "archive":
            action.add_argument("--phase", type=int, help="the phase whose entries are stale")
            action.add_argument(
                "--entry", action="append", default=[], metavar="TEXT", help="a piece of one entry's text (repeatable)"
            )
        if name == "replace":
            action.add_argument("role", help="the teammate replaced (its successor gets a new section)")
        action.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
        action.set_defaults(func=run)
