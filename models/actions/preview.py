"""What an action will do, exactly: read by the window and the CLI alike, written by
``models.actions.commit``."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from models.claude.delivery import InboxEntry
from models.claude.fit import Fit
from models.delta.decisions import Decision
from models.text.intent import read_interrupted
from models.text.transaction import FileWrite


@dataclass(frozen=True)
class Preview:
    """Everything one Lead action will write and why. ``blocked`` says why it cannot run
    (committing it then writes nothing); ``skipped`` what it leaves out, and why; ``last``
    names a file replaced after every other one (publishing's GC)."""

    action: str
    title: str
    folder: Path
    writes: tuple[FileWrite, ...] = ()
    decisions: tuple[Decision, ...] = ()
    blocked: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    last: str | None = None
    messages: tuple[tuple[str, Path], ...] = ()  # each recipient's message: the file holding it
    version: int | None = None  # the GC version it publishes
    deliveries: tuple[InboxEntry, ...] = ()  # into a linked Claude Code team's inboxes, after the writes
    fits: tuple[Fit, ...] = ()  # each recipient's context with its message, against auto-compact

    @property
    def refusals(self) -> tuple[str, ...]:
        """Why committing would write nothing: ``blocked``, and every write that would land
        outside the session folder. Names agents write (a ``From:`` line, a role key in the
        plan) become file names, and a folder of the session may be a link: neither may take
        a write of ours anywhere else."""
        root = os.path.realpath(self.folder)
        interrupted = read_interrupted(self.folder)
        cut_short = (interrupted.describe(self.folder),) if interrupted is not None else ()
        outside = [
            f"{self.relative(w)} is outside the session folder (a name or a link leads there); nothing is written"
            for w in self.writes
            if not _within(os.path.realpath(w.path), root)
        ]
        return (*cut_short, *self.blocked, *outside)

    def message_write(self, role: str) -> FileWrite | None:
        """The write that holds ``role``'s message, its exact bytes (None: nothing is sent it)."""
        path = dict(self.messages).get(role)
        return next((w for w in self.writes if w.path == path), None) if path is not None else None

    def relative(self, write: FileWrite) -> str:
        """A write's path as the Lead knows it: inside the session folder."""
        return self.relative_path(write.path)

    def relative_path(self, path: Path) -> str:
        try:
            return path.relative_to(self.folder).as_posix()
        except ValueError:
            return str(path)

    def change(self, write: FileWrite) -> str:
        """What ``write`` does to its file, as a unified diff (a new file and an append: every
        line it adds), for a review to show."""
        after = write.data.decode("utf-8", errors="replace")
        name = self.relative(write)
        if write.kind == "replace" and write.before is not None:
            lines = difflib.unified_diff(
                write.before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}"
            )
            diff = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
            return diff or f"{name}: no change"
        head = f"+++ {name} ({'new file' if write.kind == 'create' else 'appended'})\n"
        return head + "".join(f"+{line}\n" for line in after.splitlines())

    def text(self) -> str:
        """The review in words: every file with what it becomes, every decision with its reasons."""
        files = f"{len(self.writes)} file{'s' if len(self.writes) != 1 else ''}"
        into = sum(e.what == "write" for e in self.deliveries)
        inboxes = f" and delivers into {into} inbox{'es' if into != 1 else ''}" if into else ""
        lines = [f"{self.title} writes {files}{inboxes}:"]
        lines += [f"  {w.kind:<7} {self.relative(w)}  — {w.summary}" for w in self.writes]
        for d in self.decisions:
            why = "; ".join(f"{c.code}: {c.reason}" for c in d.conditions)
            lines.append(f"  {d.role}: {d.mode}" + (f" ({why})" if why else ""))
        lines += [f"  {e.describe()}" for e in self.deliveries]
        lines += [f"  ⚠ {f.describe()}" for f in self.fits if f.tips]
        reply = next((e.text.rsplit("\n", 1)[-1] for e in self.deliveries if e.text), None)
        if reply is not None:
            lines.append(f"  each delivered message ends: {reply}")
        lines += [f"  skipped: {s}" for s in self.skipped]
        lines += [f"  blocked: {b}" for b in self.refusals]
        return "\n".join(lines)

    def data(self) -> dict[str, object]:
        """The preview for ``--json``: what a script compares, byte for byte (as text)."""
        return {
            "action": self.action,
            "title": self.title,
            "version": self.version,
            "writes": [
                {
                    "path": self.relative(w),
                    "kind": w.kind,
                    "summary": w.summary,
                    "text": w.data.decode("utf-8", errors="replace"),
                }
                for w in self.writes
            ],
            "decisions": [
                {
                    "role": d.role,
                    "mode": d.mode,
                    "tokens": d.tokens,
                    "conditions": [f"{c.code}: {c.reason}" for c in d.conditions],
                }
                for d in self.decisions
            ],
            "messages": {role: self.relative_path(path) for role, path in self.messages},
            "deliveries": [
                {
                    "role": e.role,
                    "member": e.member,
                    "inbox": str(e.inbox) if e.inbox is not None else None,
                    "message": e.file,
                    "what": e.what,
                    "reason": e.reason,
                    "sender": e.sender,
                    "summary": e.summary,
                    "text": e.text,
                }
                for e in self.deliveries
            ],
            "fits": [
                {
                    "role": f.role,
                    "context": f.context,
                    "message": f.message,
                    "threshold": f.threshold,
                    "window": f.window,
                    "tips": f.tips,
                }
                for f in self.fits
            ],
            "skipped": list(self.skipped),
            "blocked": list(self.refusals),
        }


@dataclass(frozen=True)
class Outcome:
    """A committed preview: the files written, in the order they were."""

    preview: Preview
    written: tuple[Path, ...]


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
