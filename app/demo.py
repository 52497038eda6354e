"""The bundled demo session, copied to a writable place before it is opened.

The copy lives under the user's data folder in a folder named after a hash of the bundled
files, so a newer bundle gets a fresh copy while edits to the current one survive restarts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
DEMO_PROJECT = RESOURCES / "demo-project"
DEMO_SESSION_ID = "payments-ledger-v2"


def bundled_session() -> Path:
    return DEMO_PROJECT / ".agent" / "teams" / DEMO_SESSION_ID


DEMO_TEAM = Path(".claude-demo") / "teams" / "payments-ledger"


def _bundle_hash() -> str:
    digest = hashlib.sha256()
    root = DEMO_PROJECT  # the session and its Claude Code team
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lead-console"


def demo_session(reset: bool = False, base: Path | None = None) -> Path:
    """Path of a writable copy of the demo session, made if missing (or when ``reset``)."""
    target_project = (base or data_dir()) / "demo" / _bundle_hash()
    target = target_project / ".agent" / "teams" / DEMO_SESSION_ID
    if reset and target_project.exists():
        shutil.rmtree(target_project)
    if not target.exists():
        tmp = target_project.with_name(target_project.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(DEMO_PROJECT, tmp)
        tmp.replace(target_project)
        link_demo_team(target, target_project)
    return target


def copy_demo(project: Path) -> Path:
    """A fresh copy of the demo project at ``project`` (scripts, screenshots), team linked."""
    shutil.copytree(DEMO_PROJECT, project)
    session = project / ".agent" / "teams" / DEMO_SESSION_ID
    link_demo_team(session, project)
    return session


def copy_session(source: Path | None, into: Path) -> Path:
    """A private copy under ``into``: of ``source`` (a session folder), or of the demo with its
    team linked when ``source`` is None (scripts that drive the window on a copy)."""
    if source is None:
        return copy_demo(into / "project")
    folder = into / "project" / ".agent" / "teams" / source.name
    shutil.copytree(source, folder)
    return folder


def link_demo_team(session: Path, project: Path) -> None:
    """Link a copy of the demo session to the copy of its Claude Code team (members, inboxes
    and transcripts beside it, one teammate compacted after its last confirmed GC)."""
    from models.claude.team import Link, map_roles, read_team, write_link
    from models.session.folder import open_session
    from models.text.tokens import get_tokenizer

    team_folder = project / DEMO_TEAM
    if not team_folder.is_dir():
        return
    roles = [t.role for t in open_session(session, get_tokenizer("estimate")).teammates()]
    write_link(session, Link(team_folder, map_roles(roles, read_team(team_folder))))
