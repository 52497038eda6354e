"""The record of an action under way, so that one cut short (killed, the machine down) is found
and taken back instead of leaving a half-written session that nothing reports.

Before its first write, ``write_all`` puts down what it will write: each file's new content
(by its SHA-256), and what it replaces (the bytes of a replaced file, the size of an appended
log). The record goes when the last write is done, or when a failure has been rolled back. While it
writes, the action holds the session's action lock (``holding_action_lock``); a killed process
lets go of it. So a record found with the lock free belongs to an action that never finished:
``take_back`` (the next command, the window's open) puts back each file that still holds what
that action wrote (a file someone changed since is left as it is, and named), and every action
refuses while a record that cannot be read is there.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import glob
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from models.text.atomic import TEMP_MARKER, atomic_write, held
from models.text.textfile import read_bounded
from models.text.wording import counted

if TYPE_CHECKING:
    from models.text.transaction import FileWrite

INTENT = Path(".lead-console") / "action-in-progress.json"
NO_LOG = -1  # an append's log was not there before it
ACTION_LOCK = Path(".lead-console")  # the app's folder, locked by the action whose record is there


@dataclass(frozen=True)
class Planned:
    """One write of the action, as recorded before it began."""

    path: Path
    kind: str
    sha256: str  # of the bytes written (for an append: of the appended bytes)
    before: bytes | None  # a replaced file's bytes
    size: int  # an appended log's size before (NO_LOG: there was none)
    appended: bytes | None = None  # an append's bytes (log lines are short): a torn one is a prefix


@dataclass(frozen=True)
class Interrupted:
    """An action whose record is still there: it was cut short."""

    title: str
    started: str
    writes: tuple[Planned, ...]
    problem: str | None = None  # the record itself cannot be read: nothing is undone by guess
    forward: bool = False  # a one-file action: what it wrote is kept, not taken back
    pid: int = 0  # the process that wrote it: its temp files are known by this number

    def describe(self, folder: Path) -> str:
        if self.problem is not None:
            return f"an earlier action was cut short, and its record {INTENT.as_posix()} {self.problem}"
        return (
            f"'{self.title}' was cut short (started {self.started}) and may have written "
            f"{len(self.writes)} files: the next command, or opening the session, takes back "
            f"what it wrote ('lead-console repair {folder}')"
        )


End = Literal["undone", "untouched", "left"]  # what taking back did to a file


@dataclass(frozen=True)
class FileEnd:
    """One planned file of an action taken back: what was done to it, said and as a kind."""

    name: str  # as the Lead knows it: inside the session folder
    said: str
    end: End

    def line(self) -> str:
        return f"{self.name}: {self.said}"


@dataclass(frozen=True)
class TakenBack:
    """What ``take_back`` did about an action cut short: one end per file it had planned."""

    title: str
    started: str
    files: tuple[FileEnd, ...]
    forward: bool = False  # kept as written (a one-file action), not taken back

    def describe(self) -> str:
        done = "kept as it stands" if self.forward else "taken back"
        lines = "; ".join(f.line() for f in self.files)
        return f"'{self.title}' was cut short (started {self.started}); {done}: {lines}"

    def summary(self) -> str:
        """``describe`` in one short line: how many files were undone, how many the action
        never reached, and by name those left as they are (changed by someone since)."""
        if self.forward:
            return self.describe()  # one file
        undone = sum(f.end == "undone" for f in self.files)
        untouched = sum(f.end == "untouched" for f in self.files)
        kept = [f.name for f in self.files if f.end == "left"]
        said = f"{counted(undone, 'file')} undone, {untouched} untouched"
        if kept:
            said += f"; left as they are: {', '.join(kept)}"
        return f"'{self.title}' was cut short (started {self.started}); taken back: {said}"


def holding_action_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """Hold the session's action lock: one action writes at a time, and a record left while
    nobody holds it is known to be a cut-short action's. The lock is on the app's folder
    itself: a lock file would be one more file each action leaves."""
    return held(folder / ACTION_LOCK, ACTION_LOCK.as_posix(), folder=True)


def under_way(folder: Path) -> bool:
    """Whether another process is writing an action in ``folder`` now (it holds the lock)."""
    try:
        fd = os.open(folder / ACTION_LOCK, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False  # no app folder: nobody ever held it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing lets go of a lock taken
    return False


def take_back(folder: Path) -> TakenBack | Interrupted | None:
    """Take back what an action cut short in ``folder`` wrote, before anything else is read or
    written there. None: no action was cut short. An ``Interrupted`` with a ``problem``: its
    record cannot be read, nothing is undone by guess, and every action stays refused."""
    if not os.path.lexists(folder / INTENT):
        return None
    with holding_action_lock(folder):  # an action under way finishes first; its record then goes
        interrupted = _read_record(folder)
        if interrupted is None or interrupted.problem is not None:
            return interrupted
        ends = tuple(_undo(folder, interrupted))
        return TakenBack(interrupted.title, interrupted.started, ends, interrupted.forward)


def record_intent(folder: Path, title: str, writes: Sequence[FileWrite], forward: bool = False) -> Path:
    """Put down what ``writes`` will do, before the first of them; returns the record's path.

    ``forward``: an action of one atomic write whose file is the whole of it (a TEAM-MEMORY
    edit: the Lead's entry). Cut short, it is kept if it landed, not taken back: what the Lead
    typed is not lost, and the retry it would invite would write it twice."""
    planned = []
    for w in writes:
        before = read_bounded(w.path)[0] if w.kind == "replace" and w.path.is_file() else None
        size = (w.path.stat().st_size if w.path.is_file() else NO_LOG) if w.kind == "append" else 0
        planned.append(
            {
                "path": str(w.path),
                "kind": w.kind,
                "sha256": hashlib.sha256(w.data).hexdigest(),
                "before": base64.b64encode(before).decode("ascii") if before is not None else None,
                "size": size,
                "appended": base64.b64encode(w.data).decode("ascii") if w.kind == "append" else None,
            }
        )
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    path = folder / INTENT
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"title": title, "started": started, "writes": planned, "forward": forward, "pid": os.getpid()}
    data = json.dumps(record, ensure_ascii=False)
    atomic_write(path, data.encode("utf-8"), None)
    return path


def read_interrupted(folder: Path) -> Interrupted | None:
    """The action cut short in ``folder``, if any (one another process is writing now is not).
    A record that cannot be read still says an action was cut short (fail closed), with why."""
    if not os.path.lexists(folder / INTENT) or under_way(folder):
        return None
    return _read_record(folder)


def _read_record(folder: Path) -> Interrupted | None:
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
                base64.b64decode(w["appended"]) if w.get("appended") is not None else None,
            )
            for w in data["writes"]
        )
        pid = data.get("pid") if type(data.get("pid")) is int else 0
        return Interrupted(str(data["title"]), str(data["started"]), writes, None, data.get("forward") is True, pid)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "cannot be read"
        return Interrupted("?", "?", (), f"{why}; look at it, then remove it")


def _undo(folder: Path, interrupted: Interrupted) -> list[FileEnd]:
    """Put back every file that still holds what the cut-short action wrote (a ``forward``
    one's are kept), then drop its record and its temp files; what each file needed (a file
    changed since is kept, and said)."""
    ends = []
    for w in reversed(interrupted.writes):
        try:
            said, end = _keep_one(w) if interrupted.forward else _undo_one(w)
        except OSError as exc:
            said, end = f"{exc.strerror or exc}; left as it is", "left"
        ends.append(FileEnd(_name(folder, w.path), said, end))
    if interrupted.pid > 0:  # the temp files its killed writes left beside their files
        for w in interrupted.writes:
            for temp in w.path.parent.glob(f".{glob.escape(w.path.name)}{TEMP_MARKER}{interrupted.pid}-*"):
                temp.unlink(missing_ok=True)
    (folder / INTENT).unlink(missing_ok=True)
    return ends


def _keep_one(w: Planned) -> tuple[str, End]:
    """A roll-forward action's file: written or not, it stays as it is."""
    try:
        now = read_bounded(w.path)[0]
    except FileNotFoundError:
        return "not written", "untouched"
    if hashlib.sha256(now).hexdigest() == w.sha256:
        return "written; kept", "undone"
    return "not written", "untouched"


def _undo_append(w: Planned, now: bytes) -> tuple[str, End]:
    """Take an append of ours off the log's end: whole, or the part a killed write left (a
    prefix of its bytes); a log the append made goes. Anything else there is another's."""
    start = max(w.size, 0)
    tail = now[start:]
    ours = hashlib.sha256(tail).hexdigest() == w.sha256 or (w.appended is not None and w.appended.startswith(tail))
    if len(now) < start or not ours:
        return "appended to since; left as it is", "left"
    if w.size == NO_LOG:  # the append made the log
        w.path.unlink()
        return "removed", "undone"
    if not tail:
        return "nothing of ours appended", "untouched"
    with open(w.path, "r+b") as fh:
        fh.truncate(w.size)
    return "the appended lines taken back", "undone"


def _undo_one(w: Planned) -> tuple[str, End]:
    try:
        now = read_bounded(w.path)[0]
    except FileNotFoundError:
        return ("not written", "untouched") if w.kind != "replace" else ("gone; left as it is", "left")
    if w.kind == "append":
        return _undo_append(w, now)
    ours = hashlib.sha256(now).hexdigest() == w.sha256
    if w.kind == "create":
        if ours:
            w.path.unlink()
            return "removed", "undone"
        return "not ours; left as it is", "left"
    if not ours:
        return ("as it was", "untouched") if now == w.before else ("changed since; left as it is", "left")
    if w.before is None:
        return "no earlier bytes recorded; left as it is", "left"
    atomic_write(w.path, w.before, None)
    return "put back as it was", "undone"


def _name(folder: Path, path: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)
