"""Every symbol the window draws is in the font the set-up installs (DejaVu Sans, Debian's
fonts-dejavu-core): issue 42.10 found BLOCKED's ⛔ drawn as an empty box. The symbols are
read from the source of ``ui`` and ``app``, so that a new one is checked as it comes."""

from __future__ import annotations

import re

from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics
from pytestqt.qtbot import QtBot

from conftest import ROOT

SYMBOLS = re.compile(r"[\u2190-\u2bff\U0001f000-\U0001ffff]")


def test_every_symbol_in_the_windows_strings_is_in_dejavu_sans(qtbot: QtBot) -> None:
    assert "DejaVu Sans" in QFontDatabase.families()
    metrics = QFontMetrics(QFont("DejaVu Sans"))
    found = {
        ch
        for top in ("ui", "app")
        for path in (ROOT / top).rglob("*.py")
        for ch in SYMBOLS.findall(path.read_text(encoding="utf-8"))
    }
    assert {"⚠", "✖", "⚑", "→"} <= found  # the scan reads the strings (a person's reading of the panes)
    missing = sorted(ch for ch in found if not metrics.inFontUcs4(ord(ch)))
    assert missing == []
