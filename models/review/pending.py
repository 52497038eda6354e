"""Requests waiting in the inbox that the next update must honour before the Lead acts on them.

An [ACK-UPDATE] with NEED_CLARIFICATION, or a [STATUS] CONTEXT_LOST, means the teammate needs
the full GC (FC-5, FC-2). Before Carry out records that in the plan, an update composed
meanwhile would go out as a delta; so each teammate's newest unhandled reply counts at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.review.ledger import Handled
from models.review.validation import Review
from models.session.refs import norm
from models.session.snapshot import SessionView

WANTS_FULL = {"full": "NEED_CLARIFICATION", "resend": "NEED_CLARIFICATION", "lost": "CONTEXT_LOST"}


def pending_statuses(reviews: Iterable[Review], handled: Handled) -> dict[str, tuple[str, str]]:
    """Role → (status, where it was read) from each teammate's newest reply not yet handled;
    ``reviews`` oldest first."""
    newest: dict[str, Review] = {}
    for r in reviews:
        if r.message.sender is not None and (r.ack is not None or r.status is not None):
            newest[r.message.sender] = r
    out: dict[str, tuple[str, str]] = {}
    for role, r in newest.items():
        if (r.message.source, r.message.sha) in handled:
            continue
        status = WANTS_FULL.get(r.action)
        if status is None and r.ack is not None and (r.ack.action or "").upper() == "NEED_CLARIFICATION":
            status = "NEED_CLARIFICATION"
        if status is None and r.status is not None and (r.status.status or "").upper() == "CONTEXT_LOST":
            status = "CONTEXT_LOST"
        if status is not None:
            out[role] = (status, f"unanswered message {r.message.source}")
    return out


def sections_gained(ledger: Iterable[dict[str, Any]], session: SessionView) -> dict[str, tuple[str, ...]]:
    """Role → the GC sections it follows now whose text its updates have not carried, from the
    ``follows`` of each ``sent`` line in order: a full injection holds the text of what it
    covered, a delta keeps current only the sections it covered (the rest go stale). A role
    with no such line (sent before this was recorded) is taken to hold every section."""
    gc, subscriptions = session.gc, session.subscriptions
    if gc is None or subscriptions is None:
        return {}
    held: dict[str, set[str] | None] = {}  # None: every section
    for e in ledger:
        role, covered = e.get("to"), e.get("follows", "absent")
        if e.get("direction") != "sent" or not isinstance(role, str) or covered == "absent":
            continue
        sections = {norm(t) for t in covered if isinstance(t, str)} if isinstance(covered, list) else None
        before = held.get(role)
        if e.get("mode") == "full" or sections is None:
            held[role] = sections if e.get("mode") == "full" else before
        else:
            held[role] = sections if before is None else before & sections
    titles = [s.title for s in gc.sections]
    out: dict[str, tuple[str, ...]] = {}
    for role, have in held.items():
        if have is None:
            continue
        follows = subscriptions.follows(role)
        wanted = titles if follows is None else [t for t in titles if norm(t) in {norm(f) for f in follows}]
        gained = tuple(t for t in wanted if norm(t) not in have)
        if gained:
            out[role] = gained
    return out
