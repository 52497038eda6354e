"""Saying so while the window's thread does work the Lead waits for.

Opening a large session reads and parses its files on the window's thread (the window shows
them as soon as they are read): on a session ten times the benchmark's, about a second in
which the window cannot repaint. The status line says what is happening, painted before the
work starts, and the cursor waits with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

from models.session.folder import GC_FILE, MEMORY_FILE
from models.text.tokens import tokenizer_ready

LARGE_SESSION_BYTES = 4 << 20  # a GC and TEAM-MEMORY this large take a noticeable while to open


def session_bytes(folder: Path) -> int:
    """The size of the files an open parses whole (the GC and TEAM-MEMORY); 0 for any that
    cannot be looked at, which the open itself reports."""
    total = 0
    for name in (GC_FILE, MEMORY_FILE):
        with suppress(OSError):
            total += (folder / name).stat().st_size
    return total


@contextmanager
def busy(window: QMainWindow, message: str) -> Iterator[None]:
    """``message`` in the status line, painted now, and a wait cursor until the block ends."""
    bar = window.statusBar()
    bar.showMessage(message)
    bar.repaint()  # the work that follows holds the event loop: paint it before, not after
    QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QGuiApplication.restoreOverrideCursor()
        bar.clearMessage()


@contextmanager
def loading_vocabulary(window: QMainWindow, name: str) -> Iterator[None]:
    """While the ``name`` tokenizer is made: ``busy`` when its vocabulary is still to load (the
    app's first open, a Tokens menu choice), else nothing. The first open showed the empty
    window for up to 0.7 s without a word before the session came."""
    if tokenizer_ready(name):
        yield
        return
    with busy(window, f"Loading the {name} token vocabulary…"):
        yield


@contextmanager
def opening(window: QMainWindow, folder: Path) -> Iterator[None]:
    """While the session in ``folder`` opens: ``busy`` when its files are large, else nothing
    (a paint of the status line is not worth it for an open the Lead does not notice)."""
    size = session_bytes(folder)
    if size <= LARGE_SESSION_BYTES:
        yield
        return
    with busy(window, f"Opening {folder.name} ({size / 1e6:.0f} MB)…"):
        yield
