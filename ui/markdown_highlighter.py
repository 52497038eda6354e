"""Syntax highlighting for the section editor: headings, bullets, keys, tables and code.

The colours come from the palette in use (``ui.tones``): on a dark palette the light one's
dark blue headings and grey code stood at a contrast of 2–3 against the editor.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from ui.tones import Tones, tones


def _format(color: QColor, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(color)
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


_HEADING = re.compile(r"^ {0,3}#{1,6} .*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_KEY = re.compile(r"^\s*(?:[-*+]\s+)?\*\*[^*]+\*\*:?|^\s*[-*+]\s+[^:`*\n]{1,80}:(?=\s|$)")
_PIPE = re.compile(r"\|")
_INLINE_CODE = re.compile(r"`[^`]+`")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


class MarkdownHighlighter(QSyntaxHighlighter):
    """Line rules plus a block state for fenced code (1 = inside a fence)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._tones: Tones | None = None
        self._rules: list[tuple[re.Pattern[str], QTextCharFormat]] = []
        self._code = QTextCharFormat()
        self._take(tones())

    def _take(self, now: Tones) -> None:
        self._tones = now
        self._rules = [
            (_HEADING, _format(now.heading, bold=True)),
            (_BULLET, _format(now.bullet, bold=True)),
            (_KEY, _format(now.key, bold=True)),
            (_PIPE, _format(now.table)),
            (_INLINE_CODE, _format(now.code)),
        ]
        self._code = _format(now.fence, italic=True)

    def follow_palette(self) -> None:
        """Colour the text again if the application's palette changed since it was coloured."""
        now = tones()
        if now is not self._tones:
            self._take(now)
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        """Colour one line; fenced code carries over to the next line through the block state."""
        inside = self.previousBlockState() == 1
        if _FENCE.match(text):
            self.setFormat(0, len(text), self._code)
            self.setCurrentBlockState(0 if inside else 1)
            return
        if inside:
            self.setFormat(0, len(text), self._code)
            self.setCurrentBlockState(1)
            return
        self.setCurrentBlockState(0)
        for pattern, fmt in self._rules:
            for m in pattern.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), fmt)
