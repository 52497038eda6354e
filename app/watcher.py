"""Bridge from watchdog's thread to the GUI thread: debounced lists of changed paths.

The whole session folder is watched, not single files: agents and our own writes replace
files by renaming a temp file over them, which drops a watch placed on the file itself.
Events arrive on watchdog's thread; the handler is a QObject whose signal is delivered queued
in the GUI thread, where a single-shot timer collects bursts (an editor's save is several
events) into one ``pathsChanged`` emission.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from models.text.atomic import is_temp_file

DEBOUNCE_MS = 40
# TEAM-MEMORY changes are delivered after a shorter quiet spell: each writer's version is read
# (and journaled) on its own instead of being merged with the next writer's.
QUICK_MS = 5
QUICK_NAMES = frozenset({"TEAM-MEMORY.md"})
# A stream of changes with no quiet spell in it (a team of agents appending to transcripts) is
# still passed on this often: the quiet spell is waited for, not for ever.
MAX_WAIT_MS = 400
APP_FOLDER = ".lead-console"  # the app's own journal: never a change to show
_IGNORED_EVENTS = {"opened", "closed_no_write"}
# What the kernel is asked to report: not opens and reads, which every read of ours (and of the
# agents') would otherwise wake the watcher with, four events a file.
_REPORTED = [
    FileCreatedEvent,
    DirCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    DirMovedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileClosedEvent,
]


class _StopRace(logging.Filter):
    """watchdog logs an ERROR when its emitter was between two reads as the observer stopped,
    which ``FolderWatcher.stop`` does for every session or team left: nothing is lost, and the
    line on stderr read as a failure. Only that message is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "queue_events() called when the thread is inactive" not in record.getMessage()


logging.getLogger("watchdog.observers.inotify").addFilter(_StopRace())


class _EventRelay(QObject, FileSystemEventHandler):
    """Receives watchdog events on its thread and re-emits their paths as Qt signals."""

    pathSeen = Signal(str)
    pathWritten = Signal(str)  # after its ``pathSeen``: a writer closed the file, or renamed it into place

    def __init__(self) -> None:
        QObject.__init__(self)
        FileSystemEventHandler.__init__(self)
        self.stopped = False  # set before the observer stops: no emit from a watcher being torn down

    def on_any_event(self, event: FileSystemEvent) -> None:
        if self.stopped or event.event_type in _IGNORED_EVENTS:
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder's mtime changes with every file in it: the file events say more
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(raw)
            if _ours_to_show(path):
                self.pathSeen.emit(path)
        if not event.is_directory and event.event_type in ("closed", "moved"):  # the file is whole
            done = os.fsdecode(getattr(event, "dest_path", "") if event.event_type == "moved" else event.src_path)
            if _ours_to_show(done):
                self.pathWritten.emit(done)


def _ours_to_show(path: str) -> bool:
    """Not a temp file on its way to its name, nor the app's own journal."""
    return bool(path) and not is_temp_file(os.path.basename(path)) and APP_FOLDER not in Path(path).parts


class FolderWatcher(QObject):
    """Watches a folder tree; emits ``pathsChanged`` (sorted, unique) after a quiet spell.

    Before it, each path is passed on as its events arrive: ``touched`` for every event,
    ``written`` once a writer is done with a file (after that event's ``touched``). A file
    read on ``written`` holds what the next ``pathsChanged`` would read, unless it is
    ``touched`` again first."""

    pathsChanged = Signal(list)
    touched = Signal(str)
    written = Signal(str)

    def __init__(self, folder: Path, debounce_ms: int = DEBOUNCE_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.folder = folder
        self._pending: set[str] = set()
        self._since = 0.0  # when the first of the pending changes came
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._debounce_ms = debounce_ms
        self._timer.timeout.connect(self._flush)
        self._relay = _EventRelay()
        self._relay.pathSeen.connect(self._collect, Qt.ConnectionType.QueuedConnection)
        self._relay.pathWritten.connect(self.written, Qt.ConnectionType.QueuedConnection)
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(self._relay, str(folder), recursive=True, event_filter=_REPORTED)
        self._observer.start()

    def _collect(self, path: str) -> None:
        self.touched.emit(path)
        if not self._pending:
            self._since = time.monotonic()
        self._pending.add(path)
        if self._timer.isActive() and time.monotonic() - self._since >= MAX_WAIT_MS / 1000:
            return  # the stream has gone on long enough: emit when the timer runs out
        quick = os.path.basename(path) in QUICK_NAMES
        self._timer.setInterval(min(QUICK_MS, self._debounce_ms) if quick else self._debounce_ms)
        self._timer.start()  # restart: emit once the burst is over

    def _flush(self) -> None:
        if self._pending:
            paths, self._pending = sorted(self._pending), set()
            self.pathsChanged.emit(paths)

    def stop(self) -> None:
        """Stop and join the observer thread; safe to call twice."""
        self._timer.stop()
        self._relay.stopped = True
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join(timeout=5)
        self._relay.pathSeen.disconnect()
        self._relay.pathWritten.disconnect()
