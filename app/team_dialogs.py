"""The Lead's choices asked in dialogs: which Claude Code team a session is delivered to,
which member a role's updates go to, and whether a message is carried out again."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from models.claude.team import list_teams, read_team
from models.review.validation import Review

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


def ask_carry_out_again(parent: QWidget, result: Review, done: str) -> bool:
    """Whether the Lead carries out a message again, told what it would repeat: a second
    re-send and second ledger lines."""
    repeat = {
        "resend": "write and copy the re-send again",
        "full": "write and copy the full GC again",
        "confirm": "confirm the version again",
    }.get(result.action, f"do '{result.action}' again")
    answer = QMessageBox.question(
        parent,
        "Carried out already",
        f"This message from {result.message.sender or '?'} was carried out already ({done}).\n"
        f"Carrying it out again would {repeat}, and add ledger lines. Carry it out again?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes
