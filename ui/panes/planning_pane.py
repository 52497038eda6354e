"""The GSD planning pane: what each GSD agent type is given for a phase (seed 003), file by file.

A GSD project is not a session: the Lead opens its folder here (remembered between runs), picks
an agent type, a phase and optionally a plan, and sees for each of PROJECT, ROADMAP, STATE and
REQUIREMENTS whether it is skipped, loaded whole, extracted or fallen back to whole, with the
tokens against the whole file and the text itself. Reading four Markdown files takes
milliseconds, so the work runs when the Lead changes a choice, on the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from models.context.gsd import (
    AGENT_TYPES,
    FALLBACK,
    Part,
    SelectiveContext,
    phase_plans,
    roadmap_phases,
    selective_context,
)
from models.text.tokens import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer
from ui.item_models import DISPLAY, TOOLTIP
from ui.node_model import PAYLOAD_ROLE, NodeTreeModel, Spec
from ui.tones import tones
from ui.widgets import button, button_bar, plain_label, table_view

BACKGROUND = Qt.ItemDataRole.BackgroundRole
_DELTA = {"as config.json says": None, "delta on": True, "delta off": False}


class PartsModel(NodeTreeModel):
    """One row per planning file: how it is loaded and what it costs."""

    headers = ("File", "Loaded", "How", "Whole file", "Given")

    def set_result(self, result: SelectiveContext | None) -> None:
        self.sync([Spec(p.file, p) for p in (result.parts if result else [])])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Everything shown, so that a changed count or text repaints its row."""
        p: Part = payload
        return (p.status, p.mode, p.full_tokens, p.tokens, p.warning, p.text)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """A fallback is amber and says what was looked for in its tooltip."""
        p: Part = payload
        if role == DISPLAY:
            return (p.file, p.status, p.mode, f"{p.full_tokens:,}", f"{p.tokens:,}")[column]
        if role == TOOLTIP:
            return p.warning
        if role == BACKGROUND and p.status == FALLBACK:
            return tones().warn
        return None


