"""The record of an action under way, so that one cut short (killed, the machine down) is found
and taken back instead of leaving a half-written session that nothing reports.

Before its first write, ``write_all`` puts down what it will write: each file's new content
(by its SHA-256), and what it replaces (the bytes of a replaced file, the size of an appended
log). The record goes when the last write is done, or when a failure has been rolled back. A
record still there means the action never finished: every later action refuses until
``undo_interrupted`` has put back each file that still holds what that action wrote (a file
someone changed since is left as it is, and named).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from models.text.atomic import atomic_write
from models.text.textfile import read_bounded

if TYPE_CHECKING:
    from models.text.transaction import FileWrite

INTENT = Path(".lead-console") / "action-in-progress.json"


@dataclass(frozen=True)
class Planned:
    """One write of the action, as recorded before it began."""

    path: Path
    kind: str
    sha256: str  # of the bytes written (for an append: of the appended bytes)
    before: bytes | None  # a replaced file's bytes
    size: int  # an appended log's size before


@dataclass(frozen=True)
class Interrupted:
    """An action whose record is still there: it was cut short."""

    title: str
    started: str
    writes: tuple[Planned, ...]
    problem: str | None = None  # the record itself cannot be read: nothing is undone by guess

    def describe(self, folder: Path) -> str:
        if self.problem is not None:
            return f"an earlier action was cut short, and its record {INTENT.as_posix()} {self.problem}"
        return (
            f"'{self.title}' was cut short (started {self.started}) and may have written "
            f"{len(self.writes)} files: 'lead-console repair {folder}' takes back what it wrote"
        )


def record_intent(folder: Path, title: str, writes: Sequence[FileWrite]) -> Path:
    """Put down what ``writes`` will do, before the first of them; returns the record's path."""
    planned = []
    for w in writes:
        before = read_bounded(w.path)[0] if w.kind == "replace" and w.path.is_file() else None
        size = w.path.stat().st_size if w.kind == "append" and w.path.is_file() else 0
        planned.append(
            {
                "path": str(w.path),
                "kind": w.kind,
                "sha256": hashlib.sha256(w.data).hexdigest(),
                "before": base64.b64encode(before).decode("ascii") if before is not None else None,
                "size": size,
            }
        )
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    path = folder / INTENT
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"title": title, "started": started, "writes": planned}, ensure_ascii=False)
    atomic_write(path, data.encode("utf-8"), None)
    return path


def read_interrupted(folder: Path) -> Interrupted | None:
    """The action cut short in ``folder``, if any. A record that cannot be read still says an
    action was cut short (fail closed), with why."""
    path = folder / INTENT
    if not os.path.lexists(path):
        return None
    try:
        data = json.loads(read_bounded(path)[0])
        writes = tuple(
            Planned(
                Path(w["path"]),
                str(w["kind"]),
                str(w["sha256"]),
                base64.b64decode(w["before"]) if w.get("before") is not None else None,
                int(w.get("size") or 0),
            )
            for w in data["writes"]
        )
        return Interrupted(str(data["title"]), str(data["started"]), writes)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "cannot be read"
        return Interrupted("?", "?", (), f"{why}; look at it, then remove it")


def undo_interrupted(folder: Path, interrupted: Interrupted) -> list[str]:
    """Put back every file that still holds what the cut-short action wrote, then drop its
    record; what each file needed, one line each (a file changed since is kept, and said)."""
    if interrupted.problem is not None:
        return [interrupted.describe(folder)]
    said = []
    for w in reversed(interrupted.writes):
        name = _name(folder, w.path)
        try:
            said.append(f"{name}: {_undo_one(w)}")
        except OSError as exc:
            said.append(f"{name}: {exc.strerror or exc}; left as it is")
    (folder / INTENT).unlink(missing_ok=True)
    return said


def _undo_one(w: Planned) -> str:
    try:
        now = read_bounded(w.path)[0]
    except FileNotFoundError:
        return "not written" if w.kind != "replace" else "gone; left as it is"
    if w.kind == "append":
        tail = now[w.size :]
        if len(now) > w.size and hashlib.sha256(tail).hexdigest() == w.sha256:
            with open(w.path, "r+b") as fh:
                fh.truncate(w.size)
            return "the appended lines taken back"
        return "nothing of ours appended" if len(now) == w.size else "appended to since; left as it is"
    ours = hashlib.sha256(now).hexdigest() == w.sha256
    if w.kind == "create":
        if ours:
            w.path.unlink()
            return "removed"
        return "not ours; left as it is"
    if not ours:
        return "as it was" if now == w.before else "changed since; left as it is"
    if w.before is None:
        return "no earlier bytes recorded; left as it is"
    atomic_write(w.path, w.before, None)
    return "put back as it was"


def _name(folder: Path, path: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)
