"""Which transcript is a team member's, each member's context as its transcript shows it
(``models.claude.transcript_read``), and the replies the lead's transcript keeps.

A pane teammate's session id is recorded nowhere in the team folder (PROTOCOL.md): its
transcript is found by the ``teamName``/``agentName`` its lines carry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from models.claude.team import Member, Team
from models.claude.transcript_read import (
    TeammateContext,
    TranscriptFollower,
    set_window,
)


def _candidates(team: Team, member: Member) -> list[Path]:
    """Transcript files that may be this member's, newest first."""
    root = team.claude_root
    folders = [root / "transcripts"]
    projects = root / "projects"
    if member.cwd:
        folders.append(projects / re.sub(r"[^A-Za-z0-9]", "-", member.cwd))
    for folder in folders if member.session_id else ():
        if (folder / f"{member.session_id}.jsonl").is_file():
            return [folder / f"{member.session_id}.jsonl"]  # where it is, without listing every project
    if projects.is_dir():
        folders += sorted(p for p in projects.iterdir() if p.is_dir())
    seen: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        if member.session_id and (folder / f"{member.session_id}.jsonl").is_file():
            return [folder / f"{member.session_id}.jsonl"]
        for path in [*folder.glob("*.jsonl"), *folder.glob("*/subagents/agent-*.jsonl")]:
            if path not in seen:
                seen.append(path)
    return sorted(seen, key=lambda p: p.stat().st_mtime, reverse=True)


def _names(path: Path) -> tuple[str | None, str | None]:
    """(teamName, agentName) from the first lines that carry them."""
    try:
        with path.open("rb") as fh:
            for _ in range(20):
                line = fh.readline(1 << 20)
                if not line:
                    break
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("agentName"), str):
                    team = entry.get("teamName")
                    return (team if isinstance(team, str) else None), entry["agentName"]
    except OSError:
        return None, None
    return None, None


def find_transcript(team: Team, member: Member) -> Path | None:
    """The member's transcript: by its session id where config.json gives one, else the newest
    file whose lines name this member of this team."""
    for path in _candidates(team, member):
        if member.session_id and path.stem == member.session_id:
            return path
        team_name, agent = _names(path)
        if agent == member.name and team_name in (None, team.name):
            return path
    return None


def team_context(
    team: Team, windows: dict[str, int] | None = None, follower: TranscriptFollower | None = None
) -> dict[str, TeammateContext]:
    """Member name → context, for every member but the lead. ``windows``: the Lead's window
    per member, where it overrides what the model and transcript say; ``follower``: what
    earlier reads kept, so that only what was appended is read (a fresh one reads whole)."""
    follower = follower if follower is not None else TranscriptFollower()
    out = {}
    for member in team.members:
        if member.name == team.lead:
            continue
        override = (windows or {}).get(member.name)
        path = find_transcript(team, member)
        if path is None:
            context = TeammateContext(member.name, model=member.model)
            set_window(context, override, None)
            out[member.name] = context
        else:
            out[member.name] = follower.read(path, member.name, member.model, override)
    return out


def lead_transcript_messages(
    team: Team, follower: TranscriptFollower | None = None
) -> list[tuple[str, str, str | None]]:
    """(sender, text, timestamp) of every ``<teammate-message>`` block in the lead's transcript:
    the lasting record of replies on releases that drain the lead's inbox. ``follower``: what
    earlier reads kept (the window's, the CLI's cache), so that only what was appended is read."""
    if not team.lead_session:
        return []
    path = find_transcript(team, Member(team.lead, session_id=team.lead_session))
    if path is None:
        return []
    context = (follower if follower is not None else TranscriptFollower()).read(path, team.lead)
    return [(r.sender, r.text, r.timestamp) for r in context.received if r.sender != team.lead]
