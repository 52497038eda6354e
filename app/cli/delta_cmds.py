"""GC deltas from the command line: ``delta``, ``apply``, ``plan`` and ``savings``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli.common import load_session, session_args, tokenizer_arg, warn_all
from app.cli.delta_output import delta_data, plan_data, plan_text, savings_data, savings_text
from app.cli.sharing_output import sharing_of, sharing_text
from app.demo import DEMO_PROJECT, DEMO_TEAM, bundled_session
from app.resolve import EXIT_FAILED, EXIT_OK, UsageError, read_file, resolve_session
from models.actions.replies import read_pending
from models.claude.sharing import TeamCost
from models.claude.status import team_view
from models.claude.transcript_cache import cached_follower
from models.delta.apply import apply_delta
from models.delta.decisions import plan_update, render_full
from models.delta.diff import diff_gc
from models.delta.items import ApplyError
from models.delta.message import oneline_exact, render_message, render_oneline
from models.delta.message_parse import parse_message
from models.delta.savings import scenario_rows, team_rows
from models.publish.composer import missing_gc
from models.session.gc_parse import parse_gc
from models.text.atomic import MISSING, FileChangedError, atomic_write
from models.text.textfile import stamp_of
from models.text.tokens import Tokenizer, get_tokenizer
from models.text.wording import counted


def cmd_delta(args: argparse.Namespace) -> int:
    """Print the [CONTEXT-UPDATE] from OLD to NEW (exit 0 also when nothing changed)."""
    old, new = read_file(args.old), read_file(args.new)
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
    if old.text == new.text:
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
    gc_file = read_file(args.gc)
    message = sys.stdin.read() if args.delta == "-" else read_file(args.delta).text
    gc = parse_gc(gc_file.text, get_tokenizer("estimate"))
    parsed = parse_message(message, gc)
    blocking = [u for u in parsed.unreadable if "prose" not in u.reason]
    if blocking:
        for u in blocking:
            print(f"lead-console: line {u.line}: {u.reason}: {u.text.strip()}", file=sys.stderr)
        return EXIT_FAILED
    if parsed.delta.empty and not parsed.says_no_change:
        print(
            "lead-console: the message has no delta items (a version bump alone says "
            "'- (no content change)'); nothing was written",
            file=sys.stderr,
        )
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
    print(f"wrote {out} ({counted(len(parsed.delta.items), 'item')} applied)", file=sys.stderr)
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    """Per teammate: delta, full or frozen, why, and what it costs."""
    session = load_session(args)
    new_text = read_file(args.new).text if args.new else None
    missing = missing_gc(session) if new_text is None else None
    if missing is not None:
        raise UsageError(f"nothing to plan: {missing} (give --new GC.md)")
    follower = cached_follower(session.folder)
    view = team_view(session, None, follower)
    pending, gathered = read_pending(session, view, follower=follower)  # the window's reading of every reply
    warn_all(gathered.problems)
    plan = plan_update(session, new_text, pending=pending)
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
        rows = scenario_rows(read_file(str(gc_path)).text, tokenizer)
    except ValueError as exc:
        raise UsageError(f"{gc_path}: {exc} (the scenarios need a GC shaped like the demo's)") from None
    team = team_rows(rows)
    cost = _sharing(folder, tokenizer, args)
    if args.json:
        data = savings_data(rows, team, tokenizer.name)
        data["sharing"] = cost.data() if cost is not None else None
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(savings_text(rows, team, tokenizer.name))
        print()
        print(sharing_text(cost) if cost is not None else "The cost of sharing context: no Claude Code team linked.")
    return EXIT_OK


def _sharing(folder: Path, tokenizer: Tokenizer, args: argparse.Namespace) -> TeamCost | None:
    """What the session's linked team spent on its context; the bundled demo's own team for
    the bundled demo (read where it lies, nothing written)."""
    from models.session.folder import open_session

    session = open_session(folder, tokenizer)
    team_folder = DEMO_PROJECT / DEMO_TEAM if folder == bundled_session() else None
    return sharing_of(session, team_folder)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    delta = sub.add_parser("delta", help="compute the [CONTEXT-UPDATE] between two GC versions")
    delta.add_argument("old", help="the GC the teammates have (e.g. gc-history/GC-v5.md)")
    delta.add_argument("new", help="the new GC")
    delta.add_argument("--oneline", action="store_true", help="the one-line form used in practice")
    delta.add_argument("--json", action="store_true", help="items, tokens and the message as JSON")
    tokenizer_arg(delta)
    delta.set_defaults(func=cmd_delta)

    apply = sub.add_parser("apply", help="apply a [CONTEXT-UPDATE] to a GC")
    apply.add_argument("gc", help="the GC to update")
    apply.add_argument("delta", help="the message (a file, or - for standard input)")
    apply.add_argument("-o", "--output", help="write the result here (atomically) instead of printing it")
    apply.set_defaults(func=cmd_apply)

    plan = sub.add_parser("plan", help="per teammate: delta, full or frozen, and the token cost")
    session_args(plan, json_output=False)
    plan.add_argument("--new", help="the next GC version (default: the session's GC as it is)")
    plan.add_argument("--json", action="store_true", help="print JSON for scripts")
    tokenizer_arg(plan)
    plan.set_defaults(func=cmd_plan)

    savings = sub.add_parser("savings", help="ADR-002 §7's token tables from real counts")
    savings.add_argument("folder", nargs="?", help="a session (default: the bundled demo)")
    savings.add_argument("--session", help="session id, when the folder holds several")
    savings.add_argument("--json", action="store_true", help="print JSON for scripts")
    tokenizer_arg(savings)
    savings.set_defaults(func=cmd_savings)
