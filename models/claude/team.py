"""A Claude Code agent team as its files describe it, and the session's link to it.

``~/.claude/teams/<team>/config.json`` names the members; Claude Code rewrites it, so it is only
read. Members are the addresses the app may write to: a name that is no member would make Claude
Code create an orphan inbox, so a role maps to a member or to nothing. The link (team folder and
role → member) is kept with the session, in ``.lead-console/claude-team.json``, so that the CLI
and the window share it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.claude.protocol import DEFAULT_SENDER
from models.text.atomic import atomic_write
from models.text.textfile import read_text

LINK_FILE = Path(".lead-console") / "claude-team.json"


@dataclass(frozen=True)
class Member:
    """One member of the team, with the fields the app uses (others are ignored)."""

    name: str
    agent_type: str = ""
    model: str = ""
    session_id: str | None = None
    cwd: str | None = None
    active: bool | None = None


@dataclass
class Team:
    """A team folder, its members and what could not be read."""

    folder: Path
    name: str
    lead: str
    lead_session: str | None
    members: list[Member] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def member(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)

    @property
    def inboxes(self) -> Path:
        return self.folder / "inboxes"

    @property
    def claude_root(self) -> Path:
        """``~/.claude`` (the folder holding ``teams/`` and ``projects/``)."""
        return self.folder.parent.parent


def _member(raw: dict[str, Any]) -> Member | None:
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    text = {k: raw.get(k) if isinstance(raw.get(k), str) else None for k in ("agentType", "model", "sessionId", "cwd")}
    active = raw.get("isActive")
    return Member(
        name,
        text["agentType"] or "",
        text["model"] or "",
        text["sessionId"],
        text["cwd"],
        active if isinstance(active, bool) else None,
    )


def read_team(folder: Path) -> Team:
    """The team in ``folder``; problems (a config.json that is missing, not JSON, without
    members) are listed, never guessed over."""
    team = Team(folder, folder.name, "team-lead", None)
    path = folder / "config.json"
    try:
        data = json.loads(read_text(path).text)
    except FileNotFoundError:
        team.problems.append(f"{path}: no config.json (is this a Claude Code team folder?)")
        return team
    except (OSError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        team.problems.append(f"{path}: {reason}")
        return team
    if not isinstance(data, dict):
        team.problems.append(f"{path}: not a JSON object")
        return team
    if isinstance(data.get("name"), str):
        team.name = data["name"]
    if isinstance(data.get("leadSessionId"), str):
        team.lead_session = data["leadSessionId"]
    raw_members = data.get("members")
    if not isinstance(raw_members, list) or not raw_members:
        team.problems.append(f"{path}: no members listed; nothing will be delivered")
        return team
    for raw in raw_members:
        member = _member(raw) if isinstance(raw, dict) else None
        if member is None:
            team.problems.append(f"{path}: a member without a name was ignored")
        else:
            team.members.append(member)
    lead_id = data.get("leadAgentId")
    lead = next((m.name for m in team.members if m.agent_type == "team-lead"), None)
    if lead is None and isinstance(lead_id, str):
        lead = lead_id.split("@", 1)[0]
    team.lead = lead or "team-lead"
    return team


def list_teams(claude_root: Path) -> list[Path]:
    """Team folders under ``~/.claude/teams`` (any folder holding a config.json)."""
    teams = claude_root / "teams"
    return sorted(p.parent for p in teams.glob("*/config.json")) if teams.is_dir() else []


@dataclass
class Link:
    """The session's team, which member each role is (None: not delivered to), the name the
    app's messages are delivered under, and the Lead's context window per member."""

    team_folder: Path
    members: dict[str, str] = field(default_factory=dict)
    sender: str = DEFAULT_SENDER
    windows: dict[str, int] = field(default_factory=dict)
    made_for: str | None = None  # the session folder the link was made in (a copy is not linked)


def map_roles(roles: list[str], team: Team, chosen: dict[str, str] | None = None) -> dict[str, str]:
    """Role → member name: the Lead's choices where they name a member, else the member with the
    role's own name. Roles with neither are left out (never written to); a role the Lead mapped
    to "" (no member) stays so, and is not matched by name again."""
    names = {m.name for m in team.members}
    out = {}
    for role in roles:
        pick = (chosen or {}).get(role)
        if pick == "":
            out[role] = ""
        elif pick in names:
            out[role] = str(pick)
        elif role in names:
            out[role] = role
    return out


def read_link(session_folder: Path) -> Link | None:
    """The remembered link, or None (a file we cannot read counts as no link)."""
    path = session_folder / LINK_FILE
    try:
        data = json.loads(read_text(path).text)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("team"), str):
        return None
    members, sender, windows = data.get("members"), data.get("sender"), data.get("windows")
    mapping = {str(k): str(v) for k, v in members.items()} if isinstance(members, dict) else {}
    sizes = {str(k): v for k, v in windows.items() if isinstance(v, int) and v > 0} if isinstance(windows, dict) else {}
    made_for = data.get("session") if isinstance(data.get("session"), str) else None
    return Link(Path(data["team"]), mapping, sender if isinstance(sender, str) else DEFAULT_SENDER, sizes, made_for)


def write_link(session_folder: Path, link: Link) -> None:
    """Remember the link with the session (an app-owned file, written atomically)."""
    path = session_folder / LINK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"team": str(link.team_folder), "members": link.members, "sender": link.sender}
    data["session"] = str(session_folder.resolve())  # a copy of the session does not deliver into this team
    if link.windows:
        data["windows"] = link.windows
    atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"), None)
