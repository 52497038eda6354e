"""The GC's section tree: ``##`` sections and nested headings with tokens and keyed items."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QTreeView, QWidget

from models.session.folder import Session
from models.session.gc import GlobalContext, Resolved, Section, vanished_items
from models.text.problems import Problem
from ui.after_paint import AfterPaint
from ui.gc_tree_model import GcTreeModel
from ui.node_model import PAYLOAD_ROLE
from ui.strips import ProblemBanner, TonedLabel, warning_tone
from ui.widgets import number_columns, stack, to_clipboard, widget_action

SCREEN_ROWS = 120  # more rows than a tall screen shows of the tree


class SectionsPane(QWidget):
    """The tree of the GC's sections; selecting one previews it (the window connects that)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gc_model = GcTreeModel(self)
        self.shown: GlobalContext | None = None
        self.gc_banner = ProblemBanner()
        self.gc_view = QTreeView()
        self.gc_view.setModel(self.gc_model)
        self.gc_view.setUniformRowHeights(True)
        self.gc_view.setAlternatingRowColors(True)
        number_columns(self.gc_view, {1: "000,000", 2: "Items"})
        self.gc_view.setMinimumWidth(300)
        self.expand_rest = AfterPaint(self.gc_view.viewport(), self)
        # Go to a section by a piece of its title or § reference: a 2,000-section GC is
        # many screens of tree. Return and Shift+Return step through what it finds.
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Go to section: title or §reference (Ctrl+K)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.textChanged.connect(lambda: self.go_to_found(0))
        self.find_box.returnPressed.connect(lambda: self.go_to_found(1))
        widget_action(self.find_box, "Previous section found", "Shift+Return", lambda: self.go_to_found(-1))
        widget_action(self.find_box, "Back to the tree", QKeySequence(Qt.Key.Key_Escape), self._leave_find)
        widget_action(self.find_box, "Down into the tree", QKeySequence(Qt.Key.Key_Down), self.gc_view.setFocus)
        self.found_label = TonedLabel()
        self._found: list[Section] = []
        self._at = -1
        find_row = QWidget()
        row_layout = QHBoxLayout(find_row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.addWidget(self.find_box, 1)
        row_layout.addWidget(self.found_label)
        stack(self, find_row, self.gc_banner, self.gc_view)
        # Copy the section as the file holds it (Qt's own copy took its title), or its § reference
        # (for a message to an agent); on the right-click menu too.
        widget_action(self.gc_view, "Copy as written", QKeySequence.StandardKey.Copy, self.copy_section)
        widget_action(self.gc_view, "Copy reference (§…)", "Ctrl+Alt+C", self.copy_reference)
        self.gc_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def go_to_found(self, step: int) -> None:
        """Select a section the find box names: the first (``step`` 0, as the text changes),
        or the next or previous one found, round the GC; the count says where the Lead is."""
        gc = self.gc_model.shown_gc
        if step == 0:
            self._found = gc.find(self.find_box.text()) if gc is not None else []
            self._at = -1
        text = self.find_box.text().strip()
        if not self._found:
            self.found_label.set_tone(warning_tone if text else None)
            self.found_label.setText("no section" if text else "")
            return
        self._at = (self._at + (step or 1)) % len(self._found)
        self.found_label.set_tone(None)
        self.found_label.setText(f"{self._at + 1} of {len(self._found)}")
        if self.gc_model.rowCount() < len(gc.sections if gc is not None else []):
            self.expand_rest.flush()  # the rows an open put off, made now: the section may be there
        index = self.gc_model.index_of(self._found[self._at])
        if index.isValid():
            self.gc_view.setCurrentIndex(index)  # expands its parents to show it
            self.gc_view.scrollTo(index)

    def _leave_find(self) -> None:
        """Escape: the search cleared, the focus back in the tree on the section found."""
        current = self.gc_view.currentIndex()
        self.find_box.clear()
        self.gc_view.setFocus()
        if current.isValid():
            self.gc_view.setCurrentIndex(current)

    def selected_section(self) -> Section | None:
        index = self.gc_view.currentIndex()
        section = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        return section if isinstance(section, Section) else None

    def copy_section(self) -> str:
        """The selected section, its subsections with it, on the clipboard as written."""
        section, gc = self.selected_section(), self.shown
        return to_clipboard(gc.written(Resolved(section)) if section is not None and gc is not None else "")

    def copy_reference(self) -> str:
        """The selected section's § reference on the clipboard, as a delta item names it."""
        section = self.selected_section()
        return to_clipboard(section.ref if section is not None else "")

    def show_gc(self, session: Session, first: bool) -> None:
        """Show the GC; when a write from outside took items away, say which (as TEAM-MEMORY's
        loss warning does): an agent's Write from a stale copy drops what others added."""
        previous, gc = self.shown, session.gc
        self.shown = gc
        gone = [] if first or previous is None or gc is None else vanished_items(previous, gc)
        warnings = [
            Problem("warning", "global-context.md", f"an outside write removed {ref}: {key}") for ref, key in gone[:10]
        ]
        if len(gone) > 10:
            more = len(gone) - 10  # worded as the lines above, so that it reads on its own
            warnings.append(Problem("warning", "global-context.md", f"an outside write removed {more} more items"))
        # The banner first: showing or hiding it resizes the tree, which then lays out every
        # row it holds. Before the new rows go in, those are the old ones (none on an open),
        # not the 13,000 top-level rows of a ten-times GC, whose size warning shows the banner.
        self.gc_banner.show_problems([*session.problems.get("gc", []), *warnings])
        # On an open, the rows a screen shows now and the other thousands after the first
        # paint: making the 1,334 top-level rows of a 20,000-line GC and laying them out took
        # 9 ms of opening it, and expanding them as much again. An update makes every row.
        whole = self.gc_model.set_gc(gc, SCREEN_ROWS if first else None)
        if first:
            if self._expand_first(SCREEN_ROWS) and whole:
                self.expand_rest.cancel()
            else:
                self.expand_rest.arm(self._show_rest)
            self.gc_view.setCurrentIndex(QModelIndex())

    def _show_rest(self) -> None:
        """The rows an open put off: the other top-level sections (unless an update since
        has made them), then, a turn of the event loop later, everything expanded. Each step
        lays out every row in Python's model, 75 ms on the ten-times GC: the Lead's input is
        handled in between."""
        gc = self.gc_model.shown_gc
        if gc is not None and self.gc_model.rowCount() < len(gc.sections):
            self.gc_model.set_gc(gc)
            self.expand_rest.then(self.gc_view.expandAll)
        else:
            self.gc_view.expandAll()

    def _expand_first(self, rows: int) -> bool:
        """Expand, in the order the tree shows them, the rows among its first ``rows`` lines
        when all is expanded; whether that was the whole tree."""
        model, view = self.gc_model, self.gc_view
        seen = 0
        pending: list[tuple[QModelIndex, int]] = [(QModelIndex(), 0)]  # (parent, next row), depth first
        while pending:
            parent, row = pending.pop()
            if row >= model.rowCount(parent):
                continue
            if seen >= rows:
                return False
            seen += 1
            index = model.index(row, 0, parent)
            pending.append((parent, row + 1))
            if model.hasChildren(index):
                view.setExpanded(index, True)
                pending.append((index, 0))
        return True
