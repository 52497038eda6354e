"""The cost of sharing context on the command line (``team --cost``, ``savings``): worked out
from the linked team's transcripts by ``models.claude.sharing_report``, printed as a table."""

from __future__ import annotations

from pathlib import Path

from models.claude.sharing import KIND_TITLES, KINDS, TeamCost, usd
from models.claude.sharing_report import session_cost
from models.claude.status import TeamView, team_view
from models.claude.transcript_read import TranscriptFollower
from models.session.folder import Session


def sharing_of(
    session: Session,
    team_folder: Path | None = None,
    follower: TranscriptFollower | None = None,
    view: TeamView | None = None,
) -> TeamCost | None:
    """The team's cost of sharing context (None: no team linked); nothing is written (a
    ``team_folder`` given is looked at, not remembered). ``follower``: one that keeps spending
    (``cached_follower(..., spend=True)``), else a fresh one reads every transcript; ``view``:
    the team as that follower just read it."""
    follower = follower if follower is not None else TranscriptFollower(spend=True)
    view = view if view is not None else team_view(session, team_folder, follower, remember=False)
    gc = session.gc
    version, text = (gc.version, gc.text) if gc is not None else (None, "")
    return session_cost(view, follower, session.folder, version, text, session.tokenizer.count)


def sharing_text(cost: TeamCost) -> str:
    """Per member: spent, on work, on the team's context (and its share), and what deltas and
    subscriptions saved; then the team."""
    lines = ["The cost of sharing context (priced by cache tier; Claude Code's own prices):"]
    header = (
        f"  {'member':<16} {'spent':>10} {'work':>10} {'context':>10} {'share':>6}  {'saved: deltas':>13} {'subs':>8}"
    )
    lines.append(header)
    for m in cost.members:
        lines.append(
            f"  {m.name:<16} {usd(m.total.usd):>10} {usd(m.work.usd):>10} {usd(m.coordination.usd):>10}"
            f" {100 * m.share:>5.1f}%  {usd(m.saved_by_deltas.usd):>13} {usd(m.saved_by_subscriptions.usd):>8}"
        )
        parts = [f"{KIND_TITLES[k]} {usd(m.by_kind[k].usd)}" for k in KINDS if k in m.by_kind and m.by_kind[k].tokens]
        if parts:
            lines.append(f"  {'':<16} context: {', '.join(parts)}")
        if m.unpriced:
            lines.append(f"  {'':<16} not priced (no price known): {', '.join(m.unpriced)}")
    total, work, shared = cost.part("total"), cost.part("work"), cost.part("coordination")
    lines.append(
        f"  {'team':<16} {usd(total.usd):>10} {usd(work.usd):>10} {usd(shared.usd):>10} {100 * cost.share:>5.1f}%"
        f"  {usd(cost.part('saved_by_deltas').usd):>13} {usd(cost.part('saved_by_subscriptions').usd):>8}"
    )
    lines += [f"  problem: {p}" for p in cost.problems]
    return "\n".join(lines)
