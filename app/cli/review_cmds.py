"""``ack``: read a teammate's reply, and with a session validate it against what was sent."""

from __future__ import annotations

import argparse
import json
import sys

from app.cli.report import (
    review_data,
    review_text,
)
from app.resolve import EXIT_FAILED, EXIT_OK, read_file, resolve_session
from models.review.inbox import Message, sender_from
from models.review.messages import parse_ack, parse_delta_report, parse_status
from models.review.validation import Review, review
from models.session.folder import open_session
from models.text.tokens import get_tokenizer


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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this group's subcommands."""
    ack = sub.add_parser("ack", help="parse a teammate's ACK, STATUS or DELTA report; validate it with --session")
    ack.add_argument("file", help="the message (a file, or - for standard input)")
    ack.add_argument("--session", dest="folder", metavar="SESSION", help="validate against this session")
    ack.add_argument("--session-id", dest="session", help="session id, when the folder holds several")
    ack.add_argument("--from", dest="sender", help="the sender's role id (else a 'From:' line)")
    ack.add_argument("--json", action="store_true", help="print JSON for scripts")
    ack.set_defaults(func=cmd_ack)
