"""What a teammate is given: ``context`` (context.yaml), ``contexts`` (the team's token budget,
and the links to agent homes) and ``planning`` (GSD selective loading)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli.common import load_session, session_args, tokenizer_arg, warn_all
from app.cli.report import (
    composed_data,
    composed_text,
    planning_data,
    planning_text,
)
from app.resolve import EXIT_FAILED, EXIT_OK, UsageError
from models.context.compose import compose
from models.context.generators import coverage
from models.context.gsd import AGENT_TYPES, selective_context
from models.context.links import Link, load_links, save_link
from models.context.team import context_rows
from models.text.atomic import FileChangedError
from models.text.problems import Problem
from models.text.tokens import get_tokenizer


def cmd_context(args: argparse.Namespace) -> int:
    """Compose an agent's context from its context.yaml (generators only with --allow-exec)."""
    home = Path(args.agent_home)
    if not home.is_dir():
        raise UsageError(f"{home}: no such folder")
    composed = compose(home, Path(args.cwd or "."), get_tokenizer(args.tokenizer), lambda m: bool(args.allow_exec))
    if args.allow_exec:  # what --allow-exec ran that nobody could look at first
        cwd = Path(args.cwd or ".").resolve()
        for note in coverage(composed.manifest.commands(), home.resolve(), cwd)[1]:
            print(f"lead-console: warning: {note}", file=sys.stderr)
    data = composed_data(composed)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(composed_text(data))
    failed = composed.manifest.problems or any(b.status == "failed" for b in composed.blocks)
    return EXIT_FAILED if failed else EXIT_OK


def cmd_contexts(args: argparse.Namespace) -> int:
    """Per teammate: the context it is given at start, and the GC and TEAM-MEMORY it receives
    (the Context pane's team table); ``--link ROLE=AGENT_HOME`` links one first (Link…)."""
    session = load_session(args)
    for spec in args.link:
        role, _, home = spec.partition("=")
        if not role or not home or not Path(home).is_dir():
            raise UsageError(f"--link {spec}: give ROLE=AGENT_HOME, an existing folder")
        workspace = Path(args.workspace or home).resolve()
        try:
            save_link(session.folder, role, Link(Path(home).resolve(), workspace))
        except (FileChangedError, OSError) as exc:
            raise UsageError(f"the link was not saved: {exc}") from None
    links, problems = load_links(session.folder)
    warn_all([Problem("warning", "context-links.yaml", p) for p in problems])
    tokenizer = get_tokenizer(args.tokenizer)
    composed = {
        role: compose(link.agent_home, link.workspace, tokenizer, lambda m: bool(args.allow_exec)).tokens
        for role, link in links.items()
    }
    rows = context_rows(session, tokenizer, links, composed)
    if args.json:
        data = [row._asdict() | {"total": row.total} for row in rows]
        print(json.dumps({"tokenizer": tokenizer.name, "teammates": data}, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"{'Teammate':<22} {'Context':>9} {'GC':>9} {'TEAM-MEMORY':>12} {'Total':>9}  Agent home")
    for row in rows:
        context = "—" if row.context is None else f"{row.context:,}"
        print(
            f"{row.role:<22} {context:>9} {row.gc:>9,} {row.memory:>12,} {row.total:>9,}  "
            f"{row.agent_home or 'unlinked'}"
        )
    return EXIT_OK


def cmd_planning(args: argparse.Namespace) -> int:
    """The selective context of a GSD .planning/ folder for one agent type and phase."""
    project = Path(args.project)
    planning = project if project.name == ".planning" else project / ".planning"
    if not planning.is_dir():
        raise UsageError(f"{project}: no .planning/ folder")
    try:
        delta = None if args.delta is None else args.delta == "on"
        result = selective_context(
            planning, args.agent, args.phase, get_tokenizer(args.tokenizer), plan_path(args.plan), delta
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"{exc.filename or args.plan}: {exc.strerror or exc}") from None
    data = planning_data(result)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(planning_text(data, result.text))
    return EXIT_OK


def plan_path(value: str | None) -> Path | None:
    """The --plan file, checked: a missing plan is the Lead's typo, not "maps no requirements"."""
    if value is None:
        return None
    path = Path(value)
    if not path.exists():
        raise UsageError(f"{path}: no such plan")
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a PLAN.md")
    return path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    context = sub.add_parser("context", help="compose an agent's context (context.yaml) with tokens per block")
    context.add_argument("agent_home", help="the agent's folder (holds context.yaml, system_prompt.md)")
    context.add_argument("--cwd", help="the workspace (default: the current folder)")
    context.add_argument(
        "--allow-exec", action="store_true", help="run computed_file generators (commands from the file)"
    )
    context.add_argument("--json", action="store_true", help="print JSON for scripts")
    tokenizer_arg(context)
    context.set_defaults(func=cmd_context)

    contexts = sub.add_parser(
        "contexts", help="per teammate: its context, the GC and TEAM-MEMORY it receives; --link to an agent home"
    )
    session_args(contexts)
    contexts.add_argument(
        "--link", action="append", default=[], metavar="ROLE=AGENT_HOME", help="link a teammate first (Link…)"
    )
    contexts.add_argument("--workspace", help="with --link: the teammate's workspace (default: its agent home)")
    contexts.add_argument(
        "--allow-exec", action="store_true", help="run computed_file generators (commands from the files)"
    )
    tokenizer_arg(contexts)
    contexts.set_defaults(func=cmd_contexts)

    planning = sub.add_parser("planning", help="selective GSD context for an agent type and phase, with savings")
    planning.add_argument("project", help="a project holding .planning/ (or the .planning folder)")
    planning.add_argument("--agent", required=True, choices=AGENT_TYPES, help="the GSD agent type")
    planning.add_argument("--phase", required=True, help="phase number (3 or 03)")
    planning.add_argument("--plan", help="the PLAN.md whose requirements (front matter or section) are loaded")
    planning.add_argument(
        "--delta", choices=("on", "off"), help="preview with delta context on or off (default: config.json)"
    )
    planning.add_argument("--json", action="store_true", help="print JSON for scripts (with each file's text)")
    tokenizer_arg(planning)
    planning.set_defaults(func=cmd_planning)
