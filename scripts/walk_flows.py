"""Walk the main flows in a real window on a real X server and save a screenshot of each step.

Run (Debian's xvfb package), at each screen size the app must fit:
  xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/walk_flows.py OUT_DIR [FOLDER]
  xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/walk_flows.py OUT_DIR [FOLDER]
The steps: open the session, preview a section, edit it in the composer with the keyboard,
look at the teammates' decisions and the savings, the Inbox and the Context pane. Each step's
PNG is named after it; look at every one.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.controller import Controller  # noqa: E402
from app.demo import copy_session  # noqa: E402
from app.settings import AppSettings  # noqa: E402


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = copy_session(source, Path(tmp))  # the demo comes with its team linked
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        _drop_messages(folder / "messages" / "inbox")
        ctl = Controller(AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)), headless=True)
        ctl.open(folder)
        w = ctl.window
        w.restore_layout()
        w.show()
        w.activateWindow()  # Xvfb has no window manager to give it the keyboard
        size = app.primaryScreen().size()
        prefix = f"{size.width()}x{size.height()}-{folder.name}"

        def select_first_section_with_items() -> None:
            model = w.gc_model
            for row in range(model.rowCount()):
                index = model.index(row, 0)
                if model.index(row, 2).data():
                    w.gc_view.setCurrentIndex(index)
                    return

        def type_an_item() -> None:
            QTest.keyClick(
                w.gc_view, Qt.Key.Key_U, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
            )
            editor = w.composer.editor
            editor.setFocus()
            cursor = editor.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            editor.setTextCursor(cursor)
            QTest.keyClicks(editor, "- Walk Check: typed in the window")

        steps: list[tuple[str, Callable[[], None]]] = [
            ("1-open", lambda: None),
            ("2-section", select_first_section_with_items),
            ("3-compose", type_an_item),
            ("4-decisions", lambda: w.composer.preview_tabs.setCurrentIndex(1)),
            ("5-savings", lambda: w.composer.preview_tabs.setCurrentIndex(2)),
            ("6-inbox", lambda: (w.inbox_dock.show(), w.inbox_dock.raise_())),
            ("7-context", lambda: (w.context_dock.show(), w.context_dock.raise_())),
        ]

        def run(i: int = 0) -> None:
            if i == len(steps):
                # The walk typed an item: quitting asks whether to discard it, which under Xvfb
                # nobody answers (the script hung there).
                w.confirm_discard = lambda: True  # type: ignore[method-assign]
                app.quit()
                return
            name, act = steps[i]
            act()
            QTimer.singleShot(900, lambda: (shot(name), run(i + 1)))

        def shot(name: str) -> None:
            path = out / f"{prefix}-{name}.png"
            app.primaryScreen().grabWindow(0).save(str(path))
            print(path)

        QTimer.singleShot(1200, run)
        app.exec()
        ctl.close()
    return 0


def _drop_messages(inbox: Path) -> None:
    """Two replies as teammates write them, so that the Inbox step shows rows to read."""
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "implementer-2-ack.md").write_text(
        "[ACK-UPDATE] GC-v6 received. Items: 0/1. Impact: unsure which table. Action: NEED_CLARIFICATION\n",
        encoding="utf-8",
    )
    (inbox / "implementer-4-report.md").write_text(
        'Replay done for the 1% sample.\n\nDELTA:\n  changes:\n    - "replay order"\n  risks:\n'
        '    - level: high\n      desc: "2,914 manual corrections have no source event"\n  needs_consult: yes\n',
        encoding="utf-8",
    )


if __name__ == "__main__":
    raise SystemExit(main())
