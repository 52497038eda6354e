"""An error nobody caught is shown with a copyable report, and the window keeps working.

The hooks are process-wide (``sys.excepthook``, ``threading.excepthook``, Qt's message handler),
so the check runs in a process of its own, as the app does, not inside the test process whose
hooks pytest-qt owns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import DEMO, ROOT

SCRIPT = r"""
import json, shutil, sys, threading
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])
from app.controller import Controller
from app.crash import CrashHandler
from app.settings import AppSettings

tmp, demo = Path(sys.argv[1]), Path(sys.argv[2])
folder = tmp / "p" / ".agent" / "teams" / demo.name
shutil.copytree(demo, folder)
ctl = Controller(AppSettings(QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat)), headless=True)
handler = CrashHandler(lambda: ctl.window, interactive=False)
handler.install()
lines = []
handler.shown.connect(lambda line, text: lines.append((line, text)))

def broken_slot():
    raise ValueError("a bug in a slot")

def broken_worker():
    raise RuntimeError("a bug in a worker")

def after():
    thread = threading.Thread(target=broken_worker)
    thread.start()
    thread.join()
    QTimer.singleShot(200, finish)

def finish():
    opened = ctl.open(folder) and ctl.window.sections_pane.gc_model.rowCount() > 0  # the window still works
    print(json.dumps({"lines": [l for l, _ in lines], "report": lines[0][1] if lines else "", "opened": opened}))
    ctl.close()
    app.quit()

QTimer.singleShot(0, broken_slot)
QTimer.singleShot(200, after)
app.exec()
"""


def test_an_exception_in_a_slot_or_a_thread_is_reported_and_the_app_goes_on(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), str(DEMO)],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["lines"] == ["ValueError: a bug in a slot", "RuntimeError: a bug in a worker"]
    assert "Traceback (most recent call last)" in data["report"] and "broken_slot" in data["report"]
    assert "PySide6" in data["report"] and data["opened"] is True
    assert "a bug in a slot" in result.stderr  # also logged
