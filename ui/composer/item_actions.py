"""The composer's actions on the delta it will send: items added, edited, removed or sent
whole, the impact line, and teammates forced to the full GC. Each is one undo step."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QInputDialog, QTableView

from models.delta.items import DeltaItem, Impact
from ui.composer.item_dialog import ItemDialog
from ui.node_model import PAYLOAD_ROLE

if TYPE_CHECKING:
    from ui.composer.pane import ComposerPane


class ItemActions:
    """The composer pane's edits of its items, impact and forced fulls, each pushed as one step
    onto the pane's undo stack."""

    def __init__(self, pane: ComposerPane) -> None:
        self.pane = pane

    def _selected(self, view: QTableView) -> object | None:
        index = view.currentIndex()
        return index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None

    def _refs(self) -> list[str]:
        c = self.pane.composer
        gc = c.session.gc if c is not None else None
        return [s.ref[1:] for s in gc.walk()] if gc is not None else []

    def _set_items(self, text: str, items: tuple[DeltaItem, ...]) -> None:
        self.pane.push_change(text, replace(self.pane.state(), hand_items=items))

    def add_item(self) -> None:
        dialog = ItemDialog(self.pane, None, self._refs())
        if dialog.exec() == QDialog.DialogCode.Accepted and self.pane.composer is not None:
            self._set_items("Add item", (*self.pane.composer.items(), dialog.item()))

    def edit_item(self) -> None:
        payload = self._selected(self.pane.items_view)
        if payload is None or self.pane.composer is None:
            return
        row = self.pane.items_view.currentIndex().row()
        item = payload[0]  # type: ignore[index]
        dialog = ItemDialog(self.pane, item, self._refs())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            items = list(self.pane.composer.items())
            items[row] = dialog.item()
            self._set_items("Edit item", tuple(items))

    def remove_item(self) -> None:
        if self.pane.composer is None or not self.pane.items_view.currentIndex().isValid():
            return
        row = self.pane.items_view.currentIndex().row()
        items = list(self.pane.composer.items())
        del items[row]
        self._set_items("Remove item", tuple(items))

    def replace_section(self) -> None:
        payload = self._selected(self.pane.items_view)
        if payload is None or self.pane.composer is None:
            return
        ref = payload[0].ref  # type: ignore[index]
        self._set_items(f"Send §{ref} whole", self.pane.composer.as_replaced(ref))

    def reset_items(self) -> None:
        self.pane.push_change("Reset items", replace(self.pane.state(), hand_items=None, impact=None))

    def impact_edited(self) -> None:
        c = self.pane.composer
        if c is None:
            return
        names = tuple(n.strip() for n in self.pane.affected.text().split(",") if n.strip())
        impact = Impact(names, self.pane.actions_box.currentText().strip() or "NONE")
        if impact != (c.impact or c.default_impact()):
            self.pane.push_change("Edit impact", replace(self.pane.state(), impact=impact))

    def force_full(self) -> None:
        decision = self._selected(self.pane.decisions_view)
        if decision is None or self.pane.composer is None:
            return
        role = decision.role  # type: ignore[attr-defined]
        reason, ok = QInputDialog.getText(self.pane, "Force full GC", f"Why does {role} get the full GC?")
        if ok and reason.strip():
            self.force_full_for(role, reason.strip())

    def force_full_for(self, role: str, reason: str) -> None:
        forced = dict(self.pane.state().forced_full)
        forced[role] = reason
        self.pane.push_change(
            f"Full GC for {role}", replace(self.pane.state(), forced_full=tuple(sorted(forced.items())))
        )

    def clear_force(self) -> None:
        decision = self._selected(self.pane.decisions_view)
        if decision is None:
            return
        forced = {k: v for k, v in self.pane.state().forced_full if k != decision.role}  # type: ignore[attr-defined]
        self.pane.push_change(
            "Clear forced full", replace(self.pane.state(), forced_full=tuple(sorted(forced.items())))
        )

    def show_decision(self, role: str) -> bool:
        """The Teammates tab in front, ``role``'s row current: what it is sent and why (delta
        or full, the FC that decides); whether the role has a row (no GC: none has)."""
        index = self.pane.decisions_model.find(lambda d: d is not None and d.role == role)
        page = self.pane.decisions_view.parentWidget()  # the Teammates tab's page
        if page is not None:
            self.pane.preview_tabs.setCurrentWidget(page)
        if not index.isValid():
            return False
        self.pane.decisions_view.setCurrentIndex(index)
        self.pane.decisions_view.scrollTo(index)
        return True
