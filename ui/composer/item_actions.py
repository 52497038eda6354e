"""The composer's actions on the delta it will send: items added, edited, removed or sent
whole, the impact line, and teammates forced to the full GC. Each is one undo step."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QDialog, QInputDialog, QLineEdit, QTableView, QTabWidget, QWidget

from models.delta.items import DeltaItem, Impact
from models.publish.composer import Composer
from ui.composer.item_dialog import ItemDialog
from ui.composer.models import DecisionsModel
from ui.composer.undo import ComposerState
from ui.node_model import PAYLOAD_ROLE


class ItemActions:
    """Mixed into ``ComposerPane``: what it needs from the pane is declared here."""

    composer: Composer | None
    items_view: QTableView
    decisions_view: QTableView
    decisions_model: DecisionsModel
    preview_tabs: QTabWidget
    affected: QLineEdit
    actions_box: QComboBox

    if TYPE_CHECKING:  # the pane's own methods, for the type checker only

        def _widget(self) -> QWidget: ...
        def state(self) -> ComposerState: ...
        def _push(self, text: str, after: ComposerState, merge_key: str | None = None) -> None: ...

    def _selected(self, view: QTableView) -> object | None:
        index = view.currentIndex()
        return index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None

    def _refs(self) -> list[str]:
        c = self.composer
        gc = c.session.gc if c is not None else None
        return [s.ref[1:] for s in gc.walk()] if gc is not None else []

    def _set_items(self, text: str, items: tuple[DeltaItem, ...]) -> None:
        self._push(text, replace(self.state(), hand_items=items))

    def add_item(self) -> None:
        dialog = ItemDialog(self._widget(), None, self._refs())
        if dialog.exec() == QDialog.DialogCode.Accepted and self.composer is not None:
            self._set_items("Add item", (*self.composer.items(), dialog.item()))

    def edit_item(self) -> None:
        payload = self._selected(self.items_view)
        if payload is None or self.composer is None:
            return
        row = self.items_view.currentIndex().row()
        item = payload[0]  # type: ignore[index]
        dialog = ItemDialog(self._widget(), item, self._refs())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            items = list(self.composer.items())
            items[row] = dialog.item()
            self._set_items("Edit item", tuple(items))

    def remove_item(self) -> None:
        if self.composer is None or not self.items_view.currentIndex().isValid():
            return
        row = self.items_view.currentIndex().row()
        items = list(self.composer.items())
        del items[row]
        self._set_items("Remove item", tuple(items))

    def replace_section(self) -> None:
        payload = self._selected(self.items_view)
        if payload is None or self.composer is None:
            return
        ref = payload[0].ref  # type: ignore[index]
        self._set_items(f"Send §{ref} whole", self.composer.as_replaced(ref))

    def reset_items(self) -> None:
        self._push("Reset items", replace(self.state(), hand_items=None, impact=None))

    def _impact_edited(self) -> None:
        c = self.composer
        if c is None:
            return
        names = tuple(n.strip() for n in self.affected.text().split(",") if n.strip())
        impact = Impact(names, self.actions_box.currentText().strip() or "NONE")
        if impact != (c.impact or c.default_impact()):
            self._push("Edit impact", replace(self.state(), impact=impact))

    def force_full(self) -> None:
        decision = self._selected(self.decisions_view)
        if decision is None or self.composer is None:
            return
        role = decision.role  # type: ignore[attr-defined]
        reason, ok = QInputDialog.getText(self._widget(), "Force full GC", f"Why does {role} get the full GC?")
        if ok and reason.strip():
            self.force_full_for(role, reason.strip())

    def force_full_for(self, role: str, reason: str) -> None:
        forced = dict(self.state().forced_full)
        forced[role] = reason
        self._push(f"Full GC for {role}", replace(self.state(), forced_full=tuple(sorted(forced.items()))))

    def clear_force(self) -> None:
        decision = self._selected(self.decisions_view)
        if decision is None:
            return
        forced = {k: v for k, v in self.state().forced_full if k != decision.role}  # type: ignore[attr-defined]
        self._push("Clear forced full", replace(self.state(), forced_full=tuple(sorted(forced.items()))))

    def show_decision(self, role: str) -> bool:
        """The Teammates tab in front, ``role``'s row current: what it is sent and why (delta
        or full, the FC that decides); whether the role has a row (no GC: none has)."""
        index = self.decisions_model.find(lambda d: d is not None and d.role == role)
        page = self.decisions_view.parentWidget()  # the Teammates tab's page
        if page is not None:
            self.preview_tabs.setCurrentWidget(page)
        if not index.isValid():
            return False
        self.decisions_view.setCurrentIndex(index)
        self.decisions_view.scrollTo(index)
        return True
