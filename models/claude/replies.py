"""Replies from a Claude Code team: the lead's inbox and, for releases that drain it, the
``<teammate-message>`` blocks in the lead's transcript, each reply once."""

from __future__ import annotations

from pathlib import Path

from models.claude.team import Team, read_team
from models.claude.transcript_read import TranscriptFollower
from models.claude.transcripts import lead_transcript_messages
from models.review.inbox import Message, claude_source, read_claude_team


def team_replies(
    team_folder: Path, follower: TranscriptFollower | None = None, team: Team | None = None
) -> tuple[list[Message], list[str]]:
    """(messages to the lead, problems): the inbox's, then the transcript's that the inbox no
    longer holds. Both name a message by sender, text and repeat count, so a reply read from
    either place is the same message to the ledger. ``team``: its config as the caller read it
    a moment ago (read here otherwise)."""
    team = team if team is not None else read_team(team_folder)
    _, messages, problems = read_claude_team(team_folder, team.lead)
    problems = [*team.problems, *problems]
    sources = {m.source for m in messages}
    seen: dict[tuple[str, str], int] = {}
    for sender, text, stamp in lead_transcript_messages(team, follower):
        source = claude_source(team_folder.name, sender, text, seen)
        if source not in sources:
            sources.add(source)
            messages.append(Message(source, sender, text, stamp))
    return messages, problems
