"""The Lead's choices about the Claude Code team, asked in dialogs: which team a session is
delivered to, and which member a role's updates go to."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget

from models.claude.team import list_teams, read_team

NO_MEMBER = "(no member: deliver nothing)"


def pick_team_folder(parent: QWidget) -> Path | None:
    """Offer the teams Claude Code keeps (``~/.claude/teams/*/config.json``), or any folder;
    None when the Lead cancels."""
    teams = list_teams(Path.home() / ".claude")
    other = "Another folder…"
    folder = ""
    if teams:
        names = [f"{t.name}  ({len(read_team(t).members)} members)" for t in teams]
        name, ok = QInputDialog.getItem(parent, "Claude Code team", "Link this session to:", [*names, other], 0, False)
        if not ok:
            return None
        if name != other:
            folder = str(teams[names.index(name)])
    if not folder:
        start = str(Path.home() / ".claude" / "teams")
        folder = QFileDialog.getExistingDirectory(parent, "Claude Code team folder (~/.claude/teams/<team>)", start)
    return Path(folder) if folder else None


def pick_member(parent: QWidget, role: str, members: list[str]) -> tuple[bool, str | None]:
    """Whether the Lead chose, and the member ``role``'s updates go to (None: no member)."""
    name, ok = QInputDialog.getItem(
        parent, "Claude Code member", f"Deliver {role}'s updates to:", [*members, NO_MEMBER], 0, False
    )
    return bool(ok), None if name == NO_MEMBER else name
