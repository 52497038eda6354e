"""View ▸ Appearance: the Lead picks light or dark from the keyboard, the whole window takes
it, and the next run starts with it.

The offscreen platform has no desktop colour scheme (as a bare X11 session has none), so the
choice falls back to the app's own palettes; their figures are checked with WCAG 2's formula.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QDockWidget, QLabel, QMenu, QStyleFactory, QWidget
from pytestqt.qtbot import QtBot

from app.controller import Controller
from app.demo import copy_session
from app.settings import AppSettings
from conftest import activate, drop_two_replies, settle_reviews
from ui.appearance import dark_palette, is_dark, light_palette
from ui.strips import error_tone
from ui.tones import TEXT_CONTRAST, contrast, tones

R = QPalette.ColorRole
# A menu asks the platform to raise it and to grab the keyboard; the offscreen one cannot.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard)")


@pytest.fixture
def app() -> QApplication:
    """The application (``conftest`` gives it the platform's palette again afterwards)."""
    instance = QApplication.instance()
    assert isinstance(instance, QApplication)
    return instance


def _controller(qtbot: QtBot, settings_file: Path) -> Controller:
    controller = Controller(AppSettings(QSettings(str(settings_file), QSettings.Format.IniFormat)), headless=True)
    qtbot.addWidget(controller.window)
    controller.window.resize(1366, 768)
    controller.window.show()
    return controller


def _choose(qtbot: QtBot, controller: Controller, key: Qt.Key) -> None:
    """Alt+V opens View, A its Appearance menu, and ``key`` the appearance it underlines."""
    activate(qtbot, controller.window)  # as the Lead's window is: a closed menu leaves none active here
    qtbot.keyClick(controller.window, Qt.Key.Key_V, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    view = QApplication.activePopupWidget()
    assert isinstance(view, QMenu) and view.title() == "&View"
    qtbot.keyClick(view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not view)
    appearance = QApplication.activePopupWidget()
    assert isinstance(appearance, QMenu) and appearance.title() == "&Appearance"
    qtbot.keyClick(appearance, key)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)


def _checked(controller: Controller) -> str:
    return next(a.text() for a in controller.window.menus.appearance_group.actions() if a.isChecked())


def test_dark_then_the_desktops_then_light_from_the_keyboard(qtbot: QtBot, tmp_path: Path, app: QApplication) -> None:
    desktop = app.palette().color(R.Base).name()
    controller = _controller(qtbot, tmp_path / "s.ini")
    assert _checked(controller) == "&Follow the Desktop"
    _choose(qtbot, controller, Qt.Key.Key_D)
    assert is_dark(app.palette())
    qtbot.waitUntil(lambda: is_dark(controller.window.sections_pane.gc_view.palette()))  # the widgets follow
    assert _checked(controller) == "&Dark"
    assert controller.settings.appearance == "dark"
    assert contrast(tones().warn.color(), app.palette().color(R.Text)) >= 7  # the tints followed
    _choose(qtbot, controller, Qt.Key.Key_F)
    assert app.palette().color(R.Base).name() == desktop
    assert _checked(controller) == "&Follow the Desktop"
    _choose(qtbot, controller, Qt.Key.Key_L)
    assert not is_dark(app.palette())
    assert controller.settings.appearance == "light"
    controller.close()


def test_the_next_run_starts_with_the_appearance_chosen(qtbot: QtBot, tmp_path: Path, app: QApplication) -> None:
    first = _controller(qtbot, tmp_path / "s.ini")
    _choose(qtbot, first, Qt.Key.Key_D)
    first.settings.sync()
    first.close()
    app.setPalette(QPalette())  # as a new process starts
    assert not is_dark(app.palette())
    second = _controller(qtbot, tmp_path / "s.ini")
    assert is_dark(app.palette())
    assert _checked(second) == "&Dark"
    second.close()


def test_an_unknown_appearance_in_the_settings_is_the_desktops(tmp_path: Path) -> None:
    q = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    q.setValue("appearance", "solarized")
    assert AppSettings(q).appearance == "system"


@pytest.mark.parametrize("make", [light_palette, dark_palette], ids=["light", "dark"])
def test_the_apps_palettes_read_on_every_pair_of_roles(make: object) -> None:
    palette = make()  # type: ignore[operator]
    pairs = [
        (R.Text, R.Base),
        (R.Text, R.AlternateBase),
        (R.WindowText, R.Window),
        (R.ButtonText, R.Button),
        (R.HighlightedText, R.Highlight),
        (R.ToolTipText, R.ToolTipBase),
        (R.Link, R.Base),
        (R.PlaceholderText, R.Base),
    ]
    for fore, back in pairs:
        ratio = contrast(palette.color(fore), palette.color(back))
        assert ratio >= TEXT_CONTRAST, (fore, back, ratio)
    disabled = palette.color(QPalette.ColorGroup.Disabled, R.ButtonText)
    assert contrast(disabled, palette.color(R.Button)) < contrast(palette.color(R.ButtonText), palette.color(R.Button))


def test_fusions_own_palette_is_light() -> None:
    """The desktop's palette under the offscreen platform, which the tests compare with."""
    style = QStyleFactory.create("Fusion")
    assert style is not None and not is_dark(style.standardPalette())


def test_every_widget_of_the_window_takes_the_dark_palette(qtbot: QtBot, tmp_path: Path, app: QApplication) -> None:
    """Switched while the window is up, as the Lead does: every widget on screen turns dark,
    in every pane once it is brought forward (button rows under a style sheet stayed light:
    89 of the window's widgets), and a strip hidden during the switch has the new colours
    when it shows."""
    controller = _controller(qtbot, tmp_path / "s.ini")
    window = controller.window
    _choose(qtbot, controller, Qt.Key.Key_D)

    def light() -> list[str]:
        return [
            f"{type(w).__name__} {w.text() if isinstance(w, QAbstractButton | QLabel) else w.objectName()!r}"
            for w in window.findChildren(QWidget)
            if w.isVisible() and not is_dark(w.palette())
        ]

    for dock in (window.inbox_dock, window.gates_dock, window.context_dock, window.planning_dock, window.memory_dock):
        dock.raise_()
        qtbot.waitUntil(dock.isVisible)
        try:
            qtbot.waitUntil(lambda: not light(), timeout=2_000)
        except qtbot.TimeoutError:
            pytest.fail(f"with {dock.windowTitle()} in front, still light: {light()[:6]}")
    loss = window.memory_pane.loss_label
    assert not loss.isVisible()
    window.memory_pane.loss_box.show()
    qtbot.waitUntil(loss.isVisible)
    assert loss.styleSheet() == f"QLabel {{ {error_tone(tones())} }}"
    assert is_dark(loss.palette())
    controller.close()


def _title_ink(dock: QDockWidget) -> int:
    """How wide the dock's title is drawn: the columns of its title bar's left half (its
    buttons are on the right) that hold a pixel of another colour than the bar's."""
    top = dock.widget().geometry().top()
    image = dock.grab(QRect(0, 0, dock.width() // 2, top)).toImage()
    bar = image.pixel(0, 0)
    return sum(any(image.pixel(x, y) != bar for y in range(image.height())) for x in range(image.width()))


def _size_key(qtbot: QtBot, controller: Controller, key: Qt.Key) -> None:
    window = controller.window
    activate(qtbot, window)
    qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)


def test_larger_text_from_the_keyboard_resizes_every_pane_and_stays(
    qtbot: QtBot, tmp_path: Path, app: QApplication
) -> None:
    """Ctrl++ twice: the text 120% of the desktop's everywhere, the tables' rows as tall as
    the new font needs and their columns fitted again to it (the sample-sized number
    columns too); the size holds for the next run; Ctrl+0 gives the desktop's back, and
    Ctrl+- stops at 80%."""
    desktop_font = QFont(app.font())
    desktop = desktop_font.pointSizeF()
    controller = _controller(qtbot, tmp_path / "s.ini")
    assert controller.open(copy_session(None, tmp_path / "demo"))
    drop_two_replies(controller.live.session.folder / "messages" / "inbox")  # type: ignore[union-attr]
    controller.refresh_reviews()
    settle_reviews(qtbot, controller)
    window = controller.window
    title_before = _title_ink(window.sections_dock)
    for _ in range(2):
        _size_key(qtbot, controller, Qt.Key.Key_Plus)
    assert app.font().pointSizeF() == pytest.approx(desktop * 1.2)
    # The panes' titles are drawn in the new size too (Qt draws a dock's title in the font
    # it had when made: they grew only at the next start).
    qtbot.waitUntil(lambda: _title_ink(window.sections_dock) >= title_before * 1.1)
    title_after = _title_ink(window.sections_dock)
    assert controller.settings.text_scale == 120
    assert window.statusBar().currentMessage() == "Text size 120%"
    qtbot.waitUntil(lambda: window.sections_pane.gc_view.font().pointSizeF() == pytest.approx(desktop * 1.2))
    unscaled = [
        f"{type(w).__name__} {w.objectName()}"
        for w in window.findChildren(QWidget)
        if w.isVisible() and w.font().pointSizeF() != pytest.approx(desktop * 1.2)
    ]
    assert unscaled == []
    table = window.teammates_pane.teammate_view
    assert table.verticalHeader().defaultSectionSize() == table.fontMetrics().height() + 8
    tokens = window.sections_pane.gc_view.header().sectionSize(1)
    assert tokens == window.sections_pane.gc_view.fontMetrics().horizontalAdvance("000,000") + 24
    window.inbox_dock.raise_()
    inbox = window.review_pane.view
    qtbot.waitUntil(inbox.isVisible)
    header = inbox.horizontalHeader()
    header.setResizeContentsPrecision(-1)  # Qt's own fitting of every row: the reference
    qtbot.waitUntil(lambda: header.sectionSize(0) == max(header.sectionSizeHint(0), inbox.sizeHintForColumn(0)))
    controller.settings.sync()
    controller.close()

    app.setFont(desktop_font)  # as a new process starts, with the desktop's font
    second = _controller(qtbot, tmp_path / "s.ini")
    assert app.font().pointSizeF() == pytest.approx(desktop * 1.2)
    assert abs(_title_ink(second.window.sections_dock) - title_after) <= 1  # as the next run draws it
    _size_key(qtbot, second, Qt.Key.Key_0)
    assert app.font().pointSizeF() == pytest.approx(desktop)
    for _ in range(5):
        _size_key(qtbot, second, Qt.Key.Key_Minus)
    assert second.settings.text_scale == 80
    assert app.font().pointSizeF() == pytest.approx(desktop * 0.8)
    second.close()


def test_a_strip_hidden_during_a_size_change_shows_in_the_new_size(qtbot: QtBot, tmp_path: Path) -> None:
    """A label under a style sheet kept the font size it was first drawn with: the memory
    pane's loss strip, hidden while the Lead chose Larger Text, showed at the old size."""
    controller = _controller(qtbot, tmp_path / "s.ini")
    _size_key(qtbot, controller, Qt.Key.Key_Plus)
    loss = controller.window.memory_pane.loss_label
    assert not loss.isVisible()
    controller.window.memory_pane.loss_box.show()
    qtbot.waitUntil(loss.isVisible)
    assert loss.font().pointSizeF() == pytest.approx(QApplication.font().pointSizeF())
    controller.close()
