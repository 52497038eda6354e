"""``ack``: read a teammate's reply, and with a session validate it against what was sent.
``inbox``: every reply of a session reviewed as the window's Inbox reviews it, and Carry out."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from app.cli.common import session_args, warn_all
from app.cli.report import (
    review_data,
    review_text,
)
from app.resolve import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, read_file, resolve_session
from models.actions.carry import CarriedAlready, prepare_carry_out
from models.actions.commit import commit
from models.actions.deliver import commit_delivery
from models.actions.paste import PasteError, prepare_paste
from models.actions.reply import prepare_reply
from models.claude.reviews import gather_reviews
from models.claude.status import linked_team
from models.claude.transcript_cache import cached_follower, keep
from models.review.inbox import Message, sender_from
from models.review.ledger import Handled
from models.review.messages import parse_ack, parse_delta_report, parse_status
from models.review.rows import action_line, kind_label, message_id, summary_line
from models.review.validation import DEFAULT_ACK_TIMEOUT_MIN, Review, review
from models.session.folder import open_session
from models.text.tokens import get_tokenizer
from models.text.transaction import WriteRefused


def cmd_ack(args: argparse.Namespace) -> int:
    """Parse a teammate's message (ACK, STATUS or DELTA report); with a session, validate it."""
    text = sys.stdin.read() if args.file == "-" else read_file(args.file).text
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


def inbox_data(reviews: list[Review], handled: Handled, pings: dict[str, str]) -> dict[str, Any]:
    """What ``inbox`` prints: each message as the Inbox's row says it, with the fields read."""
    rows = []
    for r in reviews:
        done = handled.get((r.message.source, r.message.sha))
        rows.append(
            {
                "id": message_id(r),
                "source": r.message.source,
                "time": r.message.timestamp,
                "kind": kind_label(r),
                "summary": summary_line(r),
                "action": action_line(r, done),
                "done": done,
            }
            | {k: v for k, v in review_data(r).items() if k in ("from", "fields", "problems", "lead_action")}
        )
    return {"messages": rows, "ping_due": pings}


def _inbox_text(data: dict[str, Any]) -> str:
    rows = data["messages"]
    out = [f"Inbox ({len(rows)} messages)"]
    for row in rows:
        action = f"  → {row['action']}" if row["action"] else ""
        out.append(f"  {row['id']}  {row['from'] or '?':<18} {row['kind']:<8} {row['summary']}{action}")
    out += [f"  ping due: {role} (no ACK since {since})" for role, since in sorted(data["ping_due"].items())]
    return "\n".join(out)


