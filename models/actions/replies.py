"""What teammates' unanswered replies ask of the next update, read from every place they are:
the session's inbox files, the linked Claude Code team's inbox and transcript, and the team's
compactions (a teammate presumed to have lost its GC). One reading for the window, ``plan``
and ``publish``: before it was one, only the window's read the team's replies, and a teammate
asking for the full GC there got a delta from the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from models.claude.reviews import Gathered, gather_reviews
from models.claude.status import TeamView
from models.claude.transcript_read import TranscriptFollower
from models.delta.decisions import SECTIONS_GAINED
from models.review.pending import pending_statuses
from models.session.snapshot import SessionView

Pending = dict[str, tuple[str, str]]  # role → (status the update must honour, where it was read)


def pending_from(gathered: Gathered, lost: Mapping[str, tuple[str, str]]) -> Pending:
    """Roles that follow sections their updates did not carry, teammates presumed lost to a
    compaction, then each one's newest unhandled reply (which says more, and wins; each of
    them is a full injection too)."""
    gained = {
        role: (SECTIONS_GAINED, "gained " + ", ".join(f"§{t}" for t in sections))
        for role, sections in gathered.gained.items()
    }
    return {**gained, **lost, **pending_statuses(gathered.reviews, gathered.handled)}


def read_pending(
    session: SessionView, view: TeamView | None, ack_timeout_min: int = 10, follower: TranscriptFollower | None = None
) -> tuple[Pending, Gathered]:
    """``pending_from`` a fresh read of every inbox, recording nothing (a preview writes nothing)."""
    gathered = gather_reviews(session, datetime.now(UTC), ack_timeout_min, record=False, follower=follower)
    return pending_from(gathered, view.lost() if view is not None else {}), gathered