class PlanningPane(QWidget):
    """Open a GSD project; choose agent type, phase and plan; read what the agent is given."""

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.tokenizer: Tokenizer | None = None  # the session's when one is open
        self._restored = False
        self.planning: Path | None = None
        self.result: SelectiveContext | None = None
        self.agent = QComboBox()
        self.agent.addItems(AGENT_TYPES)
        self.phase = QComboBox()
        self.plan = QComboBox()
        self.delta = QComboBox()
        for combo in (self.phase, self.plan):  # a plan's name is read whole
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.delta.addItems(list(_DELTA))
        self.delta.setToolTip("Preview with delta context on or off; by default as the project's config.json says")
        self.summary = plain_label("Open a GSD project (a folder holding .planning/)")
        self.model = PartsModel(self)
        self.view = table_view(self.model, self.model.texts)
        self.view.selectionModel().currentChanged.connect(self._show_text)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFont("Monospace"))
        self.text.setPlaceholderText("The selected file's part, as the agent is given it")
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("planning-files-and-text")
        split.addWidget(self.view)
        split.addWidget(self.text)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(button_bar(button("Open project…", self._ask_project, None, self), self.agent, self.delta))
        layout.addWidget(button_bar(self.phase, self.plan))
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        for combo in (self.agent, self.plan, self.delta):
            combo.currentIndexChanged.connect(self.refresh)
        self.phase.currentIndexChanged.connect(self._fill_plans)

    def showEvent(self, event: QShowEvent) -> None:
        """Reopen the last project when the pane is first shown, not at start-up (it loads the
        token vocabulary, which a window that never shows this pane need not wait for)."""
        super().showEvent(event)
        if not self._restored:
            self._restored = True
            saved = str(self.settings.value("planning/project", "", type=str))
            if saved and Path(saved).is_dir() and self.planning is None:
                self.open_project(Path(saved))

    def set_tokenizer(self, tokenizer: Tokenizer) -> None:
        """Count as the session does; recount what is shown."""
        self.tokenizer = tokenizer
        if self.planning is not None:
            self.refresh()

    def open_project(self, folder: Path) -> bool:
        """Show ``folder``'s ``.planning/`` (or ``folder`` itself when it is one)."""
        planning = folder if folder.name == ".planning" else folder / ".planning"
        if not planning.is_dir():
            self.summary.setText(f"{folder}: no .planning/ folder")
            return False
        self.planning = planning
        self.settings.setValue("planning/project", str(folder))
        self.phase.blockSignals(True)
        self.phase.clear()
        for number in roadmap_phases(planning):
            self.phase.addItem(f"Phase {number}", number)
        self.phase.blockSignals(False)
        self._fill_plans()
        return True

    def _ask_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a GSD project (the folder holding .planning/)")
        if folder:
            self.open_project(Path(folder))

    def _fill_plans(self) -> None:
        self.plan.blockSignals(True)
        self.plan.clear()
        self.plan.addItem("(no plan)", None)
        phase = self.phase.currentData()
        if self.planning is not None and phase is not None:
            for path in phase_plans(self.planning, str(phase)):
                self.plan.addItem(path.name, str(path))
        self.plan.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        """Compute what the chosen agent is given and show it, keeping the selected file."""
        phase = self.phase.currentData()
        if self.planning is None or phase is None:
            self.model.set_result(None)
            return
        plan = self.plan.currentData()
        try:
            self.result = selective_context(
                self.planning,
                self.agent.currentText(),
                str(phase),
                self.tokenizer or get_tokenizer(DEFAULT_TOKENIZER),
                Path(plan) if plan else None,
                _DELTA[self.delta.currentText()],
            )
        except (OSError, ValueError) as exc:
            self.summary.setText(f"Not read: {exc}")
            self.model.set_result(None)
            return
        r = self.result
        state = "delta context on" if r.enabled else "delta context off (the seed's full-context mode)"
        saved = (
            f", {r.saved_tokens:,} saved ({100 * r.saved_tokens / r.full_tokens:.0f}%)"
            if r.enabled and r.full_tokens
            else ""
        )
        reqs = f" · maps {', '.join(r.requirements)}" if r.requirements else ""
        problems = f" · ⚠ {r.problems[0]}" if r.problems else ""
        self.summary.setText(f"{state}: {r.full_tokens:,} → {r.tokens:,} tokens{saved}{reqs}{problems}")
        self.model.set_result(r)
        if not self.view.currentIndex().isValid() and self.model.rowCount():
            # The ROADMAP, what differs most by agent; else the first file the agent is given
            # (with delta context off most are skipped, and an empty pane said nothing).
            given = [n for n, part in enumerate(r.parts) if part.loaded]
            row = 1 if 1 in given or not given else given[0]
            self.view.setCurrentIndex(self.model.index(row, 0))
        self._show_text()

    def _show_text(self) -> None:
        index = self.view.currentIndex()
        part: Part | None = index.siblingAtColumn(0).data(PAYLOAD_ROLE) if index.isValid() else None
        if part is None or self.result is None:
            self.text.clear()
            return
        if not part.loaded:  # why nothing is given, where the text would be
            r = self.result
            why = part.warning or (
                "the seed's selective-context matrix skips it for this agent"
                if r.enabled
                else "the seed's full-context mode (delta context off) does not load it"
            )
            self.text.setPlainText(f"# {part.file} is not given to {r.agent} in phase {r.phase}: {why}\n")
            return
        note = f"# {part.warning}\n" if part.warning else ""
        self.text.setPlainText(note + part.text)

    def parts(self) -> dict[str, Part]:
        """The shown parts by file name (for tests and scripts)."""
        return {p.file: p for p in (self.result.parts if self.result else [])}