def cmd_inbox(args: argparse.Namespace) -> int:
    """List the session's replies as the Inbox does; ``--carry-out ID`` does the Lead's action
    for one, as the window's Carry out does (and records the replies in the ledger first, as
    the window does when it reads them; a listing writes nothing)."""
    session = open_session(resolve_session(args.folder, args.session), get_tokenizer("estimate"))
    if args.add is not None:  # the window's Paste message…: into messages/inbox/, then listed
        text = sys.stdin.read() if args.add == "-" else read_file(args.add).text
        roles = [t.role for t in session.teammates()]
        try:
            preview = prepare_paste(session, text, args.sender or sender_from("", text, roles))
            commit(preview)
        except PasteError as exc:
            raise UsageError(str(exc)) from None
        except WriteRefused as exc:
            print(f"lead-console: {preview.title}: nothing was written: {exc}", file=sys.stderr)
            return EXIT_FAILED
        print(f"saved as {preview.writes[0].path}", file=sys.stderr)
        session.reload({"inbox"})
    wanted = args.carry_out if args.carry_out is not None else args.reply
    acting = wanted is not None
    record = acting and not args.dry_run  # a dry run writes nothing, not even what was read
    follower = cached_follower(session.folder)
    gathered = gather_reviews(session, datetime.now(UTC), args.ack_timeout, record=record, follower=follower)
    if record:
        keep(follower, session.folder)  # what was read of the lead's transcript, for the next run
    warn_all(gathered.problems)
    reviews = [r for r in gathered.reviews if r.message.kind != "protocol"]  # idle notices: not shown
    if not acting:
        data = inbox_data(reviews, gathered.handled, gathered.pings)
        print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else _inbox_text(data))
        return EXIT_OK
    matches = [r for r in reviews if message_id(r).startswith(wanted)]
    if len(matches) != 1:
        said = "no message has" if not matches else f"{len(matches)} messages have"
        print(f"lead-console: {said} the id {wanted} (see 'lead-console inbox')", file=sys.stderr)
        return EXIT_USAGE
    (result,) = matches
    team = linked_team(session.folder, list(session.roles())) if args.deliver else None
    if args.deliver and team is not None and team.team is None:
        raise UsageError("--deliver needs a linked team: give 'team SESSION --team ~/.claude/teams/<team>/' first")
    if args.reply is not None:
        if args.text is None:
            raise UsageError("--reply needs --text FILE (or - for standard input): the reply's words")
        words = sys.stdin.read() if args.text == "-" else read_file(args.text).text
        preview = prepare_reply(session, result, words, team=team)
    else:
        try:
            preview = prepare_carry_out(session, result, again=args.again, team=team)
        except CarriedAlready as exc:
            print(
                f"lead-console: carried out already ({exc.done}); --again does it again "
                "(a second re-send, second ledger lines)",
                file=sys.stderr,
            )
            return EXIT_USAGE
    if args.dry_run:
        print(json.dumps(preview.data(), ensure_ascii=False, indent=2) if args.json else preview.text())
        return EXIT_OK
    doing = "reply" if args.reply is not None else f"carry out {result.action}"
    try:
        commit(preview)
    except WriteRefused as exc:
        print(f"lead-console: Could not {doing}: {exc}. Nothing was changed.", file=sys.stderr)
        return EXIT_FAILED
    outcomes = commit_delivery(preview) if preview.deliveries else []
    path = dict(preview.messages).get(result.message.sender or "?")
    written = str(path) if path is not None else None
    delivered = [{"member": o.member, "delivered": o.delivered, "reason": o.reason} for o in outcomes]
    if args.json:
        key = "reply" if args.reply is not None else "resend"
        done_data = {"id": message_id(result), "action": "reply" if args.reply else result.action, key: written}
        print(json.dumps(done_data | {"deliveries": delivered}, ensure_ascii=False, indent=2))
    else:
        kept = f"; {'reply' if args.reply is not None else 're-send'} in {written}" if written else ""
        into = "".join(
            f"; delivered to {o.member}" if o.delivered else f"; not delivered: {o.reason}" for o in outcomes
        )
        did = "reply" if args.reply is not None else result.action
        print(f"{did} for {result.message.sender or '?'}: done{kept}{into}")
    return EXIT_OK if all(o.delivered for o in outcomes) else EXIT_FAILED


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    ack = sub.add_parser("ack", help="parse a teammate's ACK, STATUS or DELTA report; validate it with --session")
    ack.add_argument("file", help="the message (a file, or - for standard input)")
    ack.add_argument("--session", dest="folder", metavar="SESSION", help="validate against this session")
    ack.add_argument("--session-id", dest="session", help="session id, when the folder holds several")
    ack.add_argument("--from", dest="sender", help="the sender's role id (else a 'From:' line)")
    ack.add_argument("--json", action="store_true", help="print JSON for scripts")
    ack.set_defaults(func=cmd_ack)
    inbox = sub.add_parser(
        "inbox", help="every reply reviewed, with the Lead's action; --carry-out ID does it, --reply ID answers"
    )
    session_args(inbox)
    inbox.add_argument("--carry-out", metavar="ID", help="do the Lead's action for this message (its id, or a prefix)")
    inbox.add_argument("--again", action="store_true", help="with --carry-out: again, for one carried out already")
    inbox.add_argument("--reply", metavar="ID", help="reply to this message in your own words (--text)")
    inbox.add_argument("--text", metavar="FILE", help="with --reply: the reply (a file, or - for standard input)")
    inbox.add_argument(
        "--deliver", action="store_true", help="with --carry-out or --reply: also into the linked team's inbox"
    )
    inbox.add_argument(
        "--dry-run", action="store_true", help="with --carry-out or --reply: print what it would write; write nothing"
    )
    inbox.add_argument("--add", metavar="FILE", help="save a message into the inbox first (a file, or - for stdin)")
    inbox.add_argument("--from", dest="sender", help="with --add: the sender's role id (else a 'From:' line)")
    inbox.add_argument(
        "--ack-timeout",
        type=int,
        default=DEFAULT_ACK_TIMEOUT_MIN,
        metavar="MIN",
        help=f"a teammate sent an update with no ACK for this long is due a ping (default {DEFAULT_ACK_TIMEOUT_MIN})",
    )
    inbox.set_defaults(func=cmd_inbox)
