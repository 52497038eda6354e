"""An error nobody caught is shown with a copyable report, and the window keeps working."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.crash import CrashHandler


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_or_a_thread_is_reported_and_the_app_goes_on(
    qtbot: QtBot, controller: Controller, demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handler = CrashHandler(lambda: controller.window, interactive=False)
    handler.install()
    try:

        def broken_slot() -> None:
            raise ValueError("a bug in a slot")

        with qtbot.waitSignal(handler.shown, timeout=5000) as blocker:
            QTimer.singleShot(0, broken_slot)
        line, text = blocker.args
        assert line == "ValueError: a bug in a slot"
        assert "Traceback (most recent call last)" in text and "broken_slot" in text and "PySide6" in text

        def broken_worker() -> None:
            raise RuntimeError("a bug in a worker")

        with qtbot.waitSignal(handler.shown, timeout=5000) as blocker:
            thread = threading.Thread(target=broken_worker)
            thread.start()
            thread.join()
        assert blocker.args[0] == "RuntimeError: a bug in a worker"
        assert "a bug in a slot" in capsys.readouterr().err  # also logged
        # The window still works: a session opens and shows its sections.
        assert controller.open(demo_copy) and controller.window.gc_model.rowCount() > 0
    finally:
        handler.uninstall()
