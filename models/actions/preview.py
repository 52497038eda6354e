"""What an action will do, exactly: read by the window and the CLI alike, written by
``models.actions.commit``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from models.delta.decisions import Decision
from models.text.intent import read_interrupted
from models.text.transaction import FileWrite


@dataclass(frozen=True)
class InboxEntry:
    """A message an action hands on into a linked Claude Code team's inbox once it is written
    (``member`` None: it is not delivered, and ``reason`` says why)."""

    role: str
    member: str | None
    inbox: Path | None
    message: Path
    reason: str | None = None


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
    deliveries: tuple[InboxEntry, ...] = ()  # into a linked Claude Code team, after the writes

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

    def text(self) -> str:
        """The review in words: every file with what it becomes, every decision with its reasons."""
        lines = [f"{self.title} writes {len(self.writes)} file{'s' if len(self.writes) != 1 else ''}:"]
        lines += [f"  {w.kind:<7} {self.relative(w)}  — {w.summary}" for w in self.writes]
        for d in self.decisions:
            why = "; ".join(f"{c.code}: {c.reason}" for c in d.conditions)
            lines.append(f"  {d.role}: {d.mode}" + (f" ({why})" if why else ""))
        for e in self.deliveries:
            if e.member is None or e.inbox is None:
                lines.append(f"  not delivered: {e.role}'s message ({e.reason})")
            else:
                lines.append(f"  deliver {e.role}'s message into {e.member}'s inbox ({e.inbox})")
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
                    "message": self.relative_path(e.message),
                    "reason": e.reason,
                }
                for e in self.deliveries
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
