"""Syntax highlighting for the section editor: headings, bullets, keys, tables and code."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


_RULES = [
    (re.compile(r"^ {0,3}#{1,6} .*$"), _format("#1f4e9a", bold=True)),
    (re.compile(r"^\s*(?:[-*+]|\d+[.)])\s"), _format("#8a3ffc", bold=True)),
    (
        re.compile(r"^\s*(?:[-*+]\s+)?\*\*[^*]+\*\*:?|^\s*[-*+]\s+[^:`*\n]{1,80}:(?=\s|$)"),
        _format("#006d5b", bold=True),
    ),
    (re.compile(r"\|"), _format("#9a6700")),
    (re.compile(r"`[^`]+`"), _format("#b42318")),
]
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE = _format("#555555", italic=True)


class MarkdownHighlighter(QSyntaxHighlighter):
    """Line rules plus a block state for fenced code (1 = inside a fence)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)

    def highlightBlock(self, text: str) -> None:
        """Colour one line; fenced code carries over to the next line through the block state."""
        inside = self.previousBlockState() == 1
        if _FENCE.match(text):
            self.setFormat(0, len(text), _CODE)
            self.setCurrentBlockState(0 if inside else 1)
            return
        if inside:
            self.setFormat(0, len(text), _CODE)
            self.setCurrentBlockState(1)
            return
        self.setCurrentBlockState(0)
        for pattern, fmt in _RULES:
            for m in pattern.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), fmt)
