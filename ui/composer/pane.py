"""The delta composer: edit the working GC, shape the delta, preview it, publish it.

Every change the Lead makes here (a section edit, an item added or removed, the impact, a
teammate forced to full) is one QUndoCommand holding the composer's state before and after, so
undo and redo restore exactly what was there. Nothing touches the disk until Publish, which
shows every file it will write and refuses when any of them changed since.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence, QShowEvent, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QMessageBox,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from models.actions.preview import Outcome, Preview
from models.actions.replies import Pending
from models.claude.status import TeamView
from models.delta.decisions import UpdatePlan, render_full, snapshot_versions
from models.delta.message import render_message
from models.delta.savings import scenario_rows
from models.publish.composer import Composer, SectionEditError
from models.session.team_memory import teammate_facts_kept
from models.text.problems import Problem
from ui.composer.header import describe, shown_message
from ui.composer.item_actions import ItemActions
from ui.composer.merge_dialog import DiskMerge
from ui.composer.models import DecisionsModel, DeltaItemsModel, ScenariosModel
from ui.composer.parts import decisions_table, impact_form, item_buttons
from ui.composer.publish_actions import SessionActions
from ui.composer.section_editor import SectionEditor
from ui.composer.undo import ComposerChange, ComposerState
from ui.node_model import PAYLOAD_ROLE
from ui.review_dialog import ReviewDialog
from ui.row_detail import RowDetail
from ui.strips import ProblemBanner
from ui.widgets import button, button_bar, column, plain_label, set_shown, table_view, to_clipboard
from ui.workers import Preparer, prepare_here

EDIT_DELAY_MS = 400  # typing pauses this long before the edit becomes one undo step


#: The session parts the update plan reads; changes elsewhere leave the composer as it is.
PLAN_PARTS = frozenset({"gc", "plan", "gates", "folders", "subscriptions"})


class ComposerPane(QWidget):
    """Compose, preview and publish the next GC version."""

    draftChanged = Signal()  # the composer's state changed: the draft on disk follows
    published = Signal(object)  # the publish's Outcome: its preview lists what goes on to a team
    gateConcluded = Signal(str)  # the gate record written
    commitRequested = Signal(object)  # a Preview the Lead confirmed: the runner writes it
    changed = Signal()  # after every state change and refresh

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # What the pane does with its composer: edits of the items (one undo step each), and
        # the actions that write the session (prepared here, written by the window's runner).
        self.item_actions = ItemActions(self)
        self.session_actions = SessionActions(self)
        self.disk_merge = DiskMerge(self)
        self.last_error: str | None = None
        self.composer: Composer | None = None
        self.plan: UpdatePlan | None = None
        # The linked Claude Code team as the app last read it (where Publish delivers): asked of
        # its one holder, the controller's team bridge, not kept here as a copy.
        self.team_source: Callable[[], TeamView | None] = lambda: None
        # Where its actions' previews are worked out: the window's runner, off the GUI thread.
        self.prepare: Preparer = prepare_here
        self._stale = False  # the composer changed while the tab was hidden (see refresh)
        self.section_ref: str | None = None
        self.undo_stack = QUndoStack(self)
        self._scenarios_for: tuple[str, str] | None = None
        self._edit_timer = QTimer(self)
        self._edit_timer.setSingleShot(True)
        self._edit_timer.setInterval(EDIT_DELAY_MS)
        self._edit_timer.timeout.connect(self.commit_section_edit)
        self._build()

    # -- layout -------------------------------------------------------------------------------------

    def _build(self) -> None:
        self.header = plain_label("No session")
        self.header.setWordWrap(True)
        bold = QFont()  # only the weight set: the size follows the window's (View ▸ Larger Text)
        bold.setBold(True)
        self.header.setFont(bold)
        self.banner = ProblemBanner()

        self.section_editor = SectionEditor()
        self.section_editor.focus_action(self)
        self.section_editor.typed.connect(self._on_typing)
        self.editor, self.editor_label = self.section_editor.editor, self.section_editor.editor_label
        self.rendered = self.section_editor.rendered
        focus_items = QAction("Go to the delta items", self)
        focus_items.setShortcut(QKeySequence("Ctrl+L"))
        focus_items.triggered.connect(self.items_view_focus)
        self.addAction(focus_items)

        self.items_model = DeltaItemsModel(self)
        self.items_view = table_view(self.items_model)
        self.items_view.doubleClicked.connect(lambda _: self.item_actions.edit_item())
        impact_box, self.affected, self.actions_box = impact_form(self.item_actions)
        self.message = QPlainTextEdit()
        self.message.setReadOnly(True)
        self.message.setPlaceholderText("No message: there is nothing to send (the line above says why)")
        self._message_shown: str | None = None
        self.message.setFont(QFont("Monospace"))
        self.decisions_model = DecisionsModel(self)
        self.decisions_view = decisions_table(self.decisions_model)
        decision_buttons = button_bar(
            button("Force full…", self.item_actions.force_full, "Ctrl+Shift+F", self, "Send this teammate the full GC"),
            button("Clear force", self.item_actions.clear_force, None, self, "Back to the decision tree"),
            button("Copy message", self.copy_message, "Ctrl+Shift+C", self, "Copy this teammate's message"),
        )
        tabs = QTabWidget()
        tabs.addTab(column(impact_box, self.message), "Message")  # the impact is part of the message
        self.decisions_detail = RowDetail(
            self.decisions_view,
            self.decisions_model.describe,
            lines=3,
            placeholder="Why a teammate gets what it gets: each one not sent the plain delta, or the one selected",
        )
        tabs.addTab(column(self.decisions_view, self.decisions_detail, decision_buttons), "Teammates")
        self.scenarios_model = ScenariosModel(self)
        self.scenarios_view = table_view(self.scenarios_model)
        self.scenarios_view.setToolTip("ADR-002 §7's scenarios, made on this session's GC and counted exactly")
        savings = tabs.addTab(self.scenarios_view, "Savings")
        tabs.setTabToolTip(savings, self.scenarios_view.toolTip())
        tabs.currentChanged.connect(lambda _: self._show_scenarios())
        tabs.currentChanged.connect(lambda _: self._fit_columns())
        self.preview_tabs = tabs

        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("composer-items-and-preview")
        self.items_detail = RowDetail(
            self.items_view, self.items_model.describe, lines=2, placeholder="The selected item, as it is sent"
        )
        items = column(
            plain_label("Delta items"), self.items_view, self.items_detail, item_buttons(self.item_actions, self)
        )
        right.addWidget(items)
        right.addWidget(tabs)
        right.setSizes([200, 300])  # the items' table holds a few rows; the message is read
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("composer-editor-and-items")
        split.addWidget(self.section_editor)
        split.addWidget(right)
        split.setSizes([520, 520])  # halves: the editor wraps its prose in its own column

        undo = self.undo_stack.createUndoAction(self, "Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.undo_stack.createRedoAction(self, "Redo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        self.undo_action, self.redo_action = undo, redo
        self.gate_button = button(
            "Start gate…",
            self.session_actions.toggle_gate,
            None,
            self,
            "Freeze updates while a gate is evaluated (Ctrl+G)",
        )
        self.publish_button = button(
            "Publish…", self.session_actions.publish, None, self, "Write the update to the session (Ctrl+Shift+P)"
        )
        self.baseline_button = button(
            "Baseline…",
            self.session_actions.baseline,
            None,
            self,
            "Snapshot the GC and record confirmed versions; nothing is sent",
        )
        self.merge_button = button(
            "Merge with disk…", self.disk_merge.run, None, self, "Take what agents wrote meanwhile into your draft"
        )
        bottom = button_bar(self.gate_button, self.baseline_button, self.merge_button, self.publish_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        layout.addWidget(bottom)

    # -- state --------------------------------------------------------------------------------------

    def set_composer(self, composer: Composer) -> None:
        """A new session (or the one just published): a fresh composer and an empty undo stack."""
        self.composer = composer
        self.undo_stack.clear()
        self.refresh()
        self.draftChanged.emit()

    def state(self) -> ComposerState:
        c = self.composer
        assert c is not None
        return ComposerState(c.working_text, c.hand_items, c.impact, tuple(sorted(c.forced_full.items())))

    def apply_state(self, state: ComposerState) -> None:
        c = self.composer
        if c is None:
            return
        c.working_text, c.hand_items, c.impact = state.working_text, state.hand_items, state.impact
        c.forced_full = dict(state.forced_full)
        if not c.edited_in_app:
            c.follow_disk()  # no edit of the Lead's left: take what agents wrote meanwhile
        self.refresh()
        self.draftChanged.emit()

    def push_change(self, text: str, after: ComposerState, merge_key: str | None = None) -> None:
        before = self.state()
        if after != before:
            self.undo_stack.push(ComposerChange(self, text, before, after, merge_key))

    def on_session_changed(self, parts: Collection[str] = PLAN_PARTS) -> None:
        """Files changed on disk: follow the GC unless the Lead is editing it here.

        The GC, the plan, the gates and the snapshot folders feed the update plan, and of
        TEAM-MEMORY its headings: a section brings a teammate, a [REPLACED] one retires it
        (and its line is cited). A teammate appending to TEAM-MEMORY must not re-plan 50
        teammates on every line: a follow-up that keeps what it says of them re-plans nothing.
        """
        if self.composer is None:
            return
        memory_moved = "memory" in parts and not teammate_facts_kept(self.composer.session.memory)
        if PLAN_PARTS & set(parts) or memory_moved:
            self.composer.follow_disk()
            self.refresh()

    def set_pending(self, pending: Pending) -> None:
        """Teammates' unanswered requests, read from the inbox and the team's replies: they
        count (FC-5) before the Lead carries them out."""
        if self.composer is not None and self.composer.pending != pending:
            self.composer.pending = pending
            self.refresh()

    # -- refreshing the views -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the composer's state. While the tab is hidden in a shown window it is only
        marked stale: planning fifty teammates against a large GC is work nobody sees until
        the tab opens (or a message is copied or published from elsewhere)."""
        if self.composer is None:
            return
        if self.window().isVisible() and not self.isVisible():
            self._stale = True
            return
        self._refresh_now()

    def showEvent(self, event: QShowEvent) -> None:
        """The tab opened: catch up on what changed while it was hidden."""
        super().showEvent(event)
        self.catch_up()

    def catch_up(self) -> None:
        """Bring a stale view up to date now (before its plan is used)."""
        if self._stale and self.composer is not None:
            self._refresh_now()

    def _refresh_now(self) -> None:
        c = self.composer
        assert c is not None
        self._stale = False
        items = c.items()
        self.items_model.set_items(items, c.flags())
        self.plan = c.plan()
        self.decisions_model.set_decisions(self.plan.decisions)
        self._fit_columns()
        delta = c.delta()
        # With an unversioned GC there is no delta for anyone: the tab shows the full GC.
        gc = c.session.gc
        if not c.has_update:  # nothing to send (the header says why): no message of no change
            message, body = "", ""
        elif c.base_version is not None:
            message, body = render_message(delta), ""
        else:
            message, body = render_full("", c.new_version), c.new_text
        # The working GC is most often the session's own text, whose parse knows its lines.
        shown = shown_message(message, body, gc.line_count if gc is not None and gc.text is body else None)
        if shown != self._message_shown:  # an unchanged message keeps its scroll position
            self._message_shown = shown
            self.message.setPlainText(shown)
        impact = c.impact or c.default_impact()
        if not self.affected.hasFocus():
            self.affected.setText(", ".join(impact.affected))
            self.affected.setCursorPosition(0)  # the first names in sight, not the end of the list
        if not self.actions_box.hasFocus():
            self.actions_box.setCurrentText(impact.actions)
        self._show_section_text()
        self._update_header(message)
        self._show_scenarios()
        self.changed.emit()

    def _fit_columns(self) -> None:
        """Fit the tables' columns to the rows on screen; a hidden table (the Teammates tab
        behind the message) would be measured row by row: 50 ms with 500 teammates. It is fitted
        when its tab is shown. The last column is left to stretch: fitted on a table on screen,
        it kept its contents' width and left the table's right part empty."""
        for view in (self.items_view, self.decisions_view):
            if view.isVisible():  # the last column stretches over what is left
                for column_number in range(view.model().columnCount() - 1):
                    view.resizeColumnToContents(column_number)

    def _show_scenarios(self) -> None:
        """Computed when the tab is shown (five diffs of the whole GC), once per GC text."""
        c = self.composer
        if c is None or self.preview_tabs.currentWidget() is not self.scenarios_view or c.session.gc is None:
            return
        key = (c.session.gc.text, c.session.tokenizer.name)
        if key != self._scenarios_for:
            self._scenarios_for = key
            self.scenarios_model.set_rows(scenario_rows(c.session.gc.text, c.session.tokenizer))
            self.scenarios_view.resizeColumnsToContents()

    def _update_header(self, message: str) -> None:
        c, plan = self.composer, self.plan
        assert c is not None and plan is not None
        head, problems = describe(c, plan, message)
        self.header.setText(head)
        self.banner.show_problems([Problem("warning", "composer", p) for p in problems])
        gate = c.session.plan.gate_evaluation if c.session.plan else None
        self.gate_button.setText("Conclude gate" if gate else "Start gate…")
        # Not while the header says publishing would be refused (the disk changed under an edit).
        self.publish_button.setEnabled(c.has_update and not plan.frozen and not c.disk_changed_under_edit)
        set_shown(self.merge_button, c.disk_changed_under_edit)
        gc = c.session.gc
        snapshot = gc is not None and gc.version is not None and gc.version in snapshot_versions(c.session.folder)
        set_shown(self.baseline_button, gc is not None and not snapshot)  # a session run by hand until now

    # -- the section editor -------------------------------------------------------------------------

    def show_section(self, ref: str | None) -> None:
        """Edit section ``ref`` of the working GC (follows the GC tree's selection)."""
        self.commit_section_edit()
        self.section_ref = ref
        self._show_section_text()

    def _show_section_text(self) -> None:
        c = self.composer
        text = c.section_text(self.section_ref) if (c is not None and self.section_ref) else None
        self.section_editor.show_text(self.section_ref, text, keep_typed=self._edit_timer.isActive())

    def items_view_focus(self) -> None:
        self.items_view.setFocus()
        if not self.items_view.currentIndex().isValid() and self.items_model.rowCount():
            self.items_view.setCurrentIndex(self.items_model.index(0, 0))

    def _on_typing(self) -> None:
        if self.section_ref:
            self._edit_timer.start()

    def commit_section_edit(self) -> None:
        self._edit_timer.stop()
        c = self.composer
        if c is None or not self.section_ref or self.editor.isReadOnly():
            return
        current = c.section_text(self.section_ref)
        if current is None:
            return
        ending = current[len(current.rstrip("\n")) :]  # the editor shows the section without it
        text = self.editor.toPlainText().rstrip("\n") + ending
        if text == current:
            return
        try:
            working = c.with_section_text(self.section_ref, text)
        except KeyError:
            return
        except SectionEditError as exc:
            self.error(f"The edit was not taken: {exc}")
            return
        state = replace(self.state(), working_text=working)
        self.push_change(f"Edit §{self.section_ref}", state, merge_key=self.section_ref)

    def copy_message(self, role: str | None = None) -> str | None:
        """Copy a teammate's message (the selected one by default) to the clipboard."""
        if role is None:
            index = self.decisions_view.currentIndex()
            decision = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
            role = decision.role if decision is not None else None
        if role is None or self.composer is None:
            return None
        self.catch_up()
        text = self.composer.message_for(role, self.plan)
        return to_clipboard(text) if text is not None else None

    def error(self, message: str) -> None:
        self.last_error = message
        self.banner.show_problems([Problem("error", "composer", message)])

    def confirm(self, box: ReviewDialog) -> QMessageBox.StandardButton:
        """Asks the Lead before an action writes, showing the review (tests replace this)."""
        accepted = box.exec() == QDialog.DialogCode.Accepted.value
        return QMessageBox.StandardButton.Ok if accepted else QMessageBox.StandardButton.Cancel

    def committed(self, outcome: Outcome) -> None:
        """An action of this pane's was written (the window's runner says so)."""
        self.session_actions.committed(outcome)

    def refused(self, preview: Preview, reason: str) -> None:
        """An action of this pane's was not written, and why."""
        self.session_actions.refused(preview, reason)
