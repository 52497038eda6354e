"""Render the window as a person sees it on a laptop: a real X server (Xvfb) of 1366×768.

Run: xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/laptop_screenshot.py OUT.png [FOLDER]
(Debian's xvfb package; FOLDER defaults to a fresh copy of the demo session.)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.controller import Controller  # noqa: E402
from app.demo import copy_session  # noqa: E402
from app.settings import AppSettings  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = copy_session(source, Path(tmp))  # the demo comes with its team linked
        settings = AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        ctl = Controller(settings, headless=True)
        ctl.open(folder)
        window = ctl.window
        window.restore_layout()  # the first-run size, kept within this screen
        window.show()

        def shot() -> None:
            screen = app.primaryScreen()
            screen.grabWindow(0).save(str(out))
            size = screen.size()
            print(f"{out}: window {window.width()}×{window.height()} on a {size.width()}×{size.height()} screen")
            app.quit()

        QTimer.singleShot(1500, shot)
        app.exec()
        ctl.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
