"""Gate records: phase, verdict and the GC versions each gate moved between."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from models.session.folder import Session
from ui.item_models import GateModel
from ui.strips import ProblemBanner
from ui.widgets import stack, table_view


class GatesPane(QWidget):
    """The session's gate records, with what could not be read above them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gate_model = GateModel(self)
        self.gates_banner = ProblemBanner()
        self.gate_view = table_view(self.gate_model, self.gate_model.texts)
        stack(self, self.gates_banner, self.gate_view)

    def show_gates(self, session: Session) -> None:
        self.gate_model.set_gates(session.all_gates)
        self.gates_banner.show_problems(session.problems.get("gates", []))
