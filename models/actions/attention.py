"""What needs the Lead, in one list, most urgent first, each with the one action that answers it.

Gathered from what the window already read: the Inbox's reviews and what was handled, the
teammates (their status), the linked Claude Code team's delivery states, pings due, and a gate
being evaluated. Nothing here decides anew: each item says where its fact came from.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from models.claude.status import TeamView
from models.delta.decisions import snapshot_versions
from models.review.validation import Review
from models.session.snapshot import SessionView
from models.session.teammates import Teammate

Action = Literal["carry-out", "reply", "deliver-again", "deliver", "ping", "conclude-gate", "show-next", "baseline"]
# What an Inbox reply asks of the Lead (the review's action), and how urgent it is.
REPLY_ACTIONS = {"lost": 0, "attention": 1, "full": 2, "resend": 2, "guide": 3, "confirm": 5}
ORDER = {"adopt": -1, "lost": 0, "reply": 1, "blocked": 2, "delivery": 3, "ping": 4, "gate": 5}


@dataclass(frozen=True)
class Attention:
    """One thing the Lead has to do: what, for whom, since when, and how."""

    kind: Literal["adopt", "lost", "reply", "blocked", "delivery", "ping", "gate"]
    role: str | None
    what: str
    action: Action | None  # None: only the Lead can answer it (a blocked teammate)
    since: str | None = None
    source: str | None = None  # the reply's source, for "carry-out"
    urgency: int = 9

    @property
    def action_label(self) -> str:
        return {
            "carry-out": "Carry out",
            "reply": "Reply…",
            "baseline": "Baseline…",
            "deliver-again": "Deliver again",
            "deliver": "Deliver",
            "ping": "Ping",
            "conclude-gate": "Conclude gate…",
            "show-next": "Show its next update",
            None: "—",
        }[self.action]


def needs_lead(
    reviews: Iterable[Review],
    handled: Collection[tuple[str, str]],
    teammates: Iterable[Teammate],
    pings: Mapping[str, str],
    team: TeamView | None = None,
    gate: Mapping[str, object] | None = None,
    now: datetime | None = None,
    unadopted: str | None = None,
) -> list[Attention]:
    """Every item, most urgent first (a lost context before a reply, before a ping).
    ``unadopted`` says why the session has no snapshot to compute deltas from (a session run
    by hand until now): taking one comes before anything else."""
    out: list[Attention] = []
    if unadopted is not None:
        out.append(Attention("adopt", None, unadopted, "baseline"))
    for r in reviews:
        done = (r.message.source, r.message.sha) in handled
        if done or r.action not in REPLY_ACTIONS:
            continue
        kind: Literal["lost", "reply"] = "lost" if r.action == "lost" else "reply"
        what = r.summary or f"{r.action} for {r.message.sender}"
        consult = r.report is not None and r.report.attention and r.action == "attention"
        out.append(
            Attention(
                kind,
                r.message.sender,
                what,
                "reply" if consult else "carry-out",  # a decision asked for is answered in words
                r.message.timestamp,
                r.message.source,
                REPLY_ACTIONS[r.action],
            )
        )
    asked = {a.role for a in out if a.kind == "lost"}
    linked = team is not None and team.link is not None and team.team is not None  # else nothing is delivered
    for role, row in team.rows.items() if team is not None and linked else ():
        if row.lost_since and role not in asked:
            what = f"compacted at {row.lost_since} after its GC arrived: its next update is the full GC (FC-2)"
            out.append(Attention("lost", role, what, "show-next", row.lost_since, urgency=0))
        f = row.followed
        if f is None or f.acked:
            continue
        moment = now or datetime.now(UTC)
        if f.state in ("undelivered", "undecided"):
            action: Action = "deliver" if f.state == "undelivered" else "deliver-again"
            why = f.reason or f"not yet in {f.member or role}'s inbox"
            out.append(Attention("delivery", role, f"GC-v{f.gc_version} {f.state}: {why}", action, f.sent_ts))
        elif f.state == "lost" or f.unreceived(moment):
            why = f"lost: {f.lost_why}" if f.state == "lost" else "picked up, never received"
            out.append(Attention("delivery", role, f"GC-v{f.gc_version} {why}", "deliver-again", f.delivered_ts))
    for mate in teammates:
        if mate.status == "BLOCKED":
            out.append(Attention("blocked", mate.role, "reported BLOCKED", None))
    for role, since in pings.items():
        out.append(Attention("ping", role, f"no ACK since {since}", "ping", since))
    if gate:
        phase = gate.get("phase", "?")
        out.append(Attention("gate", None, f"the gate of phase {phase} waits for a verdict", "conclude-gate"))
    return sorted(out, key=lambda a: (ORDER[a.kind], a.urgency, a.since or ""))


def unadopted(session: SessionView) -> str | None:
    """Why Needs you offers a baseline: the GC names a version that gc-history has no snapshot
    of (every session an agent Lead ran by hand), so no delta can be proven from it. None when
    there is one, or no versioned GC to take it of."""
    gc = session.gc
    if gc is None or gc.version is None or gc.version in snapshot_versions(session.folder):
        return None
    return (
        f"GC-v{gc.version} has no snapshot in gc-history/: take a baseline, so that the next update is a "
        "delta from what teammates hold"
    )
