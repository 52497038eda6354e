"""Claude Code teams headless: ``publish`` (the window's publish, with delivery) and ``team``.

An LLM Lead or a script publishes an exact delta with one command instead of writing one by
hand; ``team`` says per teammate what was sent, whether it was picked up and ACKed, the context
the teammate holds and what is due.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.cli.common import load_session, session_args, tokenizer_arg, warn_all
from app.cli.sharing_output import sharing_of, sharing_text
from app.resolve import EXIT_FAILED, EXIT_OK, UsageError, read_file
from models.actions.commit import commit
from models.actions.deliver import commit_delivery, prepare_delivery, prepare_ping
from models.actions.preview import Preview
from models.actions.publish import FIT_CHOICES, FitChoice, prepare_publish
from models.actions.replies import read_pending
from models.claude.delivery import Outcome
from models.claude.protocol import DEFAULT_SENDER, READ_FROM, sender_problem
from models.claude.status import TeamView, load_link, team_view
from models.claude.team import write_link
from models.claude.transcript_cache import cached_follower, keep
from models.publish.composer import Composer, missing_gc
from models.session.folder import Session
from models.text.intent import read_interrupted
from models.text.transaction import WriteRefused


def _team_folder(args: argparse.Namespace) -> Path | None:
    if not args.team:
        return None
    folder = Path(args.team).expanduser()
    if not (folder / "config.json").is_file():
        raise UsageError(f"{folder}: no config.json; a team folder is ~/.claude/teams/<team>/")
    return folder


def _fit_choices(wishes: list[str] | None) -> dict[str, FitChoice]:
    """``--fit ROLE=CHOICE`` read: what to do for a teammate the update would tip into a compaction."""
    out: dict[str, FitChoice] = {}
    for wish in wishes or []:
        role, _, choice = wish.partition("=")
        found = next((c for c in FIT_CHOICES if c == choice.strip().lower()), None)
        if not role.strip() or found is None:
            raise UsageError(f"--fit {wish}: give ROLE=anyway, ROLE=sections or ROLE=hold")
        out[role.strip()] = found
    return out


def cmd_publish(args: argparse.Namespace) -> int:
    """Publish the session's GC (or --new's text) as the window does; --deliver into inboxes."""
    session = load_session(args)
    interrupted = read_interrupted(session.folder)  # before "nothing to publish", which it may cause
    if interrupted is not None:
        print(f"Nothing was published:\n  {interrupted.describe(session.folder)}")
        return EXIT_FAILED
    follower = cached_follower(session.folder)
    view = team_view(session, _team_folder(args), follower)
    composer = Composer.open(session)
    if args.new:
        composer.working_text = read_file(args.new).text
    composer.pending, gathered = read_pending(session, view, follower=follower)
    if not args.dry_run:
        keep(follower, session.folder)
    warn_all(gathered.problems)
    if not composer.has_update:
        missing = missing_gc(session)
        why = missing if missing is not None else "the GC is the last published one"
        if missing is None and composer.disk_base:
            why = f"GC-v{composer.base_version} on disk has no gc-history snapshot and is the version teammates hold"
        raise UsageError(f"nothing to publish: {why} (give --new GC.md)")
    choices = _fit_choices(args.fit)
    preview = prepare_publish(composer, add_meta=args.add_meta, team=view, fit_choices=choices)
    rows: list[dict[str, Any]] = [
        {
            "role": d.role,
            "member": (view.link.members.get(d.role) or None) if view.link else None,
            "mode": d.mode,
            "tokens": d.tokens,
            "conditions": [f"{c.code}: {c.reason}" for c in d.conditions],
            "delivered": None,
        }
        for d in preview.decisions
        if d.mode in ("delta", "full")
    ]
    version = preview.version
    data: dict[str, Any] = {"version": version, "dry_run": args.dry_run, "recipients": rows}
    data["blocked"], data["problems"] = list(preview.refusals), view.problems
    data["preview"] = preview.data()
    if args.deliver and view.team is None:
        raise UsageError("--deliver needs a linked team: give --team ~/.claude/teams/<team>/")
    if not args.dry_run:
        try:
            commit(preview)
        except WriteRefused as exc:
            data["blocked"] = exc.reasons
            _print_publish(args, data, preview.text())
            return EXIT_FAILED
        except OSError as exc:
            data["blocked"] = [f"publishing stopped: {exc}"]
            _print_publish(args, data, preview.text())
            return EXIT_FAILED
        if args.deliver:
            by_role = {o.role: o for o in commit_delivery(preview)}  # as its preview showed them
            for row in rows:
                if choices.get(row["role"]) == "hold":
                    row["reason"] = "held until its next compaction"
                    continue
                outcome = by_role.get(row["role"])
                row["delivered"] = outcome.delivered if outcome else False
                row["reason"] = outcome.reason if outcome else "not sent"
                row["lock_waited_ms"] = outcome.lock_waited_ms if outcome else 0  # a busy inbox delays
    _print_publish(args, data, preview.text())
    failed = any(row["delivered"] is False for row in rows)
    return EXIT_FAILED if failed else EXIT_OK


def _print_publish(args: argparse.Namespace, data: dict[str, Any], dry: str) -> None:
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if data["blocked"]:
        print("Nothing was published:\n  " + "\n  ".join(data["blocked"]))
        return
    verb = "Would publish" if data["dry_run"] else "Published"
    print(f"{verb} GC-v{data['version']} to {len(data['recipients'])} teammates")
    for r in data["recipients"]:
        member = f" → {r['member']}" if r["member"] else ""
        state = {None: "", True: "  delivered", False: f"  NOT delivered: {r.get('reason')}"}[r["delivered"]]
        state = state or (f"  {r['reason']}" if r.get("reason") else "")
        print(f"  {r['role']:<16}{member:<20} {r['mode']:<6} {r['tokens']:>7,} tok{state}")
    if data["dry_run"]:
        print(dry)
    for p in data["problems"]:
        print(f"  problem: {p}")


def _choose_members(session: Session, args: argparse.Namespace) -> None:
    """``--map ROLE=MEMBER`` (``ROLE=`` for none): the Lead's choices, kept with the link."""
    roles = [t.role for t in session.teammates()]
    team, link, _ = load_link(session.folder, roles, _team_folder(args))
    if team is None or link is None:
        raise UsageError("no team to map members of: give --team ~/.claude/teams/<team>/")
    names = {m.name for m in team.members}
    for pair in args.map:
        role, _, member = pair.partition("=")
        if role not in roles:
            raise UsageError(f"--map {pair}: {role} is no teammate of this session")
        if member and member not in names:
            raise UsageError(
                f"--map {pair}: {member} is no member of team {team.name} (one of {', '.join(sorted(names))})"
            )
        link.members[role] = member
    write_link(session.folder, link)


