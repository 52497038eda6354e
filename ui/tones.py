"""The colours the window draws, worked out from the palette in use.

The tints and text colours were written for a light palette: on a dark desktop (a dark
GNOME or KDE theme gives Qt a dark palette) white text stood on pale yellow and pink, green
and grey text on near-black, and inline code in the preview on a pale grey box, each at a
contrast of 1.1–2.9. Every colour here is checked against the background it is drawn on and
moved in lightness until it reaches WCAG 2's 4.5:1 for text, so a light palette keeps the
colours it had (where they already read) and a dark one gets dark tints under light text.

``tones()`` is asked on every paint of a coloured cell: it answers from the last palette's
tones until the application's palette changes (``QPalette.cacheKey``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette

#: WCAG 2's least contrast for normal text (success criterion 1.4.3, level AA).
TEXT_CONTRAST = 4.5

_ROLE = QPalette.ColorRole


def luminance(color: QColor) -> float:
    """WCAG 2's relative luminance of an sRGB colour: 0 black, 1 white."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(color.red()) + 0.7152 * linear(color.green()) + 0.0722 * linear(color.blue())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def mix(color: QColor, base: QColor, amount: float) -> QColor:
    """``amount`` of ``color`` over ``base`` (0: the base, 1: the colour)."""
    return QColor(
        round(color.red() * amount + base.red() * (1 - amount)),
        round(color.green() * amount + base.green() * (1 - amount)),
        round(color.blue() * amount + base.blue() * (1 - amount)),
    )


def readable(color: QColor, backgrounds: list[QColor], ratio: float = TEXT_CONTRAST) -> QColor:
    """``color`` as it is if it reads on every background; else the same hue made lighter
    (on dark backgrounds) or darker (on light ones), step by step, until it does."""
    if all(contrast(color, b) >= ratio for b in backgrounds):
        return color
    darken = sum(luminance(b) for b in backgrounds) / len(backgrounds) > 0.18
    hue, saturation, lightness = max(color.hslHueF(), 0.0), color.hslSaturationF(), color.lightnessF()
    for step in range(1, 51):
        shade = max(0.0, lightness - step * 0.02) if darken else min(1.0, lightness + step * 0.02)
        moved = QColor.fromHslF(hue, saturation, shade)
        if all(contrast(moved, b) >= ratio for b in backgrounds):
            return moved
    return QColor("black" if darken else "white")


#: Contrast of the palette's text on a tint (WCAG's 7:1, level AAA): what it has beyond
#: 4.5 leaves room for coloured text on the tint (a muted teammate behind on the GC).
TINT_CONTRAST = 7.0


def surface(light: QColor, hue: QColor, base: QColor, text: QColor) -> QColor:
    """A tinted background for text of colour ``text``: ``light`` on a light base (the tint
    the window always had), else as much of ``hue`` over the base as keeps the text clear."""
    if luminance(base) > 0.18 and contrast(text, light) >= TINT_CONTRAST:
        return light
    for twentieth in range(8, 0, -1):
        tinted = mix(hue, base, twentieth / 20)
        if contrast(text, tinted) >= TINT_CONTRAST:
            return tinted
    return QColor(base)


@dataclass(frozen=True)
class Tones:
    """What one palette gives: brushes for item views, colours for style sheets and text."""

    warn: QBrush  # background of a cell that asks for attention
    bad: QBrush  # background of a cell that says something is wrong
    good: QBrush  # text that says all is well (a teammate on the current GC, an approved gate)
    muted: QBrush  # text of what is inactive (archived entries, teammates outside the GC)
    amber: QBrush  # text of a conditional verdict
    red: QBrush  # text of a failed verdict, a file over its limit
    code_background: QColor  # inline code and code blocks in rendered Markdown
    rule: QColor  # table borders in rendered Markdown
    heading: QColor  # the section editor's highlighting, from here down
    bullet: QColor
    key: QColor
    table: QColor
    code: QColor
    fence: QColor
    banners: dict[str, str]  # problem banner style sheets by severity ("error", "warning")


def tones_for(palette: QPalette) -> Tones:
    """The tones of ``palette``: tints checked against its text; text colours against its
    base, alternate base and window (list rows, alternating rows, labels) and the tints (a
    cell may be both)."""
    base, text = palette.color(_ROLE.Base), palette.color(_ROLE.Text)
    warn = surface(QColor("#fff3cd"), QColor("#ffc107"), base, text)
    bad = surface(QColor("#f8d7da"), QColor("#dc3545"), base, text)
    grounds = [base, palette.color(_ROLE.AlternateBase), palette.color(_ROLE.Window), warn, bad]

    def ink(name: str) -> QColor:
        return readable(QColor(name), grounds)

    def banner(ground: QColor, ink_on_light: str, border: str) -> str:
        fore = readable(QColor(ink_on_light), [ground])
        return f"background:{ground.name()}; color:{fore.name()}; border:1px solid {border};"

    return Tones(
        warn=QBrush(warn),
        bad=QBrush(bad),
        good=QBrush(ink("#1e7b34")),
        muted=QBrush(ink("#7a7a7a")),
        amber=QBrush(ink("#9a6700")),
        red=QBrush(ink("#b42318")),
        code_background=mix(text, base, 0.045),
        rule=mix(text, base, 0.27),
        heading=ink("#1f4e9a"),
        bullet=ink("#8a3ffc"),
        key=ink("#006d5b"),
        table=ink("#9a6700"),
        code=ink("#b42318"),
        fence=ink("#555555"),
        banners={
            "error": banner(bad, "#58151c", "#f1aeb5" if luminance(base) > 0.18 else "#dc3545"),
            "warning": banner(warn, "#664d03", "#ffe69c" if luminance(base) > 0.18 else "#ffc107"),
        },
    )


_last: tuple[int, Tones] | None = None


def tones() -> Tones:
    """The tones of the application's palette now (made again only when it changes)."""
    global _last
    palette = QGuiApplication.palette()
    key = palette.cacheKey()
    if _last is None or _last[0] != key:
        _last = (key, tones_for(palette))
    return _last[1]
