"""The window's looks as the Lead sets them in the View menu, kept between runs: the appearance
(the desktop's, light or dark) and the text size. Both are the application's, so they are set
on it, not on the window."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QFont, QGuiApplication

from app.settings import AppSettings
from ui.appearance import apply_appearance, apply_text_scale, next_text_scale
from ui.main_window import MainWindow


class Looks(QObject):
    """Applies the saved looks at start, before the window is made (a dock takes its title's
    font when made), then each choice of the window's View menu (``attach``)."""

    window: MainWindow | None = None

    def __init__(self, settings: AppSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._desktop_font = QFont(QGuiApplication.font())  # what the text sizes scale
        app = self._app()
        if app is not None and settings.appearance != "system":  # Qt starts with the desktop's
            apply_appearance(app, settings.appearance)
        if app is not None and settings.text_scale != 100:
            apply_text_scale(app, self._desktop_font, settings.text_scale)

    def attach(self, window: MainWindow) -> None:
        """Follow ``window``'s View menu, its appearance items checked as saved."""
        self.window = window
        window.appearanceRequested.connect(self.set_appearance)
        window.textSizeRequested.connect(self.step_text_size)
        window.menus.set_appearance(self.settings.appearance)

    def set_appearance(self, name: str) -> None:
        """View ▸ Appearance."""
        self.settings.appearance = name
        if self.window is not None:
            self.window.menus.set_appearance(name)
        app = self._app()
        if app is not None:
            apply_appearance(app, name)

    def step_text_size(self, step: int) -> None:
        """View ▸ Larger Text (1), Smaller Text (-1), Normal Text Size (0)."""
        percent = next_text_scale(self.settings.text_scale, step)
        self.settings.text_scale = percent
        app = self._app()
        if app is not None:
            apply_text_scale(app, self._desktop_font, percent)
        if self.window is not None:
            self.window.statusBar().showMessage(f"Text size {percent}%", 3000)

    @staticmethod
    def _app() -> QGuiApplication | None:
        app = QGuiApplication.instance()
        return app if isinstance(app, QGuiApplication) else None