def _set_link(session: Session, args: argparse.Namespace) -> None:
    """``--sender NAME`` and ``--window MEMBER=TOKENS`` (``MEMBER=`` drops it), kept with the link."""
    roles = [t.role for t in session.teammates()]
    team, link, _ = load_link(session.folder, roles, _team_folder(args))
    if team is None or link is None:
        raise UsageError("no team to set this for: give --team ~/.claude/teams/<team>/")
    if args.sender is not None:
        refused = sender_problem(args.sender, {m.name for m in team.members})
        if refused is not None and refused[0]:
            raise UsageError(f"--sender {args.sender}: {refused[1]}")
        if refused is not None:
            print(f"warning: {refused[1]}", file=sys.stderr)
        link.sender = args.sender
    names = {m.name for m in team.members}
    for pair in args.window:
        member, _, size = pair.partition("=")
        if member not in names:
            raise UsageError(f"--window {pair}: {member} is no member of team {team.name}")
        if not size:
            link.windows.pop(member, None)
        elif not size.isdigit() or int(size) < 1000:
            raise UsageError(f"--window {pair}: give the window in tokens, e.g. {member}=1000000")
        else:
            link.windows[member] = int(size)
    write_link(session.folder, link)


def cmd_team(args: argparse.Namespace) -> int:
    """Per teammate: member, last update and its delivery, context, compactions, what is due."""
    session = load_session(args)
    if args.map:
        _choose_members(session, args)
    if args.sender is not None or args.window:
        _set_link(session, args)
    failed = False  # a ping not delivered
    follower = cached_follower(session.folder, spend=args.cost)  # a second run reads what the transcripts gained
    view = team_view(session, _team_folder(args), follower)
    if view.link is None:
        why = f" ({view.problems[0]})" if view.problems else ""
        raise UsageError(f"this session is linked to no Claude Code team{why}: give --team ~/.claude/teams/<team>/")
    link = view.link
    previews: list[Preview] = []
    if args.deliver or args.deliver_again or args.ping:
        failed = _deliveries(session, args, view, previews)
        view = team_view(session, _team_folder(args), follower)
    cost = sharing_of(session, follower=follower, view=view) if args.cost else None
    keep(follower, session.folder)
    rows = [row.data() for row in view.rows.values()]
    if args.json:
        data: dict[str, Any] = {
            "team": view.team.name if view.team else None,
            "sender": link.sender,
            "lead": view.team.lead if view.team else None,
            "protocol_read_from": READ_FROM,
            "teammates": rows,
            "problems": view.problems,
        }
        if args.dry_run:
            data["previews"] = [p.data() for p in previews]
        if cost is not None:
            data["cost"] = cost.data()
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return EXIT_FAILED if failed else EXIT_OK
    name = view.team.name if view.team else "?"
    print(f"Team {name} ({link.team_folder}); it sees the Lead's messages from {link.sender}")
    for r in rows:
        tokens = f"{r['context_tokens']:,}/{r['context_window'] // 1000}k" if r["context_tokens"] is not None else "—"
        print(
            f"  {r['role']:<16} {r['member'] or '(no member)':<16} {r['last_sent'] or '—':<7}"
            f" {_state(r):<12} context {tokens:<14} compactions {len(r['compactions'])}  due: {r['suggested']}"
        )
    for p in view.problems:
        print(f"  problem: {p}")
    if cost is not None:
        print(sharing_text(cost))
    return EXIT_FAILED if failed else EXIT_OK


