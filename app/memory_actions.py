"""The Lead's TEAM-MEMORY actions: entries, relays, curation, loss warnings and restore.

Each action is previewed (a diff of the file) and, once confirmed, is one undo step whose
undo applies the inverse section edits through the same safe path, so it too merges with
whatever agents wrote since. Our own writes move the loss-detection snapshot forward; any other
write is compared with it, and vanished entries are offered for a one-click restore.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from models.memory.access import access_of
from models.memory.edits import (
    Conflict,
    EditResult,
    MemoryEditError,
    SectionEdit,
    append_entry,
    edit_memory,
    entry_line,
    header_of,
    preview,
    utc_now_minutes,
)
from models.memory.journal import MemoryJournal, Vanished
from models.memory.lead_edits import archive_edits, archive_phase_edits, prune_edits, replace_edits
from models.memory.loss import Loss, journal_loss, loss_between, restore_edits
from models.memory.settle import incomplete
from models.memory.skeleton import create_with_entry, preview_create
from models.session.folder import Session
from models.session.memory_entries import MemoryEntry
from models.session.memory_parse import parse_memory
from models.session.team_memory import TeamMemory
from models.text.textfile import BOM, holds_bytes, read_bounded, read_text
from models.text.wording import counted
from ui.workers import LatestWork

SETTLE_MS = 30  # a TEAM-MEMORY version must hold still this long before its losses are judged
FIRST_LOOK_DELAY_MS = 300  # after open, before the journal's first look at the file starts


class _MemoryCommand(QUndoCommand):
    """One confirmed TEAM-MEMORY change; the first redo is the write itself."""

    def __init__(self, actions: MemoryActions, text: str, edits: list[SectionEdit]) -> None:
        super().__init__(text)
        self.actions, self.edits, self.undo_edits = actions, edits, list[SectionEdit]()

    def redo(self) -> None:
        """Write the edits (again, after an undo). A refused first write leaves no undo step:
        the command marks itself obsolete, and the stack drops it."""
        headers = {e.header for e in self.edits}
        result = self.actions.write(self.edits, self.text())
        if result is not None:
            self.undo_edits = result.inverse(headers)
        elif not self.undo_edits:
            self.setObsolete(True)

    def undo(self) -> None:
        """Write the inverse edits, merged with what agents wrote since."""
        result = self.actions.write(self.undo_edits, f"Undo {self.text()}")
        if result is not None:
            self.edits = result.inverse({e.header for e in self.undo_edits})


class MemoryActions(QObject):
    """Writes to one session's TEAM-MEMORY.md on the Lead's behalf."""

    lossFound = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        # The version the loss check compares the next one with: the parse the session read,
        # or the text of our own last write.
        self.snapshot: TeamMemory | str | None = None
        self.loss: Loss | None = None
        self.journal: MemoryJournal | None = None
        self.undo_stack = QUndoStack(self)
        self._pending: tuple[TeamMemory, bytes | None] | None = None
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._judge)
        self._looker = LatestWork(self)  # the journal's first look at a file, off the GUI thread
        self._looker.finished.connect(self._looked)
        # The look starts once the window has drawn the session: a worker shares the Python
        # interpreter with the window, and drawing 2,000 sections waited on it (0.2 s of 0.6).
        self._look_delay = QTimer(self)
        self._look_delay.setSingleShot(True)
        self._look_delay.setInterval(FIRST_LOOK_DELAY_MS)
        self._look_delay.timeout.connect(self._start_look)
        self._look: Callable[[], object] | None = None
        self.last_preview = ""
        self.last_change: tuple[str, str] = ("", "")  # TEAM-MEMORY.md's text before and after, as previewed
        # Asks the Lead (title, diff) → yes: the pane puts its dialog here. Unasked, nothing is written.
        self.confirm: Callable[[str, str], bool] = lambda title, diff: False

    def set_file(self, path: Path, text: str | None, memory: TeamMemory | None = None) -> None:
        """Follow another TEAM-MEMORY; ``memory`` is ``text`` parsed, kept for the loss check.

        The journal looks at the file in a worker (its lock serialises it with every other
        look): entries that vanished while the app was closed are reported like any other
        loss, and the first look at a large file, which journals every entry, does not hold
        up the window.
        """
        if path != self.path:
            self.undo_stack.clear()
            self.loss = None
            self.journal = MemoryJournal(path.parent)
            self._looker.drop()  # a first look at the file left behind is shown nowhere
        self.path, self.snapshot = path, memory if memory is not None else text
        self._look = None
        self._look_delay.stop()
        if text is not None and self.journal is not None:
            journal = self.journal
            self._look = lambda: (path, journal.observe(memory or parse_memory(text)))
            self._look_delay.start()

    def _ready_journal(self) -> MemoryJournal | None:
        """The journal, having taken its first look at the file: an edit of the Lead's in the
        moment before the delayed look would otherwise meet a journal that never saw the
        file's entries, and the ones it removed on purpose would read as lost."""
        if self._look is not None:
            self._look_delay.stop()
            self._start_look(now=True)
        elif self._looker.busy:
            self._looker.wait()  # under way: its entries go into the journal before the edit's
        return self.journal

    def _start_look(self, now: bool = False) -> None:
        """Start the first look in the worker, or ``now`` take it here."""
        look, self._look = self._look, None
        if look is None:
            return
        if not now:
            self._looker.request(look)
            return
        try:
            self._looked(look())
        except OSError as exc:
            self._looked(exc)

    def _looked(self, result: object) -> None:
        """The journal's first look, back from the worker: what vanished while the app was
        away (a look at a file the Lead has left since was dropped on the way)."""
        if isinstance(result, OSError):
            self.failed.emit(f"the TEAM-MEMORY journal could not be written: {result.strerror or result}")
            return
        if isinstance(result, Exception):
            self.failed.emit(f"the TEAM-MEMORY journal could not be read: {result}")
            return
        assert isinstance(result, tuple)
        looked: Path = result[0]
        vanished: list[Vanished] = result[1]
        if looked == self.path:
            self._report(journal_loss(vanished))
        if self._pending is not None:  # a write that came before the look: judge it now
            self._settle.start()

    @property
    def looking(self) -> bool:
        """The journal's first look is still to come or under way (in the worker)."""
        return self._look is not None or self._looker.busy

    def stop(self) -> None:
        """Wait for a first look still running (the window is closing); one not started yet
        is left for the next open."""
        self._look_delay.stop()
        self._look = None
        self._looker.stop()

    # -- the change pipeline: preview, confirm, write ----------------------------------------------

    def _run(self, title: str, edits: list[SectionEdit]) -> bool:
        if self.path is None:
            return False
        try:
            before, after = preview(self.path, edits)
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return False
        except OSError as exc:  # gone or unreadable since it was shown: said once, here
            self.failed.emit(f"{self.path.name}: {exc.strerror or exc}; nothing was written")
            return False
        diff = "".join(
            difflib.unified_diff(before.splitlines(True), after.splitlines(True), "TEAM-MEMORY.md", "after", n=1)
        )
        self.last_preview, self.last_change = diff, (before, after)
        if not diff or not self.confirm(title, diff):
            return False
        step = self.undo_stack.index()
        self.undo_stack.push(_MemoryCommand(self, title, edits))
        return self.undo_stack.index() > step  # a refused write dropped its command

    def write(self, edits: list[SectionEdit], title: str) -> EditResult | None:
        """Make ``edits`` on the file as it is now: the result, or None when it was refused
        (said on ``failed``)."""
        assert self.path is not None
        try:
            result = edit_memory(self.path, edits, self._ready_journal(), title)
        except Conflict as exc:
            self.failed.emit(f"{exc}\n--- on disk now:\n{exc.theirs}--- your edit:\n{exc.ours}")
            return None
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return None
        except OSError as exc:  # a full disk, a permission: said, and the file is as it was
            self.failed.emit(f"{self.path.name}: {exc.strerror or exc}; nothing was written")
            return None
        self.snapshot = result.text  # our own write is no loss
        if result.warning:
            self.failed.emit(result.warning)
        return result

    # -- what the Lead can do -------------------------------------------------------------------------

    def add_entry(self, role: str, tag: str | None, text: str) -> bool:
        """A Lead entry, or one relayed into a teammate's section (ADR-001 IP-010)."""
        access = access_of(role)
        stamp = utc_now_minutes() if role.lower() == "lead" or access == "Lead relay" else None
        try:
            line = entry_line(tag, text, stamp, relayed=access == "Lead relay")
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return False
        header = self._header(role)
        if header is None:
            return self._run(f"New section {role}", [SectionEdit(role, None, f"## {role}\n{line}\n")])
        verb = "Relay to" if access == "Lead relay" else "Add to"
        return self._run(f"{verb} {header}", [SectionEdit(header, None, lambda cur: append_entry(cur, line))])

    def create_with(self, session: Session, role: str, tag: str | None, text: str) -> bool:
        """The session has no TEAM-MEMORY.md: create it from ADR-001 §4's skeleton with this
        first entry, after showing the whole new file."""
        try:
            new = preview_create(session, role, tag, text, utc_now_minutes())
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return False
        diff = "".join(difflib.unified_diff([], new.splitlines(True), "(no TEAM-MEMORY.md)", "TEAM-MEMORY.md"))
        self.last_preview, self.last_change = diff, ("", new)
        if not self.confirm("Create TEAM-MEMORY.md", diff):
            return False
        try:
            create_with_entry(session, role, tag, text, utc_now_minutes())
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return False
        return True

    def archive(self, chosen: list[tuple[str, MemoryEntry]]) -> bool:
        """Prefix the chosen entries with [ARCHIVED] (at a gate: stale information)."""
        by_header: dict[str, set[str]] = {}
        for header, entry in chosen:
            by_header.setdefault(header, set()).add(entry.text)
        return self._run(f"Archive {counted(len(chosen), 'entry', 'entries')}", archive_edits(by_header))

    def archive_phase(self, phase: int) -> bool:
        """Archive every entry that names the phase, and sections whose header names it."""
        return self._run(f"Archive phase {phase}", archive_phase_edits(self._text(), phase))

    def replace_teammate(self, role: str) -> bool:
        """Mark the teammate's section [REPLACED] and start a new one for its successor."""
        try:
            edits = replace_edits(self._text(), role)
        except MemoryEditError as exc:
            self.failed.emit(str(exc))
            return False
        return self._run(f"Replace {role}", edits)

    def prune(self) -> bool:
        """Remove [ARCHIVED] entries (ADR-001: when the file is over 500 lines)."""
        return self._run("Prune archived entries", prune_edits(self._text()))

    def restore_lost(self) -> bool:
        """Put back what outside writes took away, each entry where it stood; previewed first."""
        if self.path is None or self.loss is None or not self.loss.any:
            return False
        if not self._run("Restore lost entries", restore_edits(self.loss)):
            return False
        self.loss = None
        self.lossFound.emit(Loss())
        return True

    # -- following the file -----------------------------------------------------------------------------

    def check_loss(self, memory: TeamMemory | None, raw: bytes | None = None) -> None:
        """An outside write was read: judge what it took away once the file holds still.

        Agents rewrite the file in place (truncate, then write); a version read in between is
        not what they wrote, and judging it would report every entry past the cut as lost. So
        the judgement waits ``SETTLE_MS`` and goes ahead only if the file is still this text
        and looks whole; a newer write brings its own check. ``raw``, the bytes ``memory`` was
        read from when the session kept them, makes "still this text" a comparison of bytes:
        decoding a 14 MB file again for it took 15 ms and a 29 MB string.
        """
        if memory is None:
            return
        self._pending = (memory, raw)
        self._settle.start()

    def _judge(self) -> None:
        if self._pending is None or self.path is None:
            return
        if self._look is not None or self._looker.busy:
            # The journal has not seen the file yet: start its look now (in the worker) and
            # judge once it is back, not here with a journal that lacks what the write dropped.
            self._look_delay.stop()
            self._start_look()
            return
        (memory, raw), self._pending = self._pending, None
        try:
            if raw is not None:
                still = holds_bytes(self.path, raw)
            else:
                still = read_bounded(self.path)[0].removeprefix(BOM).decode("utf-8") == memory.text
        except (OSError, UnicodeDecodeError):
            return  # the session shows why; nothing to judge
        if not still:
            return  # still being written: the next change is judged instead
        if incomplete(memory, self.journal) is not None:
            return
        structural = Loss()
        before = self.snapshot
        if isinstance(before, str):  # our own write: compared as text
            before = None if before == memory.text else parse_memory(before)
        if before is not None and not before.same_text(memory):
            structural = loss_between(before, memory)
        vanished = self._observe(memory)
        self.snapshot = memory
        self._report(journal_loss(vanished, structural))

    def _observe(self, memory: TeamMemory) -> list[Vanished]:
        """Journal what the file holds now; the entries that vanished, each reported once."""
        journal = self.journal
        if journal is None:
            return []
        try:
            return journal.observe(memory)
        except OSError as exc:
            self.failed.emit(f"the TEAM-MEMORY journal could not be written: {exc.strerror or exc}")
            return []

    def _report(self, loss: Loss) -> Loss:
        if loss.any:
            if self.loss is not None and self.loss.any:  # still not restored: keep both
                loss = _merged(self.loss, loss)
            self.loss = loss
            self.lossFound.emit(loss)
        return loss

    def _text(self) -> str:
        """TEAM-MEMORY as read now, to find headers (the write itself re-reads it settled and
        whole); in a file that cannot be read nothing is found, and the preview that follows
        says why (``_run``: once, not here and there)."""
        assert self.path is not None
        try:
            return read_text(self.path).text
        except OSError:
            return ""

    def _header(self, role: str) -> str | None:
        section = header_of(parse_memory(self._text()), role)
        return section.header if section is not None else None


def _merged(old: Loss, new: Loss) -> Loss:
    """Two reports the Lead has not acted on yet, as one."""
    lost = {h: list(v) for h, v in old.lost_entries.items()}
    for header, entries in new.lost_entries.items():
        lost.setdefault(header, []).extend(e for e in entries if e not in lost[header])
    return Loss(
        lost,
        {**old.removed_sections, **new.removed_sections},
        [*old.renamed, *(r for r in new.renamed if r not in old.renamed)],
        [*old.vanished, *new.vanished],
    )
