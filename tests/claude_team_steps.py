"""A Claude Code team in its files for the tests, and teammates that are separate processes
(tests/claude_teammate.py, written from PROTOCOL.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DOUBLE = Path(__file__).parent / "claude_teammate.py"
MEMBERS = ("implementer-1", "implementer-2", "implementer-3", "implementer-4")


def make_team(root: Path, members: tuple[str, ...] = MEMBERS) -> Path:
    """``root/teams/pay`` in Claude Code's layout, with a transcripts folder under projects/."""
    team = root / "teams" / "pay"
    (team / "inboxes").mkdir(parents=True)
    config = {
        "name": "pay",
        "leadAgentId": "team-lead@pay",
        "leadSessionId": "lead-session",
        "members": [
            {"name": "team-lead", "agentType": "team-lead", "model": "claude-opus-4-6"},
            *({"name": m, "agentType": "implementer", "model": "claude-opus-4-6", "sessionId": f"s-{m}"}
              for m in members),
        ],
    }  # fmt: skip
    (team / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (root / "projects" / "-work").mkdir(parents=True)
    return team


def start(team: Path, member: str, expect: int, *extra: str) -> subprocess.Popen[bytes]:
    transcript = team.parent.parent / "projects" / "-work" / f"s-{member}.jsonl"
    return subprocess.Popen(
        [sys.executable, str(DOUBLE), str(team), member, "--expect", str(expect), "--transcript", str(transcript),
         "--poll", "0.01", "--max-seconds", "60", *extra],
        preexec_fn=behind_the_app,
    )  # fmt: skip


def behind_the_app() -> None:
    """The helper processes run at a lower priority than the app under test, so that on a small
    CI machine the time our lock is held measures our work, not the scheduler's queue."""
    os.nice(5)


def entries(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
