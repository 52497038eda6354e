"""Connects the window's requests to live sessions and settings."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QInputDialog, QMessageBox

from app.cli import UsageError, resolve_session
from app.live_session import LiveSession
from app.settings import AppSettings
from models.composer import Composer
from models.session import Part, find_sessions
from models.tokens import get_tokenizer
from ui.main_window import MainWindow


class Controller(QObject):
    """Owns the window and the open ``LiveSession``; ``headless`` never shows dialogs."""

    def __init__(self, settings: AppSettings, headless: bool = False) -> None:
        super().__init__()
        self.settings = settings
        self.headless = headless
        self.live: LiveSession | None = None
        self.window = MainWindow(settings.q)
        self.window.openRequested.connect(lambda path: self.open(Path(path)))
        self.window.reloadRequested.connect(self.reload)
        self.window.tokenizerRequested.connect(self.set_tokenizer)
        self.window.composer.published.connect(lambda _: self._changed({"gc", "plan", "memory"}))
        self.window.set_tokenizer(settings.tokenizer)
        self.window.set_recent(settings.recent_sessions())

    def _pick(self, folder: Path, session_id: str | None) -> Path | None:
        sessions = find_sessions(folder)
        if len(sessions) > 1 and session_id is None and not self.headless:
            names = [s.name for s in sessions]
            name, ok = QInputDialog.getItem(self.window, "Choose a session", f"Sessions in {folder}:", names, 0, False)
            if not ok:
                return None
            session_id = name
        if len(sessions) > 1 and session_id is None:
            return sessions[0]  # newest first
        return resolve_session(str(folder), session_id)

    def open(self, folder: Path, session_id: str | None = None) -> bool:
        """Open a session (or pick one in a project); on failure keep the current one."""
        try:
            chosen = self._pick(folder, session_id)
        except UsageError as exc:
            self._error(str(exc))
            return False
        if chosen is None:
            return False
        live = LiveSession(chosen, get_tokenizer(self.settings.tokenizer), self)
        if self.live is not None:
            self.live.close()
        self.live = live
        live.changed.connect(self._changed)
        self.window.show_session(live.session)
        self.window.composer.set_composer(Composer.open(live.session))
        self.settings.add_recent(live.session.folder)
        self.window.set_recent(self.settings.recent_sessions())
        return True

    def _changed(self, parts: set[Part]) -> None:
        if self.live is not None:
            self.window.show_session(self.live.session, parts)
            self.window.composer.on_session_changed()

    def reload(self) -> None:
        if self.live is not None:
            self.live.session.stamps.clear()  # force a re-read even if nothing changed
            self.live.reload()

    def set_tokenizer(self, name: str) -> None:
        self.settings.tokenizer = name
        self.window.set_tokenizer(name)
        if self.live is not None:
            self.live.set_tokenizer(get_tokenizer(name))

    def _error(self, message: str) -> None:
        if self.headless:
            print(f"lead-console: {message}")
        else:
            QMessageBox.warning(self.window, "Lead Console", message)

    def close(self) -> None:
        if self.live is not None:
            self.live.close()
            self.live = None
