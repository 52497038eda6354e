"""Opening a session by dropping its folder (or a file in it) on the window.

A Lead who has the session's folder open in a file manager, or a terminal's path to drag,
drops it rather than walking the Open dialog down to ``.agent/teams/<id>``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject, SignalInstance
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QWidget


def dropped_folder(mime: QMimeData) -> Path | None:
    """The folder a drop names: one local folder, or the folder of one local file (the GC
    dragged from a file manager). Several items, or anything not on this machine, name none."""
    local = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
    if len(local) != 1 or len(mime.urls()) != 1:
        return None
    path = Path(local[0])
    if path.is_dir():
        return path
    return path.parent if path.is_file() else None


class FolderDrop(QObject):
    """Takes drops of a folder anywhere on ``window`` (over any pane that does not take drops
    itself) and emits ``opened`` with its path, as File ▸ Open does."""

    def __init__(self, window: QWidget, opened: SignalInstance) -> None:
        super().__init__(window)
        self.opened = opened
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Accept a drag that names a folder; open it on the drop."""
        if isinstance(event, QDragEnterEvent):  # the file system looked at once per drag
            if dropped_folder(event.mimeData()) is not None:
                event.acceptProposedAction()
            else:
                event.ignore()
            return True
        if isinstance(event, QDragMoveEvent) and event.type() == QEvent.Type.DragMove:
            event.acceptProposedAction()  # only a drag whose entry was taken moves here
            return True
        if isinstance(event, QDropEvent):
            folder = dropped_folder(event.mimeData())
            if folder is not None:
                event.acceptProposedAction()
                self.opened.emit(str(folder))
            return True
        return False
