"""What the user named on the command line, made into a session folder or a readable file.

Both the CLI and the window start from a path the user typed; they share this module (and its
exit codes and one-line ``UsageError``) so that the two never disagree about what a folder
holds, and so that neither imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.text.textfile import TextFile

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


def resolve_session(path: str, session_id: str | None) -> Path:
    """The one session folder meant by ``path`` (a session, a project or a folder of them)."""
    from models.session.locate import find_sessions  # imported when used: `--help` stays quick

    folder = Path(path).expanduser()
    if not folder.exists():
        raise UsageError(f"{path}: no such folder")
    sessions = find_sessions(folder)
    if session_id is not None:
        sessions = [s for s in sessions if s.name == session_id]
    if not sessions:
        raise UsageError(
            f"{path}: no session here (a session folder holds global-context.md, "
            "orchestration-plan.md or TEAM-MEMORY.md; a project holds .agent/teams/<id>/)"
        )
    if len(sessions) > 1:
        names = ", ".join(s.name for s in sessions)
        raise UsageError(f"{path}: {len(sessions)} sessions here ({names}); pick one with --session ID")
    return sessions[0]


def read_file(path: str) -> TextFile:
    """Read a file the user named, turning the usual failures into one clear line."""
    from models.text.textfile import read_text

    try:
        loaded = read_text(Path(path))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except OSError as exc:  # a FIFO, a device, too large, unreadable, a symlink loop
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    errors = [p for p in loaded.problems if p.severity == "error"]
    if errors:
        raise UsageError(f"{path}: {errors[0].message}")
    return loaded
