"""The composer's undo steps: each holds the composer's whole state before and after.

Restoring a state (not replaying an edit) keeps undo exact whatever happened in between, and
lets typing in one section merge into one step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from models.delta.items import DeltaItem, Impact

if TYPE_CHECKING:
    from ui.composer.pane import ComposerPane


@dataclass(frozen=True)
class ComposerState:
    """What one undo step restores: the working GC, hand-edited items, impact and forced fulls."""

    working_text: str
    hand_items: tuple[DeltaItem, ...] | None
    impact: Impact | None
    forced_full: tuple[tuple[str, str], ...]


class ComposerChange(QUndoCommand):
    """One composer edit; consecutive edits of the same section merge into one step."""

    def __init__(
        self, pane: ComposerPane, text: str, before: ComposerState, after: ComposerState, merge_key: str | None
    ) -> None:
        super().__init__(text)
        self.pane, self.before, self.after, self.merge_key = pane, before, after, merge_key

    def id(self) -> int:
        """Section edits share an id so that QUndoStack offers them to mergeWith."""
        return 1 if self.merge_key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        """Typing in one section is one undo step, however many pauses it took."""
        if not isinstance(other, ComposerChange) or other.merge_key != self.merge_key or self.merge_key is None:
            return False
        self.after = other.after
        return True

    def redo(self) -> None:
        """Apply the state after the edit."""
        self.pane.apply_state(self.after)

    def undo(self) -> None:
        """Restore the state before the edit."""
        self.pane.apply_state(self.before)
