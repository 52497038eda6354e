"""Walk the Lead's daily loop in a real window on a real X server, a screenshot at each step.

Run (Debian's xvfb package), at each screen size the app must fit:
  xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/walk_flows.py OUT_DIR [FOLDER]
  xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/walk_flows.py OUT_DIR [FOLDER]

On a copy of FOLDER (the demo without one), its gc-history taken away so that it opens as a
session run by hand: open it, take the baseline Needs you offers, edit a section in the
composer by keyboard, publish after the review, answer a teammate's DELTA report with Reply…,
carry out a CONTEXT_LOST (the full GC re-sent), add a TEAM-MEMORY entry, start a gate and
conclude it. Every dialog is photographed while it is up, then answered as the Lead would.
A step the session cannot take (no versioned GC, no teammates) is said and passed over. Each
PNG is named after its step; look at every one.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QInputDialog, QWidget  # noqa: E402

from app.controller import Controller  # noqa: E402
from app.demo import copy_session  # noqa: E402
from app.settings import AppSettings  # noqa: E402
from ui.memory_entry_dialog import MemoryEntryDialog  # noqa: E402
from ui.reply_dialog import ReplyDialog  # noqa: E402
from ui.review_dialog import ReviewDialog  # noqa: E402

PAUSE_MS = 900  # long enough for the views to settle before each screenshot
CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier

Answer = Callable[[QWidget], None]
Expected = tuple[str, type, Answer]  # the screenshot's name, the dialog's class, the Lead's answer


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    source = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        folder = copy_session(source, Path(tmp))  # the demo comes with its team linked
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder / "gc-history", ignore_errors=True)  # as a session run by hand
        ctl = Controller(AppSettings(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)), headless=True)
        ctl.open(folder)
        w = ctl.window
        w.restore_layout()
        w.show()
        w.activateWindow()  # Xvfb has no window manager to give it the keyboard
        size = app.primaryScreen().size()
        prefix = f"{size.width()}x{size.height()}-{folder.name}"
        live = ctl.live
        assert live is not None
        roles = [t.role for t in live.session.teammates()]  # a finished teammate's message is answered too
        step = [0]  # the step under way: a dialog is looked for by its own step only

        def shot(name: str) -> None:
            path = out / f"{prefix}-{name}.png"
            app.primaryScreen().grabWindow(0).save(str(path))
            print(path)

        def activate() -> None:
            """The window active again (a dialog closing leaves none active under Xvfb, and keys
            would go nowhere)."""
            w.activateWindow()
            for _ in range(200):
                if QApplication.activeWindow() is w:
                    return
                app.processEvents()
                QTest.qWait(10)

        def expect(chain: list[Expected]) -> None:
            """Photograph each modal dialog of ``chain`` as it comes up, then answer it."""
            if not chain:
                return
            name, kind, answer = chain[0]
            mine = step[0]

            def look(tries: int = 0) -> None:
                dialog = QApplication.activeModalWidget()
                if not isinstance(dialog, kind) or dialog.property("walked") or step[0] != mine:
                    if tries < 50 and step[0] == mine:
                        QTimer.singleShot(100, lambda: look(tries + 1))
                    else:
                        print(f"{prefix}: no dialog came up for {name}")
                    return
                dialog.setProperty("walked", True)

                def then() -> None:
                    shot(name)
                    expect(chain[1:])
                    answer(dialog)

                QTimer.singleShot(PAUSE_MS, then)

            QTimer.singleShot(100, look)

        def ok(dialog: QWidget) -> None:
            if isinstance(dialog, ReviewDialog):
                dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
            elif isinstance(dialog, QDialog):
                dialog.accept()

        def notes(dialog: QWidget) -> None:
            if isinstance(dialog, QInputDialog):
                dialog.setTextValue("Replay verified on the 1% sample; full run before phase 7.")
                dialog.accept()

        def decide(dialog: QWidget) -> None:
            assert isinstance(dialog, ReplyDialog)
            for button in getattr(dialog, "decisions", [])[:1]:
                button.click()
            QTest.keyClicks(dialog.editor, " Keep the corrections table as it is.")
            dialog.review_button.click()

        def memory_entry(dialog: QWidget) -> None:
            assert isinstance(dialog, MemoryEntryDialog)
            QTest.keyClicks(dialog.text_box, "Replay order settled: by event time, then by id")
            dialog.ok_button.click()

        def needs_you(action: str) -> bool:
            pane = w.attention_pane
            row = next((n for n, item in enumerate(pane.model.items) if item.action == action), None)
            if row is None:
                return False
            w.attention_dock.show()
            w.attention_dock.raise_()
            pane.view.setFocus()
            pane.view.setCurrentIndex(pane.model.index(row, 0))
            QTest.keyClick(pane.view, Qt.Key.Key_Return)
            return True

        def adopt() -> None:
            expect([("2b-baseline-review", ReviewDialog, ok)])
            if not needs_you("baseline"):
                print(f"{prefix}: no baseline offered (the GC has no version, or a snapshot)")

        def edit() -> None:
            QTest.keyClick(w.sections_pane.gc_view, Qt.Key.Key_U, CTRL | SHIFT)  # Compose Update
            if w.central_tabs.currentWidget() is not w.composer:
                print(f"{prefix}: Ctrl+Shift+U did not bring the composer forward")
            model = w.sections_pane.gc_model
            for row in range(model.rowCount()):
                if model.index(row, 2).data():  # the first section with items
                    w.sections_pane.gc_view.setCurrentIndex(model.index(row, 0))
                    break
            editor = w.composer.editor
            editor.setFocus()
            cursor = editor.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            editor.setTextCursor(cursor)
            QTest.keyClick(editor, Qt.Key.Key_Return)  # a new line at the section's end, then the item
            QTest.keyClicks(editor, "- Walk Check: typed in the window")

        def publish() -> None:
            w.composer.commit_section_edit()
            if not w.composer.publish_button.isEnabled():
                print(f"{prefix}: nothing to publish ({w.composer.header.text()})")
                return
            expect([("4b-publish-review", ReviewDialog, ok)])
            QTest.keyClick(w, Qt.Key.Key_P, CTRL | SHIFT)

        def drop_messages() -> None:
            if roles:
                _drop_messages(folder / "messages" / "inbox", roles)
                ctl.refresh_reviews()

        def reply() -> None:
            pane = w.review_pane
            model = pane.model
            sender = roles[0] if roles else None
            row = next((r for r in range(model.rowCount()) if model.index(r, 0).data() == sender), None)
            if row is None:
                print(f"{prefix}: no message to reply to")
                return
            w.inbox_dock.show()
            w.inbox_dock.raise_()
            pane.view.setCurrentIndex(model.index(row, 0))
            expect([("6b-reply", ReplyDialog, decide), ("6c-reply-review", ReviewDialog, ok)])
            QTest.keyClick(w, Qt.Key.Key_Return, CTRL | SHIFT)

        def resend_lost() -> None:
            expect([("7b-carry-out-review", ReviewDialog, ok)])
            if not needs_you("carry-out"):
                print(f"{prefix}: no lost context to re-send")

        def add_memory() -> None:
            w.memory_dock.show()
            w.memory_dock.raise_()
            expect([("8b-memory-entry", MemoryEntryDialog, memory_entry), ("8c-memory-review", ReviewDialog, ok)])
            QTest.keyClick(w, Qt.Key.Key_A, CTRL | SHIFT)

        def gate(start: bool) -> None:
            if start:
                expect([("9b-gate-phase", QInputDialog, ok), ("9c-gate-review", ReviewDialog, ok)])
            else:
                expect([("10b-gate-verdict", QInputDialog, ok), ("10c-gate-notes", QInputDialog, notes)])
            QTest.keyClick(w, Qt.Key.Key_G, CTRL)

        steps: list[tuple[str, Callable[[], None]]] = [
            ("1-open", lambda: None),
            ("2-needs-you", adopt),
            ("3-compose", edit),
            ("4-decisions", lambda: w.composer.preview_tabs.setCurrentIndex(1)),
            ("4a-publish", publish),
            ("5-inbox", drop_messages),
            ("6-reply", reply),
            ("7-lost", resend_lost),
            ("8-memory", add_memory),
            ("9-gate-start", lambda: gate(True)),
            ("10-gate-conclude", lambda: gate(False)),
            ("11-gates", lambda: (w.gates_dock.show(), w.gates_dock.raise_())),
            ("12-context", lambda: (w.context_dock.show(), w.context_dock.raise_())),
        ]

        def run(i: int = 0) -> None:
            if i == len(steps):
                w.confirm_discard = lambda: True  # type: ignore[method-assign]
                app.quit()
                return
            name, act = steps[i]
            step[0] = i
            activate()
            try:
                act()
            except Exception as exc:  # the walk goes on, and says what broke
                print(f"{prefix}: {name} failed: {exc!r}")
            ctl.settle(timeout_s=10)
            QTimer.singleShot(PAUSE_MS, lambda: (shot(name), run(i + 1)))

        QTimer.singleShot(1200, run)
        app.exec()
        ctl.close()
    return 0


def _drop_messages(inbox: Path, roles: list[str]) -> None:
    """A DELTA report that asks for the Lead's decision from the first teammate, and a
    CONTEXT_LOST from the last, as teammates write them."""
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"{roles[0]}-report.md").write_text(
        'Replay done for the 1% sample.\n\nDELTA:\n  changes:\n    - "replay order"\n  risks:\n'
        '    - level: high\n      desc: "2,914 manual corrections have no source event"\n  needs_consult: yes\n',
        encoding="utf-8",
    )
    (inbox / f"{roles[-1]}-status.md").write_text("[STATUS] Phase 6 | CONTEXT_LOST\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
