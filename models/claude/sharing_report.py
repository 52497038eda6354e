"""The cost of sharing context for a linked team: its teammates' and its lead's transcripts
(read by a follower that keeps every response's usage) and, for the savings, the session's GC
versions (``gc-history/``) that each delta or bump could have been sent as in full.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from models.claude.sharing import Alternative, MemberCost, TeamCost, member_cost
from models.claude.status import TeamView
from models.claude.team import Member
from models.claude.transcript_read import Received, TranscriptFollower
from models.claude.transcripts import find_transcript
from models.delta.decisions import render_full, snapshot_path
from models.delta.diff import diff_gc
from models.delta.message import SCOPE_HEADING, render_message
from models.text.textfile import UnreadableFile, decode, read_bounded

_STEP = re.compile(r"GC-v(\d+)\s*→\s*GC-v(\d+)")
_FULL = re.compile(r"GC-v(\d+)\s*\(full injection")
_MAX_GC_BYTES = 16 * 1024 * 1024


def gc_versions(folder: Path, version: int | None, gc_text: str) -> Callable[[int], str | None]:
    """The GC text of a version: the session's GC for its own, else ``gc-history/GC-vN.md``
    (None where that cannot be read); each read once."""
    kept: dict[int, str | None] = {}

    def text_of(v: int) -> str | None:
        if v == version:
            return gc_text
        if v not in kept:
            try:
                raw, _ = read_bounded(snapshot_path(folder, v), _MAX_GC_BYTES)
                kept[v] = decode(raw, f"GC-v{v}.md")[0]
            except (OSError, UnreadableFile):
                kept[v] = None
        return kept[v]

    return text_of


def alternatives(text_of: Callable[[int], str | None], count: Callable[[str], int]) -> Alternative:
    """For a delivered update: the tokens of the full GC of its version and, where a
    subscription narrowed it (a bump, a ``## Not Sent`` block, a full injection of some
    sections), of the whole delta it was cut from; each worked out once per version."""
    fulls: dict[int, int | None] = {}
    wholes: dict[tuple[int, int], int | None] = {}

    def full(v: int) -> int | None:
        if v not in fulls:
            text = text_of(v)
            fulls[v] = count(render_full(text, v)) if text is not None else None
        return fulls[v]

    def whole(old: int, new: int) -> int | None:
        if (old, new) not in wholes:
            before, after = text_of(old), text_of(new)
            wholes[(old, new)] = None
            if before is not None and after is not None:
                result = diff_gc(before, after)
                wholes[(old, new)] = count(render_message(result.delta)) if result.exact else None
        return wholes[(old, new)]

    def alternative(block: Received, kind: str) -> tuple[int | None, int | None]:
        head = block.text.lstrip().split("\n", 1)[0]
        if kind == "full":
            match = _FULL.search(head)
            narrowed = "sections you follow" in head
            return (full(int(match.group(1))) if match and narrowed else None), None
        step = _STEP.search(head)
        if step is None:
            return None, None
        old, new = int(step.group(1)), int(step.group(2))
        narrowed = kind == "bump" or f"\n{SCOPE_HEADING}" in block.text
        return full(new), (whole(old, new) if narrowed else None)

    return alternative


def session_cost(
    view: TeamView,
    follower: TranscriptFollower,
    folder: Path,
    gc_version: int | None,
    gc_text: str,
    count: Callable[[str], int],
) -> TeamCost | None:
    """``team_cost`` with the savings worked out from the session's GC versions: what the
    window and the CLI both show (plain values, so that a worker thread can run it)."""
    return team_cost(view, follower, count, alternatives(gc_versions(folder, gc_version, gc_text), count))


def team_cost(
    view: TeamView, follower: TranscriptFollower, count: Callable[[str], int], alternative: Alternative | None
) -> TeamCost | None:
    """Each linked teammate's spending and the lead's; None where no team is linked. The
    follower must keep spending (``TranscriptFollower(spend=True)``): rows read without it
    are left out, and said."""
    if view.team is None:
        return None
    members: list[MemberCost] = []
    problems: list[str] = []
    for role, row in view.rows.items():
        if row.context is None or row.context.transcript is None:
            continue  # no member linked, or no transcript found: nothing spent that can be read
        cost = member_cost(row.context, count, role, alternative)
        if cost is None:
            problems.append(f"{role}: its transcript was read without its usage")
        elif cost.responses:
            members.append(cost)
    team = view.team
    path = find_transcript(team, Member(team.lead, session_id=team.lead_session)) if team.lead_session else None
    if path is not None:
        lead = follower.read(path, team.lead)
        problems += lead.problems
        cost = member_cost(lead, count)
        if cost is not None and cost.responses:
            members.append(cost)
    return TeamCost(tuple(members), tuple(problems))
