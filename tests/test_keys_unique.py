"""No key of the window does two things: a key bound to two actions that can be live at once
does neither (Qt calls it an ambiguous overload). Subscriptions first took Ctrl+Shift+F, which
the composer's Force full… had."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QShortcut

from app.controller import Controller


def test_every_key_is_bound_once_outside_the_widget_it_belongs_to(controller: Controller) -> None:
    window = controller.window
    bound: dict[str, set[str]] = {}
    for action in window.findChildren(QAction):
        if action.shortcutContext() == Qt.ShortcutContext.WidgetShortcut:
            continue  # live only while its own widget has the focus (Esc in a search box)
        for keys in action.shortcuts():
            if not keys.isEmpty():
                bound.setdefault(keys.toString(), set()).add(action.text())
    for shortcut in window.findChildren(QShortcut):
        if shortcut.context() != Qt.ShortcutContext.WidgetShortcut and not shortcut.key().isEmpty():
            bound.setdefault(shortcut.key().toString(), set()).add(f"shortcut of {type(shortcut.parent()).__name__}")
    assert len(bound) > 25  # the menus' and panes' keys were found
    assert {keys: names for keys, names in bound.items() if len(names) > 1} == {}
