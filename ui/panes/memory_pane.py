"""The TEAM-MEMORY pane: sections by role with their entries, filters, and the Lead's actions.

The pane shows what the session read and asks its writer (``app.memory_actions``) to change the file; every
change is previewed as a diff first, and a write that took entries away is shown with a
Restore button.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QPushButton,
    QTreeView,
    QWidget,
)

from models.actions.memory_change import memory_preview
from models.memory.access import access_of
from models.memory.check import structure_problems
from models.memory.loss import Loss
from models.session.folder import Session
from models.session.memory_entries import TAGS, MemoryEntry
from models.session.team_memory import LINE_LIMIT, MemoryQuery, MemorySection
from models.text.problems import Problem
from ui.after_paint import AfterPaint
from ui.item_models import MemoryModel
from ui.memory_entry_dialog import MemoryEntryDialog
from ui.memory_writer import MemoryWriter
from ui.node_model import PAYLOAD_ROLE
from ui.review_dialog import ReviewDialog
from ui.strips import ProblemBanner, TonedLabel, error_tone, over_limit_tone
from ui.widgets import button, button_bar, number_columns, plain_label, row, stack, to_clipboard, widget_action

ALL_TAGS = "All tags"


class MemoryPane(QWidget):
    """TEAM-MEMORY by role and tag, with search, curation actions and the loss warning."""

    def __init__(self, settings: QSettings, memory_actions: MemoryWriter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.session: Session | None = None
        self.memory_model = MemoryModel(self)
        self.memory_banner = ProblemBanner()
        self.tag_box = QComboBox()
        self.tag_box.addItems([ALL_TAGS, *TAGS])
        self.tag_box.setToolTip("Show entries with this tag only")
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search entries (Ctrl+F)")
        self.search_box.setClearButtonEnabled(True)
        self.archived_box = QCheckBox("Archived")
        self.archived_box.setToolTip("Show entries marked [ARCHIVED]")
        self.archived_box.setChecked(self.settings.value("memory/show_archived", "true") == "true")
        self.line_count = TonedLabel()
        bar = QWidget()
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.tag_box, self.search_box, self.archived_box, self.line_count):
            bar_layout.addWidget(w)
        bar_layout.setStretch(1, 1)
        self.memory_view = QTreeView()
        self.memory_view.setModel(self.memory_model)
        self.memory_view.setAlternatingRowColors(True)
        self.memory_view.setUniformRowHeights(True)
        self.memory_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        number_columns(self.memory_view, {1: "Dependency"})
        # The tags beyond ADR-001's list, for the tag filter, once the open's first frame is out:
        # finding them reads every section (20 ms on a 14 MB file), and the list is closed.
        self.tags_after = AfterPaint(self.memory_view.viewport(), self)
        self.memory_model.rowsInserted.connect(self._expand_inserted_sections)
        self.tag_box.currentTextChanged.connect(self._apply_filter)
        self.search_box.textChanged.connect(self._apply_filter)
        # From the search, Return goes to the first entry found and Escape clears the search and
        # goes back to the list; the focus would otherwise stay in the box.
        self.search_box.returnPressed.connect(self._to_first_found)
        widget_action(self.search_box, "Clear the search", QKeySequence(Qt.Key.Key_Escape), self._leave_search)
        self.archived_box.toggled.connect(self._apply_filter)
        self.memory_actions = memory_actions
        self.memory_actions.confirm = self._confirm_change
        self.memory_actions.failed.connect(self._show_refusal)
        self.memory_actions.lossFound.connect(self._show_loss)
        self.access_label = plain_label()
        self.access_label.setToolTip("ADR-001 §5: who may write the selected section")
        self.loss_label = TonedLabel(error_tone)
        self.loss_label.setWordWrap(True)
        self.restore_button = QPushButton("Restore lost entries")
        self.restore_button.clicked.connect(lambda: self.memory_actions.restore_lost())
        self.loss_box = row(self.loss_label, self.restore_button)
        self.loss_box.hide()
        window = Qt.ShortcutContext.WindowShortcut
        # The curation buttons work on the file as it is: with no TEAM-MEMORY.md there is
        # nothing to curate (Add… creates one).
        self.curation_buttons = (
            button("Archive", self.archive_selected, "Ctrl+Shift+X", self, "Archive the selected entries", window),
            button("Archive phase…", self.archive_phase, None, self, context=window),
            button("Replace…", self.replace_teammate, None, self, context=window),
            button("Prune", lambda: self.memory_actions.prune(), None, self, context=window),
        )
        actions = button_bar(
            button("Add…", self.add_entry, "Ctrl+Shift+A", self, "Add a TEAM-MEMORY entry", window),
            *self.curation_buttons,
        )
        self.memory_view.selectionModel().currentChanged.connect(self._show_access)
        # Ctrl+C and the right-click menu copy the rows as the file holds them: Qt's own copy
        # took the current row's first line, without its tag or continuation lines.
        widget_action(self.memory_view, "Copy as written", QKeySequence.StandardKey.Copy, self.copy_selected)
        self.memory_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        # Below the list, not at the end of the button row: a laptop's 460-pixel pane put it
        # behind the row's » menu, unseen.
        self.access_label.hide()
        stack(self, bar, actions, self.memory_banner, self.loss_box, self.memory_view, self.access_label)
        self._apply_filter()

    def _show_refusal(self, message: str) -> None:
        """Why an edit of the Lead's was not written, below what is wrong with the file itself
        (which the refusal used to hide until the next write)."""
        self.memory_banner.show_problems([*self._problems(), Problem("error", "TEAM-MEMORY.md", message)])

    def _problems(self) -> list[Problem]:
        """What is wrong with the file as read, the sections ADR-001 §4 asks for that it lacks
        and a last line with no end (as ``lead-console memory check`` says them)."""
        session = self.session
        if session is None:
            return []
        memory = session.memory
        found = structure_problems(memory) if memory is not None else []
        return [*session.problems.get("memory", []), *(Problem("warning", "TEAM-MEMORY.md", m) for m in found)]

    def show_memory(self, session: Session, first: bool) -> None:
        """Show the session's TEAM-MEMORY; on a follow-up, check what an outside write took away."""
        self.session = session
        path = session.folder / "TEAM-MEMORY.md"
        if first or self.memory_actions.path != path:
            self.memory_actions.set_file(path, session.memory.text if session.memory else None, session.memory)
        else:  # its text is read when judged, not here: a follow-up need not have joined it yet
            self.memory_actions.check_loss(session.memory, session.memory_bytes)
        # The banner first: showing or hiding it resizes the tree, which then lays out every
        # row it holds (as in the sections pane): the old rows, not the new ones.
        self.memory_banner.show_problems(self._problems())
        self.memory_model.set_memory(session.memory)
        self._update_bar()
        if first:
            self._offer_tags([])  # the last session's own tags go now
            self.tags_after.arm(self._update_tags)
            self._expand_rows(0, self.memory_model.rowCount() - 1)
        else:
            self.tags_after.cancel()
            self._update_tags()

    def save_settings(self) -> None:
        self.settings.setValue("memory/show_archived", "true" if self.archived_box.isChecked() else "false")

    def _to_first_found(self) -> None:
        """The focus in the list, on the first entry the search left (under its section)."""
        model = self.memory_model
        for number in range(model.rowCount()):
            section = model.index(number, 0)
            if model.canFetchMore(section):  # a large section's rows are made when first shown
                model.fetchMore(section)
            if model.rowCount(section):
                self.memory_view.setCurrentIndex(model.index(0, 0, section))
                break
        self.memory_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _leave_search(self) -> None:
        self.search_box.clear()
        self.memory_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _update_bar(self) -> None:
        memory = self.session.memory if self.session else None
        for curation in self.curation_buttons:
            curation.setEnabled(memory is not None)
        if memory is None:
            self.line_count.setText("no TEAM-MEMORY.md")
            self.line_count.set_tone(None)
            return
        over = memory.over_limit
        self.line_count.setText(f"{memory.line_count} / {LINE_LIMIT} lines")
        self.line_count.set_tone(over_limit_tone if over else None)
        self.line_count.setToolTip("Above 500 lines ADR-001 asks the Lead to remove [ARCHIVED] entries" if over else "")

    def _update_tags(self) -> None:
        """Offer ADR-001's tags and any other the entries use."""
        memory = self.session.memory if self.session else None
        self._offer_tags(sorted(memory.unknown_tags()) if memory is not None else [])

    def _offer_tags(self, others: list[str]) -> None:
        """ADR-001's tags and ``others`` in the filter; a chosen tag no longer offered gives way
        to all tags, and the view shows them all again."""
        wanted = [ALL_TAGS, *TAGS, *others]
        if [self.tag_box.itemText(i) for i in range(self.tag_box.count())] != wanted:
            current = self.tag_box.currentText()
            self.tag_box.blockSignals(True)
            self.tag_box.clear()
            self.tag_box.addItems(wanted)
            self.tag_box.setCurrentText(current if current in wanted else ALL_TAGS)
            self.tag_box.blockSignals(False)
            if self.tag_box.currentText() != current:
                self._apply_filter()

    def _apply_filter(self) -> None:
        tag = self.tag_box.currentText()
        query = MemoryQuery(None if tag == ALL_TAGS else tag, self.search_box.text(), self.archived_box.isChecked())
        self.memory_model.set_query(query)

    def _expand_inserted_sections(self, parent: QModelIndex, first: int, last: int) -> None:
        if not parent.isValid():
            self._expand_rows(first, last)

    def _expand_rows(self, first: int, last: int) -> None:
        """Expand the sections of a file of readable size; leave a huge one collapsed.

        A tree view lays out every expanded row again after each change; with thousands of
        entries open (far past ADR-001's 500 lines) every live update would cost that.
        """
        model = self.memory_model
        if model.defer_children:  # a file past DEFER_ENTRIES: its rows wait until expanded
            return
        for number in range(first, last + 1):
            self.memory_view.expand(model.index(number, 0))

    def _confirm_change(self, title: str, diff: str) -> bool:
        """The change reviewed as every other write is: wide, the diff shown, each file listed
        (TEAM-MEMORY.md, and the app's journal of what it wrote there)."""
        path = self.memory_actions.path
        if path is None:
            return False
        box = ReviewDialog(memory_preview(path, title, *self.memory_actions.last_change), f"{title}?", self)
        return box.exec() == QDialog.DialogCode.Accepted.value

    def _show_loss(self, loss: Loss) -> None:
        if not loss.any:
            self.loss_box.hide()
            return
        lines = loss.describe()
        lines += [f"  {v.describe()}" for v in loss.vanished[:8]]
        if len(loss.vanished) > 8:
            lines.append(f"  … and {len(loss.vanished) - 8} more")
        self.loss_label.setText(
            "An outside write to TEAM-MEMORY.md took entries away (ADR-001: Edit, never Write):\n" + "\n".join(lines)
        )
        self.restore_button.setEnabled(bool(loss.lost_entries or loss.removed_sections))
        self.loss_box.show()

    def _roles(self) -> list[str]:
        memory = self.session.memory if self.session else None
        roles = ["Lead"] + [s.role for s in memory.roles() if not s.replaced] if memory else ["Lead"]
        mates = [t.role for t in self.session.teammates()] if self.session else []
        return list(dict.fromkeys([*roles, *mates]))

    def add_entry(self) -> None:
        """One dialog for the entry (the selected section first), then the review of the write."""
        selected = self.memory_model.data(self.memory_view.currentIndex(), PAYLOAD_ROLE)
        current = selected.role if isinstance(selected, MemorySection) else None
        dialog = MemoryEntryDialog(self._roles(), current, self)
        if dialog.exec() != QDialog.DialogCode.Accepted.value:
            return
        role, tag, text = dialog.request()
        if self.session is not None and not (self.session.folder / "TEAM-MEMORY.md").exists():
            self.memory_actions.create_with(self.session, role, tag, text)
        else:
            self.memory_actions.add_entry(role, tag, text)

    def selected_rows(self) -> list[QModelIndex]:
        return self.memory_view.selectionModel().selectedRows(0)

    def selected_entries(self) -> list[tuple[str, MemoryEntry]]:
        chosen = []
        for index in self.selected_rows():
            payload = self.memory_model.data(index, PAYLOAD_ROLE)
            parent = self.memory_model.data(index.parent(), PAYLOAD_ROLE)
            if isinstance(payload, MemoryEntry) and isinstance(parent, MemorySection):
                chosen.append((parent.header, payload))
        return chosen

    def copy_selected(self) -> str:
        """Put the selected sections and entries on the clipboard in file order, as written (a
        section's entries go with it); return what was copied."""
        memory = self.session.memory if self.session else None
        if memory is None:
            return ""
        order = {id(section): n for n, section in enumerate(memory.sections)}
        model = self.memory_model
        rows = [(model.data(i, PAYLOAD_ROLE), model.data(i.parent(), PAYLOAD_ROLE)) for i in self.selected_rows()]
        whole = {id(payload) for payload, _ in rows if isinstance(payload, MemorySection)}
        parts: list[tuple[int, int, str]] = []
        for payload, parent in rows:
            if isinstance(payload, MemorySection) and id(payload) in order:
                parts.append((order[id(payload)], -1, memory.written(payload)))
            elif isinstance(payload, MemoryEntry) and isinstance(parent, MemorySection) and id(parent) in order:
                if id(parent) in whole:
                    continue  # its section is copied whole
                parts.append((order[id(parent)], payload.first, memory.written(parent, payload)))
        return to_clipboard("".join(part for _, _, part in sorted(parts, key=lambda p: p[:2])))

    def archive_selected(self) -> None:
        chosen = self.selected_entries()
        if chosen:
            self.memory_actions.archive(chosen)

    def archive_phase(self) -> None:
        phase, ok = QInputDialog.getInt(self, "Archive a phase", "Archive the entries of phase:", 1, 0, 99)
        if ok:
            self.memory_actions.archive_phase(phase)

    def replace_teammate(self) -> None:
        roles = [r for r in self._roles() if r != "Lead"]
        role, ok = QInputDialog.getItem(self, "Replace a teammate", "Teammate being replaced:", roles, 0, False)
        if ok:
            self.memory_actions.replace_teammate(role)

    def _show_access(self, index: QModelIndex) -> None:
        payload = self.memory_model.data(index, PAYLOAD_ROLE)
        parent = self.memory_model.data(index.parent(), PAYLOAD_ROLE)
        section = payload if isinstance(payload, MemorySection) else parent
        text = ""
        if isinstance(section, MemorySection):
            text = f"Who writes {section.role}'s section: {access_of(section.role)}"
        self.access_label.setText(text)
        self.access_label.setVisible(bool(text))
