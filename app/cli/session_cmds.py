"""``inspect``, ``section``, ``teammate``, ``baseline`` and ``gate``: what a session folder holds, as
the window shows it, and the Lead's lifecycle steps."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from app.cli.common import dry_run_arg, load_session, run_action, session_args, tokenizer_arg
from app.cli.report import (
    session_data,
    session_summary,
)
from app.resolve import EXIT_FAILED, EXIT_OK, UsageError, resolve_session
from models.publish.gate import VERDICTS
from models.session.roles import role_key

if TYPE_CHECKING:
    from models.session.gc import Section


def cmd_inspect(args: argparse.Namespace) -> int:
    """Print the session; reads only, never writes."""
    session = load_session(args)
    if args.json:
        print(json.dumps(session_data(session), ensure_ascii=False, indent=2))
    else:
        print(session_summary(session))
    return EXIT_OK


def cmd_teammate(args: argparse.Namespace) -> int:
    """Each teammate's lifecycle state and where it was read; with ROLE --state, set it."""
    from models.actions.session_edits import prepare_state  # when run
    from models.publish.teammate_state import parse_state

    session = load_session(args)
    if args.role is not None and args.state is not None:
        done = run_action(lambda: prepare_state(session, args.role, parse_state(args.state)), args, report=False)
        if done != EXIT_OK or args.dry_run:
            return done
        session.reload({"plan"})
    mates = [m for m in session.teammates() if args.role is None or role_key(m.role) == role_key(args.role)]
    if args.role is not None and not mates:
        raise UsageError(f"no teammate {args.role} in this session")
    if args.json:
        rows = [
            {
                "role": m.role,
                "state": m.state,
                "receives_updates": m.receives,
                "read_from": [f.describe() for f in m.state_facts] or [m.state_source],
            }
            for m in mates
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        width = max([len(m.role) for m in mates] + [8])
        for m in mates:
            print(f"{m.role:<{width}}  {m.state:<10} {m.state_source}")
    return EXIT_OK


def cmd_baseline(args: argparse.Namespace) -> int:
    """Snapshot the GC into gc-history/ and record the confirmed versions the plan shows."""
    from models.actions.session_edits import prepare_baseline  # when run: `inspect` needs none

    session = load_session(args)
    return run_action(lambda: prepare_baseline(session), args)


def cmd_gate(args: argparse.Namespace) -> int:
    """Start a gate (updates freeze) or conclude it with a verdict (a gate record is written)."""
    from models.actions.session_edits import prepare_gate_conclude, prepare_gate_start  # when run
    from models.publish.publishing import utc_now  # the clock the window's gates read too

    session = load_session(args)
    now = utc_now()
    if args.action == "start":
        return run_action(lambda: prepare_gate_start(session, args.phase, now), args)
    if not args.verdict:
        raise UsageError(f"conclude needs --verdict ({', '.join(VERDICTS)})")
    return run_action(lambda: prepare_gate_conclude(session, args.verdict.upper(), now, args.phase, args.notes), args)


def cmd_repair(args: argparse.Namespace) -> int:
    """Take back what an action cut short (killed, the machine down) wrote, and remove the temp
    files killed writes left; exit 1 when the action's record cannot be read (nothing is undone
    by guess)."""
    from models.text.atomic import left_temp_files
    from models.text.intent import TakenBack, read_interrupted, take_back  # when run

    folder = resolve_session(args.folder, args.session)
    temps = left_temp_files(folder)  # what killed writes left beside their files
    for temp in temps:
        done = "would be removed" if args.dry_run else "removed"
        print(f"{temp.relative_to(folder)}: {done} (a killed write's temp file)")
        if not args.dry_run:
            temp.unlink(missing_ok=True)
    interrupted = read_interrupted(folder)
    if interrupted is None:
        if not temps:
            print("nothing to repair: no action was cut short in this session", file=sys.stderr)
        return EXIT_OK
    if interrupted.problem is not None:
        print(f"lead-console: {interrupted.describe(folder)}", file=sys.stderr)
        return EXIT_FAILED
    if args.dry_run:
        print(f"'{interrupted.title}' was cut short (started {interrupted.started}); repair would look at:")
        for w in interrupted.writes:
            print(f"  {w.kind:<7} {w.path}")
        return EXIT_OK
    found = take_back(folder)
    if isinstance(found, TakenBack):
        print(f"'{found.title}' was cut short (started {found.started}); taken back:")
        for file in found.files:
            print(f"  {file.line()}")
    return EXIT_OK


def cmd_section(args: argparse.Namespace) -> int:
    """A section of the GC (with its subsections) or an item, as the file holds it: what the
    section tree's Copy gives, and what the window previews."""
    from models.publish.composer import missing_gc
    from models.session.refs import plain_safe, quote

    if (args.ref is None) == (args.find is None):
        raise UsageError("section: give a § reference or --find TEXT (one of the two)")
    session = load_session(args)
    gc = session.gc
    if gc is None:
        raise UsageError(missing_gc(session) or "no GC")
    if args.find is not None:
        return _print_found(gc.find(args.find), args)
    found = gc.resolve(args.ref)
    if found is None:
        raise UsageError(f"§{args.ref.strip().lstrip('§')}: no such section or item in the GC")
    text = gc.written(found)
    if args.json:
        section, item = found.section, found.item
        data = {
            "ref": section.ref
            + ("" if item is None else "." + (item.key if plain_safe(item.key) else quote(item.key))),
            "title": section.title,
            "line": (item.line if item is not None else section.line) + 1,
            "tokens": section.tokens if item is None else session.tokenizer.count(text),
            "text": text,
        }
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _print_found(sections: list[Section], args: argparse.Namespace) -> int:
    """``section --find``: each section found, in file order, as the window's Go to section
    steps through them (exit 1 when none is found, as grep)."""
    if args.json:
        found = [{"ref": s.ref, "title": s.title, "line": s.line + 1, "tokens": s.tokens} for s in sections]
        print(json.dumps(found, ensure_ascii=False, indent=2))
    else:
        for s in sections:
            print(f"{s.ref}\t{s.tokens} tokens\tline {s.line + 1}")
        if not sections:
            print(f"no section's title or reference holds {args.find!r}", file=sys.stderr)
    return EXIT_OK if sections else EXIT_FAILED


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    inspect = sub.add_parser("inspect", help="print a session's GC, teammates, memory and gates")
    session_args(inspect)
    tokenizer_arg(inspect)
    inspect.set_defaults(func=cmd_inspect)

    section = sub.add_parser("section", help="a GC section (with its subsections) or item, as the file holds it")
    session_args(section)
    section.add_argument(
        "ref", nargs="?", help="a § reference: §Scope, §Decisions.D-5, §Interface Contracts.Posting API"
    )
    section.add_argument("--find", metavar="TEXT", help="list the sections whose title or reference holds TEXT")
    tokenizer_arg(section)
    section.set_defaults(func=cmd_section)

    teammate = sub.add_parser("teammate", help="teammates' lifecycle states and where they were read; set one")
    session_args(teammate)
    teammate.add_argument("role", nargs="?", help="one teammate (role id, any case)")
    teammate.add_argument("--state", help="set it: active, idle, finished, shut down, replaced")
    dry_run_arg(teammate)
    tokenizer_arg(teammate, default="estimate")
    teammate.set_defaults(func=cmd_teammate)

    baseline = sub.add_parser(
        "baseline", help="snapshot the GC and record confirmed versions, so updates can be deltas"
    )
    session_args(baseline)
    tokenizer_arg(baseline, default="estimate")
    dry_run_arg(baseline)
    baseline.set_defaults(func=cmd_baseline)

    gate = sub.add_parser("gate", help="start a gate (freeze updates) or conclude it with a verdict")
    gate.add_argument("action", choices=("start", "conclude"))
    session_args(gate)
    gate.add_argument("--phase", type=int, help="the phase (default: the plan's current_phase, or the gate started)")
    gate.add_argument("--verdict", help=f"with conclude: {', '.join(VERDICTS)}")
    gate.add_argument("--notes", help="with conclude: the conditions or notes the gate record keeps")
    tokenizer_arg(gate, default="estimate")
    dry_run_arg(gate)
    gate.set_defaults(func=cmd_gate)

    repair = sub.add_parser("repair", help="take back what an action cut short (killed, the machine down) wrote")
    session_args(repair, json_output=False)
    dry_run_arg(repair)
    repair.set_defaults(func=cmd_repair)
