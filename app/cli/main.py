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

from app.cli.delta_output import delta_data, plan_data, plan_text, savings_data, savings_text
from app.cli.memory_output import memory_check_text
from app.cli.report import (
    composed_data,
    composed_text,
    planning_data,
    planning_text,
    review_data,
    review_text,
    session_data,
    session_summary,
)
from app.demo import bundled_session
from models.context.compose import compose
from models.context.gsd import AGENT_TYPES, selective_context
from models.delta.apply import apply_delta
from models.delta.decisions import plan_update, render_full
from models.delta.diff import diff_gc
from models.delta.items import ApplyError
from models.delta.message import oneline_exact, parse_message, render_message, render_oneline
from models.delta.savings import scenario_rows, team_rows
from models.memory.check import memory_check_data
from models.memory.edits import MemoryEditError, add_entry, utc_now_minutes
from models.review.inbox import Message, sender_from
from models.review.messages import parse_ack, parse_delta_report, parse_status
from models.review.validation import Review, review
from models.session.folder import Session, find_sessions, open_session
from models.session.gc import parse_gc
from models.session.team_memory import TAGS, parse_memory
from models.text.atomic import MISSING, FileChangedError, atomic_write
from models.text.textfile import TextFile, read_text, stamp_of
from models.text.tokens import DEFAULT_TOKENIZER, TOKENIZER_NAMES, get_tokenizer

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


def _read(path: str) -> TextFile:
    """Read a file for a command, turning the usual failures into one clear line."""
    try:
        loaded = read_text(Path(path))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    errors = [p for p in loaded.problems if p.severity == "error"]
    if errors:
        raise UsageError(f"{path}: {errors[0].message}")
    return loaded


