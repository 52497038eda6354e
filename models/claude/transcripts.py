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
    MAX_TRANSCRIPT_BYTES,
    TeammateContext,
    TranscriptFollower,
    blocks_in,
    set_window,
)
from models.text.textfile import read_bounded


def _candidates(team: Team, member: Member) -> list[Path]:
    """Transcript files that may be this member's, newest first."""
    root = team.claude_root
    folders = [root / "transcripts"]
    projects = root / "projects"
    if member.cwd:
        folders.append(projects / re.sub(r"[^A-Za-z0-9]", "-", member.cwd))
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


_LEAD_BLOCKS: dict[Path, tuple[tuple[str, int, int, int], list[tuple[str, str, str | None]]]] = {}


def lead_transcript_messages(team: Team) -> list[tuple[str, str, str | None]]:
    """(sender, text, timestamp) of every ``<teammate-message>`` block in the lead's transcript:
    the lasting record of replies on releases that drain the lead's inbox."""
    if not team.lead_session:
        return []
    lead = Member(team.lead, session_id=team.lead_session)
    path = find_transcript(team, lead)
    if path is None:
        return []
    try:
        st = path.stat()
    except OSError:
        return []
    key = (team.lead, st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _LEAD_BLOCKS.get(path)
    if cached is not None and cached[0] == key:
        return list(cached[1])  # every Inbox refresh asks; the transcript is parsed once per change
    try:
        raw, _ = read_bounded(path, MAX_TRANSCRIPT_BYTES)
    except OSError:
        return []
    out = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        stamp = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
        for attrs, text in blocks_in(entry):
            sender = attrs.get("teammate_id")
            if sender and sender != team.lead:
                out.append((sender, text, stamp))
    if len(raw) == st.st_size:  # parsed what was stat'ed: nothing appended in between
        _LEAD_BLOCKS.clear()  # one lead transcript is followed at a time
        _LEAD_BLOCKS[path] = (key, out)
    return list(out)