def _state(r: dict[str, Any]) -> str:
    return str(r["state"] or "—")


def _deliveries(session: Session, args: argparse.Namespace, view: TeamView, previews: list[Preview]) -> bool:
    """``--deliver`` (every update still undelivered), ``--deliver-again ROLE`` and ``--ping
    ROLE``, each prepared and shown (``--dry-run``) or committed; whether any was not delivered
    (each said on stderr)."""
    for flag, roles in (("--deliver-again", args.deliver_again), ("--ping", args.ping)):
        unknown = [r for r in roles if r not in view.rows]
        if unknown:
            raise UsageError(f"{flag} {unknown[0]}: no teammate of this session")
    if args.deliver or args.deliver_again:
        previews.append(prepare_delivery(session.folder, view, args.deliver_again, due=args.deliver))
    previews += [prepare_ping(session.folder, view, role) for role in args.ping]
    failed = False
    for preview in previews:
        if args.dry_run:
            if not args.json:
                print(preview.text())
            continue
        try:
            outcomes = commit_delivery(preview)
        except WriteRefused as exc:
            raise UsageError("; ".join(exc.reasons)) from None
        _say(preview.action, outcomes)
        failed = failed or any(not o.delivered for o in outcomes)
    return failed


def _say(action: str, outcomes: list[Outcome]) -> None:
    """On stderr: each ping's outcome, and each delivery that did not happen."""
    for o in outcomes:
        if action == "ping":
            said = f"delivered to {o.member}" if o.delivered else f"not delivered: {o.reason}"
            print(f"ping {o.role}: {said}", file=sys.stderr)
        elif not o.delivered:
            print(f"deliver {o.role}: not delivered: {o.reason}", file=sys.stderr)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    publish = sub.add_parser("publish", help="publish the GC (or --new) as the window does; --deliver to the team")
    session_args(publish)
    publish.add_argument("--new", help="the next GC's text (default: the session's GC as it is)")
    publish.add_argument("--dry-run", action="store_true", help="say what would be written and sent; write nothing")
    publish.add_argument("--deliver", action="store_true", help="deliver each message into its member's inbox")
    publish.add_argument(
        "--add-meta",
        action="store_true",
        help="add a ## Meta section to a TEAM-MEMORY.md that has none, to keep its GC Version (ADR-001 §4)",
    )
    publish.add_argument("--team", help="the Claude Code team folder (links the session, or overrides its link)")
    publish.add_argument(
        "--fit",
        action="append",
        metavar="ROLE=CHOICE",
        help="for a teammate the update would tip into a compaction: anyway, sections (only the sections it "
        "follows) or hold (delivered after its next compaction); repeatable",
    )
    tokenizer_arg(publish)
    publish.set_defaults(func=cmd_publish)

    team = sub.add_parser("team", help="per teammate: member, delivery, pickup, ACK, context and what is due")
    session_args(team)
    team.add_argument("--team", help="the Claude Code team folder (links the session, or overrides its link)")
    team.add_argument("--deliver", action="store_true", help="deliver every update still undelivered (retry)")
    team.add_argument(
        "--dry-run",
        action="store_true",
        help="show what --deliver, --deliver-again and --ping would write; write nothing",
    )
    team.add_argument(
        "--deliver-again",
        action="append",
        default=[],
        metavar="ROLE",
        help="write ROLE's last update once more (lost, undecided, or never received); exit 1 if not delivered",
    )
    team.add_argument(
        "--cost",
        action="store_true",
        help="add the cost of sharing context: per teammate and the lead, spent on the team's context "
        "against work, priced by cache tier, and what deltas and subscriptions saved",
    )
    team.add_argument("--sender", help=f"the name the team sees the Lead's messages from (default {DEFAULT_SENDER})")
    team.add_argument(
        "--window",
        action="append",
        default=[],
        metavar="MEMBER=TOKENS",
        help="MEMBER's context window, where the model and transcript say otherwise (MEMBER= to drop)",
    )
    team.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="ROLE=MEMBER",
        help="deliver ROLE's updates to MEMBER (ROLE= for none)",
    )
    team.add_argument(
        "--ping",
        action="append",
        default=[],
        metavar="ROLE",
        help="deliver ROLE a reminder to ACK its last update (the table's Ping); exit 1 if not delivered",
    )
    tokenizer_arg(team)
    team.set_defaults(func=cmd_team)
