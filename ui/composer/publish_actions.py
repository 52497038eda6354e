"""The composer's actions that write the session: gates, a baseline, and publishing.

Each shows what it will write and asks first (``confirm``, which tests replace); on success
the composer starts over on what is now on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox, QInputDialog, QMessageBox, QPushButton, QWidget

from models.publish.baseline import BaselineError, baseline_preview, take_baseline
from models.publish.composer import Composer
from models.publish.gate import VERDICTS, GateError, conclude_gate, set_gate_evaluation
from models.publish.publishing import PublishPlan, PublishRefused, execute_publish, utc_now
from models.session.versions import label

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from models.delta.decisions import UpdatePlan


class PublishActions:
    """Mixed into ``ComposerPane``: what it needs from the pane is declared here."""

    composer: Composer | None
    plan: UpdatePlan | None
    gate_button: QPushButton
    published: SignalInstance
    gateConcluded: SignalInstance

    if TYPE_CHECKING:  # the pane's own methods, for the type checker only

        def refresh(self) -> None: ...
        def set_composer(self, composer: Composer) -> None: ...
        def _commit_section_edit(self) -> None: ...
        def catch_up(self) -> None: ...
        def _error(self, message: str) -> None: ...

    def toggle_gate(self) -> None:
        """Start a gate evaluation (freezes updates) or conclude it, in the plan's front matter."""
        c = self.composer
        if c is None:
            return
        path = c.session.folder / "orchestration-plan.md"
        started = c.session.plan.gate_evaluation if c.session.plan else None
        if started:
            verdict, ok = QInputDialog.getItem(
                self._widget(),
                "Conclude gate",
                f"Verdict for phase {started.get('phase', '?')}:",
                list(VERDICTS),
                0,
                False,
            )
            if ok:
                self.conclude_gate(verdict)
            return
        proposed = c.session.current_phase or 1
        phase, ok = QInputDialog.getInt(self._widget(), "Start gate", "Phase being evaluated:", proposed, 0, 99)
        if ok:
            self.set_gate(path, {"phase": phase, "started": utc_now()})

    def baseline(self) -> bool:
        """Adopt a session run by hand: snapshot the GC so the next update can be a delta."""
        c = self.composer
        if c is None:
            return False
        box = QMessageBox(self._widget())
        box.setWindowTitle("Take a baseline")
        box.setText("Take a baseline of this session? This writes:")
        box.setDetailedText(baseline_preview(c.session))
        box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
        if self.confirm(box) != QMessageBox.StandardButton.Ok:
            return False
        try:
            take_baseline(c.session)
        except (BaselineError, OSError) as exc:
            self._error(f"No baseline was taken: {exc}")
            return False
        c.session.reload()
        self.set_composer(Composer.open(c.session))
        return True

    def conclude_gate(self, verdict: str) -> bool:
        """Write the gate record (its own file, never over another) and lift the freeze."""
        c = self.composer
        assert c is not None
        try:
            path = conclude_gate(c.session, verdict, utc_now())
        except GateError as exc:
            self._error(f"The gate could not be concluded: {exc}")
            return False
        c.session.reload({"plan", "gates"})
        self.refresh()
        self.gateConcluded.emit(str(path))
        return True

    def set_gate(self, target: Path, value: dict[str, object] | None) -> bool:
        try:
            set_gate_evaluation(target, value)
        except GateError as exc:
            self._error(f"The gate could not be set: {exc}")
            return False
        assert self.composer is not None
        self.composer.session.reload({"plan"})
        self.refresh()
        return True

    def publish(self) -> None:
        """Show every file publishing writes, ask, then write them (or refuse, writing nothing)."""
        c = self.composer
        if c is None:
            return
        self._commit_section_edit()
        self.catch_up()
        plan = c.publish_plan()
        text = plan.dry_run(c.session.folder)
        if plan.blocked:
            self._error("Publishing is not possible:\n" + "\n".join(plan.blocked))
            return
        box = QMessageBox(self._widget())
        box.setWindowTitle(f"Publish {label(plan.version)}")
        box.setText(f"Publish {label(plan.version)} to {len(self.plan.recipients) if self.plan else 0} teammates?")
        box.setDetailedText(text)
        box.setStandardButtons(QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
        check: QCheckBox | None = None
        if any("## Meta" in s for s in plan.skipped):
            # Made with the box as its parent: a parentless one is deleted with its Python
            # object, and the box, which does not take it over, kept a dangling pointer to it
            # (asking whether it was ticked crashed the app).
            check = QCheckBox("Add ## Meta to TEAM-MEMORY.md (ADR-001 §4) and keep its GC Version", box)
            box.setCheckBox(check)
        if self.confirm(box) != QMessageBox.StandardButton.Ok:
            return
        if check is not None and check.isChecked():
            plan = c.publish_plan(add_meta=True)
        self.do_publish(plan)

    def confirm(self, box: QMessageBox) -> QMessageBox.StandardButton:
        """Asks the Lead (tests replace this)."""
        return QMessageBox.StandardButton(box.exec())

    def do_publish(self, plan: PublishPlan) -> bool:
        c = self.composer
        assert c is not None
        try:
            written = execute_publish(plan)
        except PublishRefused as exc:
            self._error("Nothing was published:\n" + "\n".join(exc.reasons))
            return False
        except OSError as exc:
            self._error(f"Publishing stopped: {exc}")
            return False
        c.session.reload()
        self.set_composer(Composer.open(c.session))
        self.published.emit(written)
        return True

    def _widget(self) -> QWidget:
        assert isinstance(self, QWidget)
        return self
