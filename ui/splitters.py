"""The panes' inner dividers, kept between runs with the window's layout.

Qt's saved window state holds the docks, not the splitters inside the panes: the composer's
editor dragged wider, or the Inbox's raw message taller, went back at every start.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter, QWidget


class Splitters:
    """Every named splitter of ``window``: saved, restored, and set back as made (Reset
    Layout). A splitter is named where it is made, by what it divides."""

    def __init__(self, window: QWidget, settings: QSettings) -> None:
        self.settings = settings
        self.splitters = {s.objectName(): s for s in window.findChildren(QSplitter) if s.objectName()}
        # As made: the sizes each pane sets, or none yet (then Qt shares the space by the
        # widgets' size hints, as at the first start).
        self.made = {name: s.sizes() for name, s in self.splitters.items()}

    def restore(self) -> None:
        for name, splitter in self.splitters.items():
            state = self.settings.value(f"splitters/{name}")
            if isinstance(state, QByteArray) and not state.isEmpty():
                splitter.restoreState(state)

    def save(self) -> None:
        for name, splitter in self.splitters.items():
            self.settings.setValue(f"splitters/{name}", splitter.saveState())

    def reset(self) -> None:
        """The sizes the panes were made with, where they set some; the others shared out
        evenly. The saved states go too."""
        for name, splitter in self.splitters.items():
            made = self.made[name]
            splitter.setSizes(made if all(made) else [1] * splitter.count())
            self.settings.remove(f"splitters/{name}")
