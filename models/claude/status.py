"""Per teammate, what the Lead sees of a linked Claude Code team: the member, the last update
and how far it got, the context the teammate holds, its compactions, and what is due."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from models.claude.following import Followed, follow, presumed_lost
from models.claude.protocol import sender_problem
from models.claude.replies import team_replies
from models.claude.team import Link, Team, map_roles, read_link, read_team, write_link
from models.claude.transcript_read import TeammateContext, TranscriptFollower
from models.claude.transcripts import team_context
from models.review.inbox import read_inbox
from models.review.ledger import read_ledger
from models.review.messages import parse_ack
from models.session.folder import Session


@dataclass
class TeamView:
    """The session's team link as read now, and every teammate's row."""

    team: Team | None
    link: Link | None
    rows: dict[str, TeamRow] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def lead_inbox_stamp(self) -> tuple[int, int] | None:
        """The lead's inbox file as it is now (modification time, size), to tell whether replies
        came since the last look; None without a team or an inbox."""
        if self.team is None:
            return None
        try:
            st = (self.team.inboxes / f"{self.team.lead}.json").stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def lost(self) -> dict[str, tuple[str, str]]:
        """Role → ("CONTEXT_LOST", why) for teammates presumed lost: FC-2 on the next update."""
        return {
            role: ("CONTEXT_LOST", f"presumed: context compacted at {row.lost_since} after its GC was delivered")
            for role, row in self.rows.items()
            if row.lost_since
        }


@dataclass
class TeamRow:
    role: str
    member: str | None
    followed: Followed | None
    context: TeammateContext | None
    lost_since: str | None
    sender: str | None = None  # the name the team sees the Lead's messages from

    @property
    def suggested(self) -> str:
        """The action due, in the Lead's words."""
        f = self.followed
        if self.member is None:
            return "link a member"
        if f is not None and f.held:  # the Lead chose to wait for its compaction
            return "held until its next compaction (it would have tipped it into one)"
        if self.lost_since:
            return f"send the full GC (FC-2: compacted at {self.lost_since})"
        if f is not None and f.undecided:
            return f"decide: Deliver again? ({f.reason})"
        if f is not None and f.delivered_ts is None:
            return "deliver" + (f" (last try: {f.reason})" if f.reason else "")
        if f is not None and f.state == "lost":
            return f"Deliver again: lost ({f.lost_why})"
        if f is not None and f.unreceived(datetime.now(UTC)):
            return f"Deliver again? picked up at {f.delivered_ts}, not in the transcript since"
        if self.context is not None and self.context.pressure:
            return "CONTEXT_PRESSURE: keep the next update small"
        if f is not None and not f.acked:
            waiting = {"received": "wait for the ACK", "picked up": "wait for the model to take it"}
            return waiting.get(f.state, "wait for pickup")
        return "none"

    def data(self) -> dict[str, Any]:
        f, c = self.followed, self.context
        return {
            "role": self.role,
            "member": self.member,
            "last_sent": f"GC-v{f.gc_version}" if f and f.gc_version is not None else None,
            "mode": f.mode if f else None,
            "delivered": f.delivered_ts is not None if f else None,
            "picked_up": f.picked_up if f else None,
            "received": f.received_ts is not None if f else None,
            "received_at": f.received_ts if f else None,
            "lost_at": f.lost_at if f else None,
            "acked": f.acked if f else None,
            "state": f.state if f else None,
            "sender": f.sender if f and f.delivered_ts else None,
            "context_tokens": c.tokens if c else None,
            "context_window": c.window if c else None,
            "context_window_source": c.window_source if c else None,
            "context_pressure": c.pressure if c else False,
            "compactions": list(c.compactions) if c else [],
            "presumed_lost_since": self.lost_since,
            "suggested": self.suggested,
        }


