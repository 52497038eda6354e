"""A session that follows its folder on disk: watcher events become part reloads."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from app.watcher import FolderWatcher
from models.session.folder import ALL_PARTS, Session, open_session
from models.session.locate import part_of
from models.session.snapshot import Part
from models.text.intent import TakenBack, take_back
from models.text.tokens import Tokenizer


class LiveSession(QObject):
    """Owns a ``Session`` and its watcher; emits ``changed`` with the parts that changed."""

    changed = Signal(set)
    # The folder could not be watched (the system's limit of watches, say): why, in one line.
    # The session stays open as read; changes on disk show when it is opened again.
    unwatched = Signal(str)

    def __init__(self, folder: Path, tokenizer: Tokenizer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        resolved = folder.expanduser().resolve()
        # The watch begins once the window shows what the open read (``_settle_stamps``):
        # starting the watcher's three threads took 2.5–5 ms of the open, before anything was
        # shown. A write that lands after a file was read and before the watch began is found
        # by the catch-up that follows the watch's start (``Session.catch_up``).
        self._watcher: FolderWatcher | None = None
        self._never_watch = False  # closed, or the watch could not begin: no watch is begun
        # The parts read ahead and touched again since the last reload: a writer that opens
        # and closes a file many times in one burst (a shell appending line by line) gets one
        # read ahead, not one per close; the reload reads the file after the burst.
        self._ahead_wasted: set[Part] = set()
        self.session: Session = open_session(resolved, tokenizer)
        # The files a reload read are fingerprinted (for the checks before our writes) in the
        # next turn of the event loop, after the change is painted: 6 ms on a 10 MB file.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(0)
        self._settle.timeout.connect(self._settle_stamps)
        self._settle.start()  # the files the open read, once the window shows them

    @property
    def watcher(self) -> FolderWatcher | None:
        """The folder's watcher, None until the first turn of the event loop after the open."""
        return self._watcher

    def _watch(self) -> bool:
        """Begin the watch, then catch up: what an agent wrote between the open's read and now
        has no event of ours, and is read again (``Session.catch_up``). Whether anything had
        changed."""
        try:
            watcher = FolderWatcher(self.session.folder, parent=self)
        except OSError as exc:
            self._never_watch = True
            why = exc.strerror or str(exc)
            self.unwatched.emit(f"{self.session.folder} cannot be watched ({why}): changes on disk are not shown")
            return False
        watcher.pathsChanged.connect(self._on_paths)
        watcher.touched.connect(self._on_touched)
        watcher.written.connect(self._on_written)
        self._watcher = watcher
        changed = self.session.catch_up()
        if changed:
            self.changed.emit(changed)
        return bool(changed)

    def _on_touched(self, raw: str) -> None:
        part = part_of(self.session.folder, Path(raw))
        if part is not None and self.session.drop_ahead(part):
            self._ahead_wasted.add(part)

    def _on_written(self, raw: str) -> None:
        """The GC and TEAM-MEMORY are read as their writer is done, during the quiet spell the
        watcher waits out before ``pathsChanged``: the reload after it shows what was read
        (``Session.read_ahead``). The other parts are read at the reload."""
        part = part_of(self.session.folder, Path(raw))
        if part is not None and part not in self._ahead_wasted:
            self.session.read_ahead(part)

    def _on_paths(self, paths: list[str]) -> None:
        parts: set[Part] = set()
        for raw in paths:
            part = part_of(self.session.folder, Path(raw))
            if part is not None:
                parts.add(part)
                if part == "folders":  # a new phase folder may also bring a gate record
                    parts.add("gates")
        self._ahead_wasted.clear()
        self.reload(parts, ahead=True)

    def reload(self, parts: set[Part] | None = None, ahead: bool = False) -> None:
        """Re-read ``parts`` (all when None) and announce what really changed; ``ahead``: the
        watcher's, which takes a file as read ahead if nothing touched it since."""
        changed = self.session.reload(ALL_PARTS if parts is None else parts, ahead=ahead)
        if changed:
            self.changed.emit(changed)
        self._settle.start()

    def _settle_stamps(self) -> None:
        """A slot of ours, not the session's bound method: a Qt connection to a plain object's
        method holds that object, and a left session must be free to go with this one. The
        first one begins the watch (``_watch``)."""
        if self._watcher is None and not self._never_watch and self._watch():
            self._settle.start()  # what changed is fingerprinted once the view shows it
            return
        self.session.settle_stamps()

    def set_tokenizer(self, tokenizer: Tokenizer) -> None:
        """Recount with another tokenizer: only the GC carries token counts."""
        self.session.tokenizer = tokenizer
        self.session.stamps.pop("global-context.md", None)
        self.reload({"gc"})

    def close(self) -> None:
        """Stop following the folder (the watch is never begun if it had not been yet)."""
        self._never_watch = True
        self._settle.stop()
        if self._watcher is not None:
            self._watcher.stop()


def take_back_cut_short(folder: Path) -> tuple[str, str]:
    """Take back what an action cut short in ``folder`` wrote, before the session is read:
    (the status line's summary, the whole account), empty for none. A record that cannot be
    read is left for the composer's banner to say; every action refuses on it."""
    try:
        found = take_back(folder)
    except OSError as exc:
        line = f"An action cut short could not be taken back: {exc.strerror or exc}"
        return line, line
    if not isinstance(found, TakenBack):
        return "", ""
    return found.summary(), found.describe()
