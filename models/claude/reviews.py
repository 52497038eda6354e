"""One pass over everything teammates sent: read, record in the ledger, review.

This is the work behind the Inbox. It reads every inbox file, the linked Claude Code team's
replies and the ledger, so the window runs it on a worker thread: it takes the session and
plain values, never a widget, and returns one result that the GUI thread shows. It sits with
the team code because it reads the team's replies beside the session's own inbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from models.claude.replies import team_replies
from models.claude.status import load_link
from models.claude.transcript_read import TranscriptFollower
from models.review.inbox import read_inbox
from models.review.ledger import Handled, LedgerUnreadable, handled_keys, read_ledger, record_received
from models.review.pending import sections_gained
from models.review.validation import Review, due_pings, review
from models.session.ledger_records import LEDGER
from models.session.snapshot import SessionView
from models.text.problems import Problem


@dataclass(frozen=True)
class Gathered:
    """The Inbox as of one pass: reviews oldest first, what the ledger says was carried out,
    and the teammates due a ping. (A team that cannot be read is said by the team's own view.)"""

    reviews: list[Review]
    handled: Handled
    pings: dict[str, str]
    problems: list[Problem] = field(default_factory=list)  # inbox entries that could not be read
    gained: dict[str, tuple[str, ...]] = field(default_factory=dict)  # sections whose text a role lacks


def gather_reviews(
    session: SessionView,
    now: datetime,
    ack_timeout_min: int,
    record: bool = True,
    follower: TranscriptFollower | None = None,
) -> Gathered:
    """Read the session's inboxes and its team's replies, record new messages (unless not to
    ``record``: a command that only lists them writes nothing), review them all. ``follower``:
    what earlier reads of the lead's transcript kept.

    The team link is read here too, not on the caller's thread.
    """
    roles = [t.role for t in session.teammates()]
    problems: list[Problem] = []
    messages = read_inbox(session.folder, roles, problems)
    _, link, _ = load_link(session.folder, roles)
    if link is not None and link.team_folder.is_dir():
        messages += team_replies(link.team_folder, follower)[0]
    if record:
        try:
            record_received(session.folder, messages)
        except LedgerUnreadable as exc:
            problems.append(Problem("warning", LEDGER.name, f"{exc.strerror}; replies are read, not recorded"))
    messages.sort(key=lambda m: m.timestamp or "")  # oldest first: the newest ACK wins in the table
    reviews = [review(m, session) for m in messages]
    pings = due_pings(session, now, ack_timeout_min)
    gained = sections_gained(read_ledger(session.folder), session)
    return Gathered(reviews, handled_keys(session.folder), pings, problems, gained)
