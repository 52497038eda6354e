"""What the app remembers between runs (QSettings): layout, recent sessions, tokenizer, appearance
and text size."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from models.text.tokens import DEFAULT_TOKENIZER, TOKENIZER_NAMES
from ui.appearance import APPEARANCES, TEXT_SCALES

ORGANIZATION = "LeadConsole"
APPLICATION = "lead-console"
MAX_RECENT = 10


class AppSettings:
    """Typed access to QSettings; tests pass their own INI-backed QSettings."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self.q = qsettings or QSettings(ORGANIZATION, APPLICATION)

    def recent_sessions(self) -> list[Path]:
        value = self.q.value("recent", [])
        # INI files give back a plain string for a one-element list.
        items: list[object] = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
        return [Path(str(p)) for p in items if p]

    def add_recent(self, folder: Path) -> None:
        items = [str(folder)] + [str(p) for p in self.recent_sessions() if p != folder]
        self.q.setValue("recent", items[:MAX_RECENT])

    @property
    def tokenizer(self) -> str:
        value = str(self.q.value("tokenizer", DEFAULT_TOKENIZER))
        return value if value in TOKENIZER_NAMES else DEFAULT_TOKENIZER

    @tokenizer.setter
    def tokenizer(self, name: str) -> None:
        self.q.setValue("tokenizer", name)

    @property
    def appearance(self) -> str:
        """ "system" (the desktop's palette), "light" or "dark": View ▸ Appearance."""
        value = str(self.q.value("appearance", "system"))
        return value if value in APPEARANCES else "system"

    @appearance.setter
    def appearance(self, name: str) -> None:
        self.q.setValue("appearance", name)

    @property
    def text_scale(self) -> int:
        """The text size in percent of the desktop's (one of ``TEXT_SCALES``): View ▸ Larger Text."""
        try:
            value = int(str(self.q.value("text_scale", 100)))
        except ValueError:
            return 100
        return value if value in TEXT_SCALES else 100

    @text_scale.setter
    def text_scale(self, percent: int) -> None:
        self.q.setValue("text_scale", percent)

    @property
    def ack_timeout_min(self) -> int:
        """Minutes after a send before a missing ACK makes the teammate due a ping (ADR-002 §5)."""
        try:
            return max(1, int(str(self.q.value("ack_timeout_min", 10))))
        except ValueError:
            return 10

    def sync(self) -> None:
        self.q.sync()
