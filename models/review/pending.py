"""Requests waiting in the inbox that the next update must honour before the Lead acts on them.

An [ACK-UPDATE] with NEED_CLARIFICATION, or a [STATUS] CONTEXT_LOST, means the teammate needs
the full GC (FC-5, FC-2). Before Carry out records that in the plan, an update composed
meanwhile would go out as a delta; so each teammate's newest unhandled reply counts at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from models.review.ledger import Handled
from models.review.validation import Review

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