def load_link(
    folder: Path, roles: list[str], team_folder: Path | None = None, remember: bool = True
) -> tuple[Team | None, Link | None, list[str]]:
    """The session's team and link; ``team_folder`` links one (remembered when the session has
    none yet, unless ``remember`` is False: a reader's look) or overrides the remembered one for
    this call."""
    link = read_link(folder)
    problems: list[str] = []
    remembered = False
    copied = link is not None and link.made_for is not None and link.made_for != str(folder.resolve())
    if team_folder is not None:
        chosen = link.members if link is not None and link.team_folder == team_folder else {}
        remembered = link is None or copied  # a copy linked again remembers its own link
        link = Link(team_folder, chosen, link.sender, link.windows) if link else Link(team_folder, chosen)
    elif link is not None and copied:
        why = (
            f"this session was copied from {link.made_for}: its link to {link.team_folder} is not used (link it again)"
        )
        return None, None, [why]
    if link is None:
        return None, None, problems
    if not link.team_folder.is_dir():
        return None, link, [f"{link.team_folder}: the linked team folder is gone"]
    team = read_team(link.team_folder)
    problems += team.problems
    link.members = map_roles(roles, team, link.members)
    if remembered and remember:
        try:
            write_link(folder, link)
        except OSError as exc:
            problems.append(f"the team link was not remembered: {exc.strerror or exc}")
    return team, link, problems


def linked_team(folder: Path, roles: list[str]) -> TeamView:
    """The session's link and its team's config, no row read: where each message would be
    delivered, for a publish asked before the team's full read (its transcripts) came back."""
    team, link, problems = load_link(folder, roles)
    return TeamView(team, link, problems=problems)


def team_now(view: TeamView | None, folder: Path, roles: list[str]) -> TeamView:
    """The team as last read, or, before its first read came back, where its link points: what
    an action prepared meanwhile delivers into (``linked_team``)."""
    return view if view is not None else linked_team(folder, roles)


def team_view_of(
    folder: Path,
    roles: list[str],
    confirmed: dict[str, int],
    team_folder: Path | None = None,
    follower: TranscriptFollower | None = None,
    remember: bool = True,
) -> TeamView:
    """Everything the teammate table and ``lead-console team`` show about the team. Takes plain
    values, not the Session, so that a worker thread can run it while the window reloads.
    ``follower``: the window's, so that a transcript is read by what was appended to it;
    ``remember``: False where ``team_folder`` is only looked at (nothing written)."""
    team, link, problems = load_link(folder, roles, team_folder, remember)
    view = TeamView(team, link, problems=problems)
    ledger = read_ledger(folder)
    windows = link.windows if link else None
    contexts = team_context(team, windows, follower) if team is not None else {}
    for c in contexts.values():
        view.problems += c.problems
    seen = {name: (c.received, c.compactions) for name, c in contexts.items()}
    followed = follow(folder, team, link, confirmed, ledger, acks_received(folder, roles, team, link, follower), seen)
    if team is not None and link is not None:
        warned = sender_problem(link.sender, {m.name for m in team.members})
        if warned is not None:
            view.problems.append(("refused: " if warned[0] else "") + warned[1])
    for role in roles:
        member = (link.members.get(role) or None) if link else None
        context = contexts.get(member) if member else None
        lost = presumed_lost(role, context.compactions, confirmed.get(role), ledger) if context is not None else None
        view.rows[role] = TeamRow(role, member, followed.get(role), context, lost, link.sender if link else None)
    return view


def acks_received(
    folder: Path,
    roles: list[str],
    team: Team | None,
    link: Link | None = None,
    follower: TranscriptFollower | None = None,
) -> set[tuple[str, int]]:
    """(role, version) of every [ACK-UPDATE] read: the session's inbox and the team's replies
    (a member's name read back as the role it is linked to)."""
    messages = read_inbox(folder, roles)
    if team is not None:
        messages += team_replies(team.folder, follower, team)[0]
    role_of = {member: role for role, member in (link.members if link else {}).items() if member}
    out = set()
    for m in messages:
        if m.sender and m.kind == "ack":
            version = parse_ack(m.text).version
            if version is not None:
                out.add((role_of.get(m.sender, m.sender), version))
    return out


def team_view(
    session: Session,
    team_folder: Path | None = None,
    follower: TranscriptFollower | None = None,
    remember: bool = True,
) -> TeamView:
    """``team_view_of`` for an open session."""
    roles = [t.role for t in session.teammates()]
    confirmed = dict(session.plan.teammate_gc_versions) if session.plan else {}
    return team_view_of(session.folder, roles, confirmed, team_folder, follower, remember)