def cmd_delta(args: argparse.Namespace) -> int:
    """Print the [CONTEXT-UPDATE] from OLD to NEW (exit 0 also when nothing changed)."""
    old, new = _read(args.old), _read(args.new)
    result = diff_gc(old.text, new.text)
    tokenizer = get_tokenizer(args.tokenizer)
    message = render_oneline(result.delta) if args.oneline else render_message(result.delta)
    new_gc = parse_gc(new.text, tokenizer)
    full = tokenizer.count(render_full(new.text, new_gc.version))
    cost = tokenizer.count(message)
    tokens = {
        "tokenizer": tokenizer.name,
        "delta": cost,
        "full": full,
        "savings_percent": round(100 * (1 - cost / full), 1) if full else 0.0,
    }
    if args.json:
        print(json.dumps(delta_data(result.delta, result.exact, message, tokens), ensure_ascii=False, indent=2))
        return EXIT_OK
    if result.delta.empty:
        print("no change")
        return EXIT_OK
    print(message, end="" if message.endswith("\n") else "\n")
    if not result.exact:
        print(f"lead-console: warning: {result.problem}; send the full GC instead", file=sys.stderr)
    if args.oneline and not oneline_exact(result.delta):
        print("lead-console: warning: the one-line form leaves out section content", file=sys.stderr)
    print(
        f"-- {cost:,} tokens vs {full:,} for the full GC ({tokens['savings_percent']}% saved, {tokenizer.name})",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_apply(args: argparse.Namespace) -> int:
    """Apply a [CONTEXT-UPDATE] to a GC; exit 1 naming the item that does not fit."""
    gc_file = _read(args.gc)
    message = sys.stdin.read() if args.delta == "-" else _read(args.delta).text
    gc = parse_gc(gc_file.text, get_tokenizer("estimate"))
    parsed = parse_message(message, gc)
    blocking = [u for u in parsed.unreadable if "prose" not in u.reason]
    if blocking:
        for u in blocking:
            print(f"lead-console: line {u.line}: {u.reason}: {u.text.strip()}", file=sys.stderr)
        return EXIT_FAILED
    try:
        result = apply_delta(gc_file.text, parsed.delta)
    except ApplyError as exc:
        print(f"lead-console: {exc}; nothing was written", file=sys.stderr)
        return EXIT_FAILED
    if not args.output:
        sys.stdout.write(result)
        return EXIT_OK
    out = Path(args.output)
    expected = gc_file.stamp if out.resolve() == Path(args.gc).resolve() else stamp_of(out) or MISSING
    try:
        atomic_write(out, result.encode("utf-8"), expected)
    except (FileChangedError, OSError) as exc:
        print(f"lead-console: {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {out} ({len(parsed.delta.items)} items applied)", file=sys.stderr)
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    """Per teammate: delta, full or frozen, why, and what it costs."""
    session = _load(args)
    new_text = _read(args.new).text if args.new else None
    plan = plan_update(session, new_text)
    if args.json:
        print(json.dumps(plan_data(plan), ensure_ascii=False, indent=2))
    else:
        print(plan_text(plan))
    return EXIT_OK


def cmd_savings(args: argparse.Namespace) -> int:
    """ADR-002 §7's tables recomputed on a session's GC (the demo by default)."""
    folder = resolve_session(args.folder, args.session) if args.folder else bundled_session()
    gc_path = folder / "global-context.md"
    tokenizer = get_tokenizer(args.tokenizer)
    try:
        rows = scenario_rows(_read(str(gc_path)).text, tokenizer)
    except ValueError as exc:
        raise UsageError(f"{gc_path}: {exc} (the scenarios need a GC shaped like the demo's)") from None
    team = team_rows(rows)
    if args.json:
        print(json.dumps(savings_data(rows, team, tokenizer.name), ensure_ascii=False, indent=2))
    else:
        print(savings_text(rows, team, tokenizer.name))
    return EXIT_OK


def cmd_memory_add(args: argparse.Namespace) -> int:
    """Add an entry to a role's TEAM-MEMORY section with a section-anchored, checked edit."""
    folder = resolve_session(args.folder, args.session)
    path = folder / "TEAM-MEMORY.md"
    try:
        result = add_entry(path, args.role, args.tag, " ".join(args.text), timestamp=utc_now_minutes())
    except MemoryEditError as exc:
        print(f"lead-console: {exc}", file=sys.stderr)
        return EXIT_FAILED
    note = f" (merged with a concurrent change to {', '.join(result.merged)})" if result.merged else ""
    print(f"added to ## {args.role} in {path}{note}", file=sys.stderr)
    return EXIT_OK


def cmd_memory_check(args: argparse.Namespace) -> int:
    """TEAM-MEMORY's structure, line count, tags per section and protocol problems."""
    folder = resolve_session(args.folder, args.session)
    memory_file = _read(str(folder / "TEAM-MEMORY.md"))
    data = memory_check_data(parse_memory(memory_file.text), memory_file.problems)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(memory_check_text(data))
    return EXIT_OK if not data["problems"] else EXIT_FAILED


def cmd_ack(args: argparse.Namespace) -> int:
    """Parse a teammate's message (ACK, STATUS or DELTA report); with a session, validate it."""
    text = sys.stdin.read() if args.file == "-" else _read(args.file).text
    sender = args.sender
    if args.folder:
        session = open_session(resolve_session(args.folder, args.session), get_tokenizer("estimate"))
        roles = [t.role for t in session.teammates()]
        message = Message("pasted", sender or sender_from("", text, roles), text, None)
        result = review(message, session)
    else:
        message = Message("pasted", sender, text, None)
        result = Review(message)
        kind = message.kind
        if kind == "ack":
            result.ack = parse_ack(text)
            result.problems += result.ack.unreadable
        elif kind == "status":
            result.status = parse_status(text)
            result.problems += result.status.unreadable
        elif kind == "delta_report":
            result.report = parse_delta_report(text)
            result.problems += result.report.unreadable
        else:
            result.problems.append("not a protocol message ([ACK-UPDATE], [STATUS], DELTA:)")
    data = review_data(result)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(review_text(data))
    return EXIT_OK if data["kind"] != "unknown" else EXIT_FAILED


def cmd_context(args: argparse.Namespace) -> int:
    """Compose an agent's context from its context.yaml (generators only with --allow-exec)."""
    home = Path(args.agent_home)
    if not home.is_dir():
        raise UsageError(f"{home}: no such folder")
    composed = compose(home, Path(args.cwd or "."), get_tokenizer(args.tokenizer), lambda m: bool(args.allow_exec))
    data = composed_data(composed)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(composed_text(data))
    failed = composed.manifest.problems or any(b.status == "failed" for b in composed.blocks)
    return EXIT_FAILED if failed else EXIT_OK


def cmd_planning(args: argparse.Namespace) -> int:
    """The selective context of a GSD .planning/ folder for one agent type and phase."""
    project = Path(args.project)
    planning = project if project.name == ".planning" else project / ".planning"
    if not planning.is_dir():
        raise UsageError(f"{project}: no .planning/ folder")
    try:
        result = selective_context(
            planning, args.agent, args.phase, get_tokenizer(args.tokenizer), Path(args.plan) if args.plan else None
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    data = planning_data(result)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(planning_text(data, result.text))
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

    delta = sub.add_parser("delta", help="compute the [CONTEXT-UPDATE] between two GC versions")
    delta.add_argument("old", help="the GC the teammates have (e.g. gc-history/GC-v5.md)")
    delta.add_argument("new", help="the new GC")
    delta.add_argument("--oneline", action="store_true", help="the one-line form used in practice")
    delta.add_argument("--json", action="store_true", help="items, tokens and the message as JSON")
    _tokenizer_arg(delta)
    delta.set_defaults(func=cmd_delta)

    apply = sub.add_parser("apply", help="apply a [CONTEXT-UPDATE] to a GC")
    apply.add_argument("gc", help="the GC to update")
    apply.add_argument("delta", help="the message (a file, or - for standard input)")
    apply.add_argument("-o", "--output", help="write the result here (atomically) instead of printing it")
    apply.set_defaults(func=cmd_apply)

    plan = sub.add_parser("plan", help="per teammate: delta, full or frozen, and the token cost")
    plan.add_argument("folder", help="a session folder, or a project holding .agent/teams/")
    plan.add_argument("--session", help="session id, when the folder holds several")
    plan.add_argument("--new", help="the next GC version (default: the session's GC as it is)")
    plan.add_argument("--json", action="store_true", help="print JSON for scripts")
    _tokenizer_arg(plan)
    plan.set_defaults(func=cmd_plan)

    savings = sub.add_parser("savings", help="ADR-002 §7's token tables from real counts")
    savings.add_argument("folder", nargs="?", help="a session (default: the bundled demo)")
    savings.add_argument("--session", help="session id, when the folder holds several")
    savings.add_argument("--json", action="store_true", help="print JSON for scripts")
    _tokenizer_arg(savings)
    savings.set_defaults(func=cmd_savings)

    ack = sub.add_parser("ack", help="parse a teammate's ACK, STATUS or DELTA report; validate it with --session")
    ack.add_argument("file", help="the message (a file, or - for standard input)")
    ack.add_argument("--session", dest="folder", metavar="SESSION", help="validate against this session")
    ack.add_argument("--session-id", dest="session", help="session id, when the folder holds several")
    ack.add_argument("--from", dest="sender", help="the sender's role id (else a 'From:' line)")
    ack.add_argument("--json", action="store_true", help="print JSON for scripts")
    ack.set_defaults(func=cmd_ack)

    context = sub.add_parser("context", help="compose an agent's context (context.yaml) with tokens per block")
    context.add_argument("agent_home", help="the agent's folder (holds context.yaml, system_prompt.md)")
    context.add_argument("--cwd", help="the workspace (default: the current folder)")
    context.add_argument(
        "--allow-exec", action="store_true", help="run computed_file generators (commands from the file)"
    )
    context.add_argument("--json", action="store_true", help="print JSON for scripts")
    _tokenizer_arg(context)
    context.set_defaults(func=cmd_context)

    planning = sub.add_parser("planning", help="selective GSD context for an agent type and phase, with savings")
    planning.add_argument("project", help="a project holding .planning/ (or the .planning folder)")
    planning.add_argument("--agent", required=True, choices=AGENT_TYPES, help="the GSD agent type")
    planning.add_argument("--phase", required=True, help="phase number (3 or 03)")
    planning.add_argument("--plan", help="the PLAN.md whose requirements: line maps requirements")
    planning.add_argument("--json", action="store_true", help="print JSON for scripts")
    _tokenizer_arg(planning)
    planning.set_defaults(func=cmd_planning)

    memory = sub.add_parser("memory", help="TEAM-MEMORY: add an entry safely, or check the file")
    memory_sub = memory.add_subparsers(dest="memory_command", required=True, metavar="ACTION")
    add = memory_sub.add_parser("add", help="add an entry to a role's section (section-anchored, checked)")
    add.add_argument("folder", help="a session folder, or a project holding .agent/teams/")
    add.add_argument("--session", help="session id, when the folder holds several")
    add.add_argument("--role", required=True, help="the section: Lead or a role id (relay roles are marked)")
    add.add_argument("--tag", choices=TAGS, help="one of ADR-001's seven tags")
    add.add_argument("text", nargs="+", help="the entry")
    add.set_defaults(func=cmd_memory_add)
    check = memory_sub.add_parser("check", help="structure, line count, tags and protocol problems")
    check.add_argument("folder", help="a session folder, or a project holding .agent/teams/")
    check.add_argument("--session", help="session id, when the folder holds several")
    check.add_argument("--json", action="store_true", help="print JSON for scripts")
    check.set_defaults(func=cmd_memory_check)
    return parser


def _build_window_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lead-console",
        description="Lead Console: see and steer a team of LLM coding agents. "
        "Commands: inspect, delta, apply, plan, savings (see 'lead-console COMMAND --help').",
    )
    parser.add_argument("folder", nargs="?", help="session or project folder (default: the demo)")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window to a PNG and exit")
    parser.add_argument("--session", help="session id, when the folder holds several")
    parser.add_argument("--reset-demo", action="store_true", help="copy the demo session afresh")
    _tokenizer_arg(parser, default=None)  # None: keep the tokenizer chosen in the window
    return parser


COMMANDS = ("inspect", "delta", "apply", "plan", "savings", "memory", "ack", "context", "planning")


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
