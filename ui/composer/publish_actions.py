"""The composer's actions that write the session: gates, a baseline, and publishing.

Each prepares its action (``models.actions``), shows every file it will write and asks first
(``confirm``, which tests replace), then hands the preview to the window's runner
(``commitRequested``); once it is written (``committed``) the composer starts over on what is
now on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QMessageBox

from models.actions.preview import Outcome, Preview
from models.actions.publish import prepare_publish
from models.actions.session_edits import (
    gate_question,
    prepare_baseline,
    prepare_gate_conclude,
    prepare_gate_start,
    proposed_gate_phase,
)
from models.claude.status import team_now
from models.publish.baseline import BaselineError
from models.publish.composer import Composer
from models.publish.gate import VERDICTS, GateError
from models.publish.publishing import utc_now
from ui.review_dialog import ReviewDialog

if TYPE_CHECKING:
    from ui.composer.pane import ComposerPane


class SessionActions:
    """The composer pane's actions that write the session, prepared from its composer and
    handed to the window's runner through the pane's ``commitRequested``."""

    def __init__(self, pane: ComposerPane) -> None:
        self.pane = pane

    def toggle_gate(self) -> None:
        """Start a gate evaluation (freezes updates) or conclude it, in the plan's front matter."""
        c = self.pane.composer
        if c is None:
            return
        started = c.session.plan.gate_evaluation if c.session.plan else None
        if started:
            phase = started.get("phase", "?")
            verdict, ok = QInputDialog.getItem(
                self.pane, "Conclude gate", f"Verdict for phase {phase}:", list(VERDICTS), 0, False
            )
            if not ok:
                return
            notes, ok = QInputDialog.getMultiLineText(
                self.pane, "Conclude gate", f"Conditions or notes for phase {phase}'s record (optional):"
            )
            if ok:
                self.conclude_gate(verdict, notes.strip() or None)
            return
        proposed = proposed_gate_phase(c.session)
        phase, ok = QInputDialog.getInt(self.pane, "Start gate", "Phase being evaluated:", proposed, 0, 99)
        if ok:
            self.start_gate(phase, ask=gate_question(c.session, phase))

    def baseline(self) -> bool:
        """Adopt a session run by hand: snapshot the GC so the next update can be a delta."""
        c = self.pane.composer
        if c is None:
            return False
        try:
            preview = prepare_baseline(c.session)
        except (BaselineError, OSError) as exc:
            self.pane.error(f"No baseline was taken: {exc}")
            return False
        if self._review(preview, "Take a baseline of this session? Nothing is sent.") is None:
            return False
        self.pane.commitRequested.emit(preview)
        return True

    def conclude_gate(self, verdict: str, notes: str | None = None) -> bool:
        """Write the gate record (its own file, never over another, with the Lead's conditions
        or notes) and lift the freeze."""
        c = self.pane.composer
        assert c is not None
        try:
            preview = prepare_gate_conclude(c.session, verdict, utc_now(), notes=notes)
        except (GateError, OSError) as exc:
            self.pane.error(f"The gate could not be concluded: {exc}")
            return False
        self.pane.commitRequested.emit(preview)
        return True

    def start_gate(self, phase: int, ask: str | None = None) -> bool:
        """Freeze updates while ``phase`` is evaluated (``gate_evaluation`` in the plan); with
        ``ask``, the Lead is shown the plan's change under that question first."""
        c = self.pane.composer
        assert c is not None
        try:
            preview = prepare_gate_start(c.session, phase, utc_now())
        except (GateError, OSError) as exc:
            self.pane.error(f"The gate could not be set: {exc}")
            return False
        if ask is not None and self._review(preview, ask) is None:
            return False
        self.pane.commitRequested.emit(preview)
        return True

    def publish_preview(self, add_meta: bool = False) -> Preview:
        """What Publish would write now, from the composer as it stands (its ``pending`` as the
        Inbox's last pass read it): the window's and the CLI's one ``prepare_publish``."""
        c = self.pane.composer
        assert c is not None
        team = team_now(self.pane.team_source(), c.session.folder, list(c.session.roles()))
        return prepare_publish(c, add_meta=add_meta, team=team)

    def publish(self) -> None:
        """Show every file publishing writes, ask, then write them (or refuse, writing nothing)."""
        c = self.pane.composer
        if c is None:
            return
        self.pane.commit_section_edit()
        self.pane.catch_up()
        preview = self.publish_preview()
        if preview.refusals:
            self.pane.error("Publishing is not possible:\n" + "\n".join(preview.refusals))
            return
        meta = any("## Meta" in s for s in preview.skipped)
        box = ReviewDialog(preview, f"{preview.title}?", self.pane)
        check = box.add_check("Add ## Meta to TEAM-MEMORY.md (ADR-001 §4) and keep its GC Version") if meta else None
        if self.pane.confirm(box) != QMessageBox.StandardButton.Ok:
            return
        if check is not None and check.isChecked():
            preview = self.publish_preview(add_meta=True)
        self.do_publish(preview)

    def _review(self, preview: Preview, question: str) -> Preview | None:
        """``preview`` when the Lead agrees to it, having been shown every file it writes."""
        box = ReviewDialog(preview, question, self.pane)
        return preview if self.pane.confirm(box) == QMessageBox.StandardButton.Ok else None

    def do_publish(self, preview: Preview) -> None:
        """Hand the reviewed preview to the window's runner (``commitRequested``)."""
        self.pane.commitRequested.emit(preview)

    def committed(self, outcome: Outcome) -> None:
        """An action of this pane's was written: start over on what is now on disk."""
        c = self.pane.composer
        if c is None:
            return
        action = outcome.preview.action
        if action in ("publish", "baseline"):
            kept = self.pane.state() if action == "baseline" and c.dirty else None  # a baseline sends nothing
            c.session.reload()
            self.pane.set_composer(Composer.open(c.session))
            if kept is not None:
                self.pane.push_change("Keep the draft across the baseline", kept)
            if action == "publish":
                self.pane.published.emit(outcome)
        elif action in ("gate-start", "gate-conclude"):
            c.session.reload({"plan", "gates"})
            self.pane.refresh()
            if action == "gate-conclude":
                self.pane.gateConcluded.emit(str(outcome.preview.writes[0].path))

    def refused(self, preview: Preview, reason: str) -> None:
        """An action of this pane's was not written: why, in the pane's own words."""
        failed = {
            "publish": "Nothing was published",
            "baseline": "No baseline was taken",
            "gate-start": "The gate could not be set",
            "gate-conclude": "The gate could not be concluded",
        }.get(preview.action, f"{preview.title}: nothing was written")
        self.pane.error(f"{failed}:\n{reason}")
