"""The GC's section tree: ``##`` sections and nested headings with tokens and keyed items."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QTreeView, QWidget

from models.session.folder import Session
from ui.item_models import GcTreeModel
from ui.widgets import ProblemBanner, number_columns, stack


class SectionsPane(QWidget):
    """The tree of the GC's sections; selecting one previews it (the window connects that)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gc_model = GcTreeModel(self)
        self.gc_banner = ProblemBanner()
        self.gc_view = QTreeView()
        self.gc_view.setModel(self.gc_model)
        self.gc_view.setUniformRowHeights(True)
        self.gc_view.setAlternatingRowColors(True)
        number_columns(self.gc_view, {1: "000,000", 2: "Items"})
        self.gc_view.setMinimumWidth(300)
        stack(self, self.gc_banner, self.gc_view)

    def show_gc(self, session: Session, first: bool) -> None:
        self.gc_model.set_gc(session.gc)
        self.gc_banner.show_problems(session.problems.get("gc", []))
        if first:
            self.gc_view.expandAll()
            self.gc_view.setCurrentIndex(QModelIndex())
