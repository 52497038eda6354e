"""The composer's actions that write the session: gates, a baseline, and publishing.

Each prepares its action (``models.actions``), shows every file it will write and asks first
(``confirm``, which tests replace), then hands the preview to the window's runner
(``commitRequested``); once it is written (``committed``) the composer starts over on what is
now on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QMessageBox

from models.actions.preview import Outcome, Preview
from models.actions.publish import FitChoice, prepare_publish
from models.actions.session_edits import (
    gate_question,
    prepare_baseline,
    prepare_gate_conclude,
    prepare_gate_start,
    proposed_gate_phase,
)
from models.claude.fit import Fit
from models.claude.status import TeamView, team_now
from models.publish.baseline import BaselineError
from models.publish.composer import Composer
from models.publish.gate import VERDICTS, GateError
from models.publish.publishing import utc_now
from ui.review_dialog import ReviewDialog
from ui.workers import said

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

        def ready(preview: Preview) -> None:
            if self._review(preview, "Take a baseline of this session? Nothing is sent.") is not None:
                self.pane.commitRequested.emit(preview)

        return self.pane.prepare(
            c.session.snapshot, prepare_baseline, ready, self._failed("No baseline was taken", BaselineError)
        )

    def conclude_gate(self, verdict: str, notes: str | None = None) -> bool:
        """Write the gate record (its own file, never over another, with the Lead's conditions
        or notes) and lift the freeze."""
        c = self.pane.composer
        assert c is not None
        now = utc_now()
        return self.pane.prepare(
            c.session.snapshot,
            lambda snapshot: prepare_gate_conclude(snapshot, verdict, now, notes=notes),
            self.pane.commitRequested.emit,
            self._failed("The gate could not be concluded", GateError),
        )

    def start_gate(self, phase: int, ask: str | None = None) -> bool:
        """Freeze updates while ``phase`` is evaluated (``gate_evaluation`` in the plan); with
        ``ask``, the Lead is shown the plan's change under that question first."""
        c = self.pane.composer
        assert c is not None
        now = utc_now()

        def ready(preview: Preview) -> None:
            if ask is None or self._review(preview, ask) is not None:
                self.pane.commitRequested.emit(preview)

        return self.pane.prepare(
            c.session.snapshot,
            lambda snapshot: prepare_gate_start(snapshot, phase, now),
            ready,
            self._failed("The gate could not be set", GateError),
        )

    def _failed(self, failed: str, *expected: type[Exception]) -> Callable[[Exception], None]:
        """What the pane says when a prepare stopped: ``failed``, and why in one line."""
        return lambda exc: self.pane.error(f"{failed}: {said(exc, *expected)}")

    def frozen(self) -> tuple[Composer, TeamView]:
        """The composer as it stands, on a snapshot of its session (the Lead may type on while
        the preview is worked out), and the linked team as last read."""
        c = self.pane.composer
        assert c is not None
        frozen = replace(c, session=c.session.snapshot(), forced_full=dict(c.forced_full), pending=dict(c.pending))
        return frozen, team_now(self.pane.team_source(), c.session.folder, list(c.session.roles()))

    def publish(self) -> bool:
        """Show every file publishing writes, ask, then write them (or refuse, writing nothing):
        the window's and the CLI's one ``prepare_publish``, from the composer as it stands (its
        ``pending`` as the Inbox's last pass read it)."""
        c = self.pane.composer
        if c is None:
            return False
        self.pane.commit_section_edit()
        self.pane.catch_up()
        taken: list[tuple[Composer, TeamView]] = []
        choices: dict[str, FitChoice] = {}

        def take() -> tuple[Composer, TeamView]:
            taken.append(self.frozen())
            return taken[0]

        def ready(preview: Preview) -> None:
            if preview.refusals:
                self.pane.error("Publishing is not possible:\n" + "\n".join(preview.refusals))
                return
            tipping = [f for f in preview.fits if f.tips and f.role not in choices]
            if tipping:  # asked once for each teammate the message would tip into a compaction
                for fit in tipping:
                    choices[fit.role] = self.ask_fit(fit)
                if any(c != "anyway" for c in choices.values()):
                    self.pane.prepare(
                        lambda: taken[0],
                        lambda t: prepare_publish(t[0], team=t[1], fit_choices=choices),
                        ready,
                        self._failed("Nothing was published"),
                    )
                    return
            meta = any("## Meta" in s for s in preview.skipped)
            box = ReviewDialog(preview, f"{preview.title}?", self.pane)
            check = (
                box.add_check("Add ## Meta to TEAM-MEMORY.md (ADR-001 §4) and keep its GC Version") if meta else None
            )
            if self.pane.confirm(box) != QMessageBox.StandardButton.Ok:
                return
            if check is None or not check.isChecked():
                self.pane.commitRequested.emit(preview)
                return
            self.pane.prepare(  # the same composer, with the Meta section the Lead asked for
                lambda: taken[0],
                lambda t: prepare_publish(t[0], add_meta=True, team=t[1], fit_choices=choices),
                self.pane.commitRequested.emit,
                self._failed("Nothing was published"),
            )

        return self.pane.prepare(
            take, lambda t: prepare_publish(t[0], team=t[1]), ready, self._failed("Nothing was published")
        )

    def ask_fit(self, fit: Fit) -> FitChoice:
        """What to do for a teammate the update would tip into a compaction (tests replace this)."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "The update would tip a teammate into a compaction", "", parent=self.pane
        )
        box.setText(fit.describe())
        box.setInformativeText(
            "Send it anyway, send only the sections it follows (smaller), or hold it: it is written now "
            "and delivered after the teammate's next compaction (Deliver sends it then)."
        )
        offered: list[tuple[object, FitChoice]] = [
            (box.addButton("Send &Anyway", QMessageBox.ButtonRole.AcceptRole), "anyway"),
            (box.addButton("Its &Sections Only", QMessageBox.ButtonRole.AcceptRole), "sections"),
            (box.addButton("&Hold Until Compaction", QMessageBox.ButtonRole.AcceptRole), "hold"),
        ]
        box.exec()
        return next((choice for button, choice in offered if button is box.clickedButton()), "anyway")

    def _review(self, preview: Preview, question: str) -> Preview | None:
        """``preview`` when the Lead agrees to it, having been shown every file it writes."""
        box = ReviewDialog(preview, question, self.pane)
        return preview if self.pane.confirm(box) == QMessageBox.StandardButton.Ok else None

    def committed(self, outcome: Outcome) -> None:
        """An action of this pane's was written, and the session read again (the controller
        did): start over on what is now on disk."""
        c = self.pane.composer
        if c is None:
            return
        action = outcome.preview.action
        if action in ("publish", "baseline"):
            kept = self.pane.state() if action == "baseline" and c.dirty else None  # a baseline sends nothing
            self.pane.set_composer(Composer.open(c.session))
            if kept is not None:
                self.pane.push_change("Keep the draft across the baseline", kept)
            if action == "publish":
                self.pane.published.emit(outcome)
        elif action in ("gate-start", "gate-conclude"):
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
