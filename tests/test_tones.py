"""Every colour the window draws reads on a light and on a dark palette.

The contrast figures come from WCAG 2's formula; the expected values below are the ones
WebAIM's contrast checker publishes for the same pairs. The palettes are KDE's Breeze and
Breeze Dark colour schemes as a Qt desktop gives them to an application, and Qt's Fusion.
On the code before this module, a dark palette gave white text on pale yellow and pink tints
(contrast 1.1–1.3), green and grey text on near-black (2.4–3.0) and white inline code on a
pale grey box in the preview.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QAbstractItemView, QApplication, QStyleFactory
from pytestqt.qtbot import QtBot

from app.controller import Controller
from conftest import (
    DEMO,
    SESSIONS,
    SHARED,
    copy_session,
    model_indexes,
    settle_reviews,
    shown_controller,
)
from models.text.problems import Problem
from ui.strips import ProblemBanner, TonedLabel, over_limit_tone
from ui.tones import TEXT_CONTRAST, contrast, readable, tones, tones_for
from ui.widgets import MarkdownView

R = QPalette.ColorRole
GSD = sorted(p for p in (SHARED / "gsd-projects").iterdir() if (p / ".planning").is_dir())


def _palette(colors: dict[QPalette.ColorRole, str]) -> QPalette:
    palette = QPalette()
    for role, name in colors.items():
        palette.setColor(role, QColor(name))
    return palette


BREEZE_DARK = _palette(
    {
        R.Window: "#2a2e32",
        R.WindowText: "#fcfcfc",
        R.Base: "#1b1e20",
        R.AlternateBase: "#232629",
        R.Text: "#fcfcfc",
        R.Button: "#31363b",
        R.ButtonText: "#fcfcfc",
        R.Highlight: "#3daee9",
        R.HighlightedText: "#fcfcfc",
        R.ToolTipBase: "#31363b",
        R.ToolTipText: "#fcfcfc",
        R.PlaceholderText: "#a1a9b1",
        R.Link: "#1d99f3",
    }
)
BREEZE = _palette(
    {
        R.Window: "#eff0f1",
        R.WindowText: "#232629",
        R.Base: "#ffffff",
        R.AlternateBase: "#f7f7f7",
        R.Text: "#232629",
        R.Button: "#fcfcfc",
        R.ButtonText: "#232629",
        R.Highlight: "#3daee9",
        R.HighlightedText: "#ffffff",
        R.PlaceholderText: "#707d8a",
        R.Link: "#2980b9",
    }
)


def fusion() -> QPalette:
    style = QStyleFactory.create("Fusion")
    assert style is not None
    return style.standardPalette()


@pytest.mark.parametrize(
    ("a", "b", "ratio"),
    [("#000000", "#ffffff", 21.0), ("#ffffff", "#ffffff", 1.0), ("#777777", "#ffffff", 4.48),
     ("#767676", "#ffffff", 4.54), ("#0000ff", "#ffffff", 8.59), ("#ff0000", "#000000", 5.25)],
)  # fmt: skip
def test_contrast_is_wcag_2s(a: str, b: str, ratio: float) -> None:
    assert contrast(QColor(a), QColor(b)) == pytest.approx(ratio, abs=0.005)


def test_readable_keeps_a_colour_that_reads_and_moves_one_that_does_not() -> None:
    white, near_black = QColor("#ffffff"), QColor("#1b1e20")
    assert readable(QColor("#1e7b34"), [white]).name() == "#1e7b34"  # 5.4 on white
    lighter = readable(QColor("#1e7b34"), [near_black])  # 3.0 on Breeze Dark's base
    assert contrast(lighter, near_black) >= TEXT_CONTRAST
    assert lighter.lightnessF() > QColor("#1e7b34").lightnessF()
    assert abs(lighter.hslHueF() - QColor("#1e7b34").hslHueF()) < 0.02  # still green
    darker = readable(QColor("#7a7a7a"), [QColor("#efefef")])  # 3.9 on Fusion's window
    assert contrast(darker, QColor("#efefef")) >= TEXT_CONTRAST
    assert darker.lightnessF() < QColor("#7a7a7a").lightnessF()


def test_a_light_palette_keeps_the_colours_the_window_had() -> None:
    """Fusion's light palette: the tints as they were before the tones followed the palette
    (the README's screenshots show them); the text colours the same, or of the same hue a
    shade darker where they read below 4.5 on a tint (green on pink: 4.1, grey 3.4)."""
    light = tones_for(fusion())
    assert light.warn.color().name() == "#fff3cd"
    assert light.bad.color().name() == "#f8d7da"
    assert light.code_background.name() == "#f4f4f4"
    assert light.red.color().name() == "#b42318"
    assert light.heading.name() == "#1f4e9a"
    for now, was in (
        (light.good.color(), "#1e7b34"),
        (light.muted.color(), "#7a7a7a"),
        (light.amber.color(), "#9a6700"),
    ):
        before = QColor(was)
        assert abs(now.hslHueF() - before.hslHueF()) < 0.02 or before.hslSaturationF() == 0
        assert 0 <= before.lightnessF() - now.lightnessF() <= 0.12


@pytest.mark.parametrize("name", ["fusion", "breeze", "breeze-dark"])
def test_every_tone_reads_where_it_is_drawn(name: str) -> None:
    palette = {"fusion": fusion, "breeze": lambda: BREEZE, "breeze-dark": lambda: BREEZE_DARK}[name]()
    now = tones_for(palette)
    text = palette.color(R.Text)
    grounds = [palette.color(r) for r in (R.Base, R.AlternateBase, R.Window)]
    tints = [now.warn.color(), now.bad.color()]
    for tint in tints:
        assert contrast(text, tint) >= 7, tint.name()
    inks = [now.good.color(), now.muted.color(), now.amber.color(), now.red.color()]
    inks += [now.heading, now.bullet, now.key, now.table, now.code, now.fence]
    for ink in inks:
        for ground in [*grounds, *tints]:
            assert contrast(ink, ground) >= TEXT_CONTRAST, (ink.name(), ground.name())
    assert contrast(text, now.code_background) >= TEXT_CONTRAST
    for sheet in now.banners.values():
        back, fore = (QColor(c) for c in re.findall(r"(?:background|color):(#[0-9a-f]{6})", sheet))
        assert contrast(fore, back) >= TEXT_CONTRAST, sheet


# -- the window ---------------------------------------------------------------------------


def _indexes(view: QAbstractItemView) -> Iterator[QModelIndex]:
    return model_indexes(view.model(), every_column=True)


def _color(value: object) -> QColor | None:
    if isinstance(value, QBrush):
        return value.color()
    return value if isinstance(value, QColor) else None


def unreadable(window: object) -> tuple[list[str], int]:
    """Each cell, label and highlighted run of the window whose text reads below 4.5:1, and
    how many coloured ones were looked at."""
    found: list[str] = []
    coloured = 0
    for view in window.findChildren(QAbstractItemView):  # type: ignore[attr-defined]
        if view.model() is None:
            continue
        palette = view.palette()
        for index in _indexes(view):
            fore = _color(index.data(Qt.ItemDataRole.ForegroundRole))
            back = _color(index.data(Qt.ItemDataRole.BackgroundRole))
            coloured += fore is not None or back is not None
            ink = fore or palette.color(R.Text)
            for ground in [back] if back is not None else [palette.color(R.Base), palette.color(R.AlternateBase)]:
                if contrast(ink, ground) < TEXT_CONTRAST:
                    found.append(
                        f"{view.objectName() or type(view).__name__} {index.data()!r}: {ink.name()} on {ground.name()}"
                    )
    for label in window.findChildren(TonedLabel):  # type: ignore[attr-defined]
        sheet = label.styleSheet()
        fore = re.search(r"(?<![-\w])color:(#[0-9a-f]{6})", sheet)
        back = re.search(r"background:(#[0-9a-f]{6})", sheet)
        if fore is None and back is None:
            continue
        coloured += 1
        ink = QColor(fore.group(1)) if fore else QApplication.palette().color(R.WindowText)
        ground = QColor(back.group(1)) if back else QApplication.palette().color(R.Window)
        if contrast(ink, ground) < TEXT_CONTRAST:
            found.append(f"label {label.text()[:40]!r}: {ink.name()} on {ground.name()}")
    for browser in window.findChildren(MarkdownView):  # type: ignore[attr-defined]
        sheet = browser.document().defaultStyleSheet()
        code = re.search(r"code, pre \{ background: (#[0-9a-f]{6})", sheet)
        assert code is not None
        if contrast(QColor(code.group(1)), browser.palette().color(R.Text)) < TEXT_CONTRAST:
            found.append(f"code in a preview: {browser.palette().color(R.Text).name()} on {code.group(1)}")
    editor = window.composer.section_editor.editor  # type: ignore[attr-defined]
    block = editor.document().begin()
    while block.isValid():
        for run in block.layout().formats():
            coloured += 1
            ink = run.format.foreground().color()
            if contrast(ink, editor.palette().color(R.Base)) < TEXT_CONTRAST:
                found.append(f"editor {block.text()[run.start : run.start + run.length]!r}: {ink.name()}")
        block = block.next()
    return found, coloured


def _visit(qtbot: QtBot, controller: Controller) -> None:
    """Show every pane, so that each fills its models, and select a section to edit."""
    window = controller.window
    window.central_tabs.setCurrentWidget(window.composer)
    first = window.sections_pane.gc_model.index(0, 0)
    if first.isValid():
        window.sections_pane.gc_view.setCurrentIndex(first)
    for dock in (window.context_dock, window.planning_dock, window.gates_dock, window.inbox_dock, window.memory_dock):
        dock.raise_()
        qtbot.wait(10)
    window.context_pane.wait()
    settle_reviews(qtbot, controller)
    controller.settle()


@pytest.mark.parametrize("source", SESSIONS, ids=lambda p: p.name)
def test_every_session_reads_on_a_light_and_a_dark_palette(qtbot: QtBot, tmp_path: Path, source: Path) -> None:
    """Opened on a light palette, turned dark while open (a desktop switching its theme),
    and light again: every coloured cell, strip, highlighted run and code box reads, the
    window's colours follow each switch, and the demo shows each kind of tint and ink."""
    folder = copy_session(source, tmp_path)
    controller = shown_controller(qtbot, tmp_path / "settings")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setPalette(BREEZE)
    assert controller.open(folder)
    controller.window.planning_pane.open_project(GSD[0])
    _visit(qtbot, controller)
    for palette in (BREEZE, BREEZE_DARK, BREEZE):
        app.setPalette(palette)
        qtbot.wait(10)
        found, coloured = unreadable(controller.window)
        assert found == [], f"{source.name} on {palette.color(R.Base).name()}: " + "; ".join(found[:8])
        assert coloured > 0
        now = tones()
        assert now.warn.color() == tones_for(palette).warn.color()  # made again for the new palette
        editor = controller.window.composer.section_editor.editor
        runs = [r for b in _blocks(editor.document()) for r in b.layout().formats()]
        if runs:  # the highlighting follows the palette
            assert {r.format.foreground().color().name() for r in runs} <= {
                c.name() for c in (now.heading, now.bullet, now.key, now.table, now.code, now.fence)
            }
        preview = controller.window.preview
        assert now.code_background.name() in preview.document().defaultStyleSheet()
    if source == DEMO:
        seen = _explicit_colours(controller.window)
        assert {now.warn.color().name(), now.bad.color().name(), now.good.color().name()} <= seen
    controller.window.context_pane.wait()
    controller.close()


def _blocks(document: object) -> Iterator[object]:
    block = document.begin()  # type: ignore[attr-defined]
    while block.isValid():
        yield block
        block = block.next()


def _explicit_colours(window: object) -> set[str]:
    names: set[str] = set()
    for view in window.findChildren(QAbstractItemView):  # type: ignore[attr-defined]
        if view.model() is None:
            continue
        for index in _indexes(view):
            for role in (Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole):
                color = _color(index.data(role))
                if color is not None:
                    names.add(color.name())
    return names


def test_a_strip_takes_the_new_palettes_colours(qtbot: QtBot) -> None:
    """A label with a style sheet is told of the application's new palette only: the problem
    strip and the over-limit count restyle themselves on it."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setPalette(BREEZE)
    banner = ProblemBanner()
    count = TonedLabel(over_limit_tone)
    for label in (banner, count):
        qtbot.addWidget(label)
        label.show()
    banner.show_problems([Problem("error", "TEAM-MEMORY.md", "not UTF-8")])
    light_banner, light_count = banner.styleSheet(), count.styleSheet()
    assert "background:#f8d7da" in light_banner  # the light tint, as before
    app.setPalette(BREEZE_DARK)
    qtbot.wait(10)
    dark = tones()
    assert banner.styleSheet() == f"QLabel {{ {dark.banners['error']} padding:4px; }}" != light_banner
    assert count.styleSheet() == f"QLabel {{ color:{dark.red.color().name()}; font-weight:bold; }}" != light_count
