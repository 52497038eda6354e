"""Coloured labels: the strips above a pane that say what could not be read, and counts
over their limit, in colours made from the palette in use (``ui.tones``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from models.text.problems import Problem
from ui.tones import Tones, tones


class TonedLabel(QLabel):
    """A label coloured by a style sheet made from the palette's tones (``ui.tones``), made
    again when the application's palette changes: a label with a style sheet is not told of
    a new palette otherwise, only of the application's."""

    def __init__(self, tone: Callable[[Tones], str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # session text as written (``plain_label``)
        self._tone = tone
        self._restyle()

    def set_tone(self, tone: Callable[[Tones], str] | None) -> None:
        """Colour the label with ``tone``'s style-sheet declarations (None: the palette's own)."""
        self._tone = tone
        self._restyle()

    def _restyle(self, again: bool = False) -> None:
        """Set the style sheet if it changed (set again, it restyles the label: 0.2 ms a
        follow-up), or ``again``: a label under a style sheet also keeps the font size it
        was first polished with."""
        sheet = f"QLabel {{ {self._tone(tones())} }}" if self._tone is not None else ""
        if again and sheet:
            self.setStyleSheet("")
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)

    def event(self, event: QEvent) -> bool:
        """Take a new palette's colours and a new text size, on the change or, hidden then,
        when shown."""
        kind = event.type()
        if kind in (QEvent.Type.ApplicationPaletteChange, QEvent.Type.ApplicationFontChange):
            self._restyle(again=kind == QEvent.Type.ApplicationFontChange)
        elif kind == QEvent.Type.Show:
            self._restyle(again=self.font().pointSizeF() != QApplication.font().pointSizeF())
        return super().event(event)


def error_tone(now: Tones) -> str:
    """A red strip: what could not be read or was lost."""
    return now.banners["error"] + " padding:4px;"


def warning_tone(now: Tones) -> str:
    """An amber strip: what was read with a doubt."""
    return now.banners["warning"] + " padding:4px;"


def over_limit_tone(now: Tones) -> str:
    """Red bold text: a count over its limit."""
    return f"color:{now.red.color().name()}; font-weight:bold;"


class ProblemBanner(TonedLabel):
    """A coloured strip above a pane listing what could not be read; hidden when all is well."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(None, parent)
        self.setWordWrap(True)
        self.setContentsMargins(6, 4, 6, 4)
        self.hide()

    def show_problems(self, problems: list[Problem]) -> None:
        """Show ``problems``; the same ones again change nothing (a follow-up of a large file
        repeats its size warning, and setting the style sheet again cost 0.25 ms)."""
        if not problems:
            self.clear()
            self.hide()
            return
        self.set_tone(error_tone if any(p.severity == "error" for p in problems) else warning_tone)
        self.setText("\n".join(("⚠ " if p.severity == "warning" else "✖ ") + str(p) for p in problems))
        self.show()
