"""What happens to an error nobody caught: shown in the window with a copyable report, logged,
and the app kept running.

PySide6 hands an exception that escapes a slot to ``sys.excepthook`` and carries on; so do
worker threads through ``threading.excepthook``. Without a hook both end on stderr only, which a
desktop user never sees. Qt's own messages go through ``qInstallMessageHandler``: warnings are
logged, critical ones shown.
"""

from __future__ import annotations

import platform
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QMessageLogContext, QObject, Qt, QtMsgType, Signal, Slot, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def report(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> str:
    """The text a user copies into a bug report: versions, then the traceback."""
    from PySide6 import __version__ as pyside

    lines = traceback.format_exception(kind, value, tb)
    head = f"Lead Console on Python {platform.python_version()}, PySide6 {pyside}, {platform.platform()}\n\n"
    return head + "".join(lines)


class CrashHandler(QObject):
    """Installs the hooks; ``shown`` carries each report (tests listen to it)."""

    shown = Signal(str, str)  # one line, the whole report
    _queued = Signal(str, str)

    def __init__(self, parent_window: Callable[[], QWidget | None], interactive: bool = True) -> None:
        # Owned by the application, not by Python: its signal connections form a reference cycle,
        # and a QObject destroyed by the cyclic collector at an arbitrary moment can crash Qt.
        super().__init__(QApplication.instance())
        self.parent_window = parent_window
        self.interactive = interactive
        self.reports: list[str] = []
        self._queued.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self._previous = (sys.excepthook, threading.excepthook)

    def install(self, qt_messages: bool = True) -> None:
        """Take over the Python hooks and (unless a test harness owns them) Qt's messages."""
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        if qt_messages:
            qInstallMessageHandler(self._qt_message)

    def uninstall(self) -> None:
        """Give the Python hooks back (Qt's message handler stays: the app is ending)."""
        sys.excepthook, threading.excepthook = self._previous

    def _excepthook(self, kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            QApplication.quit()
            return
        text = report(kind, value, tb)
        print(text, file=sys.stderr)
        # Queued: the hook may run in the middle of a paint or a model change; the dialog waits.
        self._queued.emit(f"{kind.__name__}: {value}", text)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            self._excepthook(args.exc_type, args.exc_value, args.exc_traceback)

    def _qt_message(self, kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if "propagateSizeHints" in message:
            return  # the offscreen platform says this for every native window
        print(message, file=sys.stderr)
        if kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            self._queued.emit(f"Qt: {message}", message)

    @Slot(str, str)
    def _show(self, line: str, text: str) -> None:
        self.reports.append(text)
        self.shown.emit(line, text)
        if not self.interactive:
            return
        box = QMessageBox(self.parent_window())
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Lead Console: an unexpected error")
        box.setText(
            f"{line}\n\nThe action that failed may not have finished; the window stays usable and "
            "every file is as the last completed write left it. The details can be copied into a bug report."
        )
        box.setDetailedText(text)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.open()  # not exec(): no nested event loop inside whatever failed
