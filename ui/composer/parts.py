"""The composer's smaller widgets, each built once by the pane: the delta items' buttons, the
message's impact form, and the teammates' decisions table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QTableView, QWidget

from ui.composer.item_actions import ItemActions
from ui.composer.models import DecisionsModel
from ui.widgets import button, button_bar, table_view

ACTIONS = ("NONE", "PAUSE")


def item_buttons(actions: ItemActions, owner: QWidget) -> QWidget:
    """Add, Edit, Remove, As REPLACED and Reset under the delta items, with their keys."""
    return button_bar(
        button("Add…", actions.add_item, "Ctrl+I", owner, "Add an item by hand"),
        button("Edit…", actions.edit_item, "Ctrl+Shift+E", owner, "Edit the selected item"),
        button("Remove", actions.remove_item, "Delete", owner, "Remove the selected item"),
        button("As REPLACED", actions.replace_section, "Ctrl+R", owner, "Send the selected item's section whole"),
        button("Reset", actions.reset_items, "Ctrl+Shift+R", owner, "Back to the computed items"),
    )


def impact_form(actions: ItemActions) -> tuple[QWidget, QLineEdit, QComboBox]:
    """The message's Impact Assessment: the affected teammates' text and the required actions,
    each edit one undo step (``ItemActions.impact_edited``)."""
    affected = QLineEdit()
    affected.setPlaceholderText("affected teammates, comma-separated")
    affected.setToolTip(
        "Text of the message's Impact Assessment only. Who receives the update follows each "
        "teammate's state (Teammates table: right-click, Set state)."
    )
    affected.editingFinished.connect(actions.impact_edited)
    actions_box = QComboBox()
    actions_box.setEditable(True)
    actions_box.addItems(ACTIONS)
    actions_box.setToolTip("Required actions: NONE, PAUSE or re-read §Section")
    actions_box.activated.connect(lambda _: actions.impact_edited())
    actions_edit = actions_box.lineEdit()
    assert actions_edit is not None
    actions_edit.editingFinished.connect(actions.impact_edited)
    form = QFormLayout()
    form.addRow("Affected (text only)", affected)
    form.addRow("Required actions", actions_box)
    box = QWidget()
    box.setLayout(form)
    return box, affected, actions_box


def decisions_table(model: DecisionsModel) -> QTableView:
    """Each teammate's delta-or-full decision, fitted to the pane's width: what is cut at a
    laptop's width is written out below the table (its ``RowDetail``), not scrolled to."""
    view = table_view(model)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    header = view.horizontalHeader()
    # Qt stretches the last column no narrower than it was when the stretching was turned
    # on (the default 100 px): Why must shrink to its codes' width to stay in sight.
    header.setStretchLastSection(False)
    header.setDefaultSectionSize(40)
    header.setStretchLastSection(True)
    return view
