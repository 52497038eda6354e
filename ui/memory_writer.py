"""What the TEAM-MEMORY pane asks of the object that writes the file on the Lead's behalf.

The writer lives in ``app`` (``app.memory_actions.MemoryActions``): no ``ui`` module writes a
file. The pane shows what the session read, gathers the Lead's request, and hands it here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QUndoStack

from models.session.folder import Session
from models.session.memory_entries import MemoryEntry
from models.session.team_memory import TeamMemory


class MemoryWriter(Protocol):
    """The TEAM-MEMORY actions the pane offers; each previews its diff through ``confirm``."""

    path: Path | None
    confirm: Callable[[str, str], bool]
    last_change: tuple[str, str]  # TEAM-MEMORY.md's text before and after the change ``confirm`` asks about
    failed: SignalInstance  # one line: why nothing was written
    lossFound: SignalInstance  # a Loss: entries an outside write took away
    undo_stack: QUndoStack

    def set_file(self, path: Path, text: str | None, memory: TeamMemory | None = None) -> None: ...
    def check_loss(self, memory: TeamMemory | None, raw: bytes | None = None) -> None: ...
    def add_entry(self, role: str, tag: str | None, text: str) -> bool: ...
    def create_with(self, session: Session, role: str, tag: str | None, text: str) -> bool: ...
    def archive(self, chosen: list[tuple[str, MemoryEntry]]) -> bool: ...
    def archive_phase(self, phase: int) -> bool: ...
    def replace_teammate(self, role: str) -> bool: ...
    def prune(self) -> bool: ...
    def restore_lost(self) -> bool: ...
