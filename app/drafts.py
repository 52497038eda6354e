"""Keeps the composer's unpublished draft on disk as the Lead types (``models.publish.draft``).

Saves are coalesced (the last state after a short pause is written, atomically, in the
session's ``.lead-console/``), and flushed at once when the session is left or the window
closes. The writing (with its fsync, which a slow disk can make long) runs on a one-thread pool
of its own, in the order asked; closing the window waits for it. A draft that is no longer
dirty (published, undone to nothing, discarded) is removed, but only one this run kept or
restored: a draft file that could not be read stays for the Lead.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from models.publish.draft import DRAFT_FILE, Draft, draft_of, read_draft
from models.publish.publishing import utc_now
from models.text.atomic import atomic_write
from ui.composer.pane import ComposerPane
from ui.composer.undo import ComposerState
from ui.workers import Job

PAUSE_MS = 400


class DraftKeeper(QObject):
    """The one writer of draft files; ``failed`` carries a line for the status bar, ``written``
    the session folder whose draft file is now as last asked (or could not be)."""

    failed = Signal(str)
    written = Signal(object)
    _result = Signal(object, object)  # folder, the line saying why it failed (None: done)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # one writer: saves land in the order asked
        self._result.connect(self._done)
        self._pending: tuple[Path, Draft | None] | None = None
        self.ours: set[Path] = set()  # draft files this run wrote or restored: only these are removed
        self._said: set[Path] = set()  # folders whose failed save was said: once, not at every pause
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PAUSE_MS)
        self._timer.timeout.connect(self.flush)

    def follow(self, pane: ComposerPane) -> None:
        """The pane's composer changed: keep its draft (or that it has none)."""
        c = pane.composer
        if c is not None:
            self.keep(c.session.folder, draft_of(c, utc_now()))

    def keep(self, folder: Path, draft: Draft | None) -> None:
        """Keep ``draft`` for ``folder`` (None: there is none) after a short pause."""
        if self._pending is not None and self._pending[0] != folder:
            self.flush()  # another session's draft is written before this one waits
        self._pending = (folder, draft)
        self._timer.start()

    def flush(self) -> None:
        """Write what waits now (in the pool)."""
        self._timer.stop()
        pending, self._pending = self._pending, None
        if pending is None:
            return
        folder, draft = pending
        path = folder / DRAFT_FILE
        if draft is None:
            if path not in self.ours:
                return  # not ours to remove: a draft file this run could not read stays
            self.ours.discard(path)
            self.pool.start(Job(lambda: _remove(path), lambda why: self._result.emit(folder, why)))
        else:
            self.ours.add(path)
            data = draft.encode()
            self.pool.start(Job(lambda: _write(path, data), lambda why: self._result.emit(folder, why)))

    def finish(self) -> None:
        """Write what waits and wait until it is on disk: the window is closing."""
        self.flush()
        self.pool.waitForDone()

    def _done(self, folder: Path, why: object) -> None:
        if why is not None and folder not in self._said:
            self._said.add(folder)
            self.failed.emit(str(why))
        self.written.emit(folder)


def _write(path: Path, data: bytes) -> str | None:
    """In the pool: the draft on disk, or the line saying why not."""
    try:
        path.parent.mkdir(exist_ok=True)
        atomic_write(path, data, None)
    except OSError as exc:
        return f"Your draft could not be kept in {path}: {exc.strerror or exc}"
    return None


def _remove(path: Path) -> str | None:
    try:
        with suppress(FileNotFoundError):
            path.unlink()
    except OSError as exc:
        return f"Your draft could not be removed from {path}: {exc.strerror or exc}"
    return None


def restore_into(pane: ComposerPane, keeper: DraftKeeper) -> str | None:
    """Put the session's kept draft back into the freshly opened composer, as one undo step
    (Undo drops it again); the line that says so, or why it could not be read."""
    c = pane.composer
    if c is None:
        return None
    draft, problem = read_draft(c.session.folder)
    if draft is None:
        return problem
    keeper.ours.add(c.session.folder / DRAFT_FILE)
    kept = ComposerState(draft.working_text, draft.hand_items, draft.impact, draft.forced_full)
    if kept == pane.state():
        return None
    if draft.taken_text is not None and draft.taken_text != c.taken_text:
        c.taken_text, c.gc_stamp = draft.taken_text, None  # agents changed the GC since: merged, not overwritten
    pane.push_change(f"Restore the draft of {draft.saved_at}", kept)
    return f"Restored your unpublished draft of {draft.saved_at} (Edit ▸ Undo drops it)"
