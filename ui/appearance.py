"""How the window looks, as the Lead chooses in the View menu: light or dark (Appearance), and
the text size (Larger Text, Smaller Text).

Qt asks the desktop for its colour scheme where the desktop says (``QStyleHints``); on one that
does not (a bare X11 window manager, most remote sessions) the app sets a palette of its own.
The colours are KDE's Breeze and Breeze Dark, with the selection, links and placeholders
moved until they read at WCAG's 4.5:1; disabled text is the text halfway to the window, so
that a greyed button reads as greyed in both.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette

from ui.tones import luminance, mix, readable

APPEARANCES = ("system", "light", "dark")
#: Text sizes in percent of the desktop's: a step each for Larger Text and Smaller Text. At the
#: largest, every pane still fits a 1366×768 screen.
TEXT_SCALES = (80, 90, 100, 110, 120, 135, 150)
APPEARANCE_NAMES = {"system": "&Follow the Desktop", "light": "&Light", "dark": "&Dark"}

_R = QPalette.ColorRole

_LIGHT = {
    _R.Window: "#eff0f1",
    _R.WindowText: "#232629",
    _R.Base: "#ffffff",
    _R.AlternateBase: "#f7f7f7",
    _R.Text: "#232629",
    _R.Button: "#fcfcfc",
    _R.ButtonText: "#232629",
    _R.BrightText: "#ffffff",
    _R.Highlight: "#3daee9",
    _R.HighlightedText: "#ffffff",
    _R.ToolTipBase: "#f7f7f7",
    _R.ToolTipText: "#232629",
    _R.PlaceholderText: "#707d8a",
    _R.Link: "#2980b9",
    _R.LinkVisited: "#9b59b6",
    _R.Light: "#ffffff",
    _R.Midlight: "#f6f7f7",
    _R.Mid: "#c4c9cd",
    _R.Dark: "#888e93",
    _R.Shadow: "#474a4c",
}

_DARK = {
    _R.Window: "#2a2e32",
    _R.WindowText: "#fcfcfc",
    _R.Base: "#1b1e20",
    _R.AlternateBase: "#232629",
    _R.Text: "#fcfcfc",
    _R.Button: "#31363b",
    _R.ButtonText: "#fcfcfc",
    _R.BrightText: "#ffffff",
    _R.Highlight: "#3daee9",
    _R.HighlightedText: "#fcfcfc",
    _R.ToolTipBase: "#31363b",
    _R.ToolTipText: "#fcfcfc",
    _R.PlaceholderText: "#a1a9b1",
    _R.Link: "#1d99f3",
    _R.LinkVisited: "#9b59b6",
    _R.Light: "#40464c",
    _R.Midlight: "#363b40",
    _R.Mid: "#24282b",
    _R.Dark: "#141618",
    _R.Shadow: "#0f1012",
}


def _palette(colors: dict[QPalette.ColorRole, str]) -> QPalette:
    """The palette of ``colors``, with the selection, links and placeholders made to read at
    4.5:1 (Breeze's own blue under white text reads at 2.5:1), and its disabled group."""
    palette = QPalette()
    for role, name in colors.items():
        palette.setColor(role, QColor(name))
    base, window = QColor(colors[_R.Base]), QColor(colors[_R.Window])
    palette.setColor(_R.Highlight, readable(QColor(colors[_R.Highlight]), [QColor(colors[_R.HighlightedText])]))
    for role in (_R.Link, _R.LinkVisited, _R.PlaceholderText):
        palette.setColor(role, readable(QColor(colors[role]), [base, window]))
    disabled = QPalette.ColorGroup.Disabled
    for role in (_R.WindowText, _R.Text, _R.ButtonText, _R.PlaceholderText):
        palette.setColor(disabled, role, mix(QColor(colors[role]), window, 0.5))
    palette.setColor(disabled, _R.Highlight, mix(palette.color(_R.Highlight), window, 0.5))
    return palette


def light_palette() -> QPalette:
    """Breeze's colours."""
    return _palette(_LIGHT)


def dark_palette() -> QPalette:
    """Breeze Dark's colours."""
    return _palette(_DARK)


def is_dark(palette: QPalette) -> bool:
    """Whether ``palette`` draws light text on a dark window."""
    return luminance(palette.color(_R.Window)) < luminance(palette.color(_R.WindowText))


def apply_appearance(app: QGuiApplication, choice: str) -> None:
    """Give ``app`` the chosen appearance: "system" the desktop's palette; "light" or "dark"
    the desktop's own scheme of that kind where it has one, else the palette above."""
    hints = app.styleHints()
    if choice not in ("light", "dark"):
        hints.unsetColorScheme()
        app.setPalette(QPalette())  # an empty palette: the style's and desktop's again
        return
    dark = choice == "dark"
    hints.setColorScheme(Qt.ColorScheme.Dark if dark else Qt.ColorScheme.Light)
    app.setPalette(QPalette())  # what the desktop gives for the scheme asked, if it gives one
    if is_dark(app.palette()) != dark:
        app.setPalette(dark_palette() if dark else light_palette())


def next_text_scale(now: int, step: int) -> int:
    """The size ``step`` steps from ``now`` (0: the desktop's), kept within ``TEXT_SCALES``."""
    if step == 0:
        return 100
    at = min(range(len(TEXT_SCALES)), key=lambda n: abs(TEXT_SCALES[n] - now))
    return TEXT_SCALES[max(0, min(len(TEXT_SCALES) - 1, at + step))]


def apply_text_scale(app: QGuiApplication, desktop: QFont, percent: int) -> None:
    """Give ``app`` the desktop's font at ``percent`` of its size; every widget that does not
    set a size of its own follows (the editors' monospace family keeps its family)."""
    font = QFont(desktop)
    if desktop.pointSizeF() > 0:
        font.setPointSizeF(desktop.pointSizeF() * percent / 100)
    else:  # a desktop font given in pixels
        font.setPixelSize(max(1, round(desktop.pixelSize() * percent / 100)))
    app.setFont(font)
