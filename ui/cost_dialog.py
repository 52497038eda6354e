"""Session ▸ Cost of Sharing Context: per member, a bar of what it spent, split into work and
each kind of context it received (full GCs, deltas, bumps, pings, ACK round trips), with the
figures in a table beside it and the team's share and savings above.

The bars are painted here (PySide6-Essentials has no charts module): one row per member, its
length in proportion to the member that spent most, the share of coordination at its end.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from models.claude.sharing import KIND_TITLES, KINDS, MemberCost, TeamCost, usd

COLOURS = {
    "full": QColor("#d9534f"),
    "delta": QColor("#f0ad4e"),
    "bump": QColor("#5bc0de"),
    "ping": QColor("#9b59b6"),
    "ack": QColor("#5cb85c"),
}
_ROW, _GAP, _NAME = 22, 6, 130


class CostChart(QWidget):
    """One horizontal bar per member: work, then each kind of context, to scale."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.members: tuple[MemberCost, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Cost of sharing context, per member")

    def set_members(self, members: tuple[MemberCost, ...]) -> None:
        self.members = members
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def sizeHint(self) -> QSize:
        """Wide enough for names and shares; one row per member and the legend."""
        return QSize(520, (len(self.members) + 1) * (_ROW + _GAP) + _GAP)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Bars from the members' figures, in the palette's colours for text and work."""
        painter = QPainter(self)
        palette = self.palette()
        text, work = palette.color(QPalette.ColorRole.WindowText), palette.color(QPalette.ColorRole.Mid)
        most = max((m.total.usd or m.total.tokens for m in self.members), default=0) or 1
        width = max(10, self.width() - _NAME - 70)
        y = _GAP
        for m in self.members:
            painter.setPen(text)
            painter.drawText(QRectF(0, y, _NAME - 8, _ROW), Qt.AlignmentFlag.AlignVCenter, m.name)
            by_price = m.total.usd > 0
            scale = width / most
            x = float(_NAME)
            parts = [("work", m.work), *((k, m.by_kind[k]) for k in KINDS if k in m.by_kind)]
            for kind, part in parts:
                length = (part.usd if by_price else part.tokens) * scale
                painter.fillRect(QRectF(x, y + 3, length, _ROW - 6), work if kind == "work" else COLOURS[kind])
                x += length
            painter.drawText(QRectF(x + 6, y, 70, _ROW), Qt.AlignmentFlag.AlignVCenter, f"{100 * m.share:.1f}%")
            y += _ROW + _GAP
        x = float(_NAME)
        for kind, colour in [("work", work), *((k, COLOURS[k]) for k in KINDS)]:
            painter.fillRect(QRectF(x, y + 6, 10, 10), colour)
            label = "work" if kind == "work" else KIND_TITLES[kind]
            painter.setPen(text)
            painter.drawText(QRectF(x + 14, y, 160, _ROW), Qt.AlignmentFlag.AlignVCenter, label)
            x += 14 + painter.fontMetrics().horizontalAdvance(label) + 14
        painter.end()


class CostDialog(QDialog):
    """The team's cost of sharing context; ``show_cost`` each time it is worked out again."""

    COLUMNS = ("member", "spent", "work", "context", "share", "saved by deltas", "saved by subscriptions")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cost of Sharing Context")
        self.headline = QLabel("Reading the team's transcripts…")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = CostChart()
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.headline, self.chart, self.table, self.note, buttons):
            layout.addWidget(widget, 1 if widget is self.table else 0)
        self.resize(760, 460)

    def show_message(self, text: str) -> None:
        """Nothing to chart: say why (no team linked, a transcript unreadable)."""
        self.headline.setText(text)
        self.chart.set_members(())
        self.table.setRowCount(0)

    def show_cost(self, cost: TeamCost) -> None:
        total, shared = cost.part("total"), cost.part("coordination")
        deltas, subs = cost.part("saved_by_deltas"), cost.part("saved_by_subscriptions")
        self.headline.setText(
            f"The team spent {usd(total.usd)}: {usd(shared.usd)} ({100 * cost.share:.1f}%) on sharing context. "
            f"Deltas saved {usd(deltas.usd)} against full injections, subscriptions {usd(subs.usd)}."
        )
        self.chart.set_members(cost.members)
        self.table.setRowCount(len(cost.members))
        for row, m in enumerate(cost.members):
            cells = (
                m.name,
                usd(m.total.usd),
                usd(m.work.usd),
                usd(m.coordination.usd),
                f"{100 * m.share:.1f}%",
                usd(m.saved_by_deltas.usd),
                usd(m.saved_by_subscriptions.usd),
            )
            for column, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 3:
                    parts = [f"{KIND_TITLES[k]}: {usd(m.by_kind[k].usd)}" for k in KINDS if k in m.by_kind]
                    item.setToolTip("\n".join(parts) or "none")
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        notes = [f"{m.name}: not priced ({', '.join(m.unpriced)})" for m in cost.members if m.unpriced]
        self.note.setText(
            "\n".join(
                [
                    "Priced by cache tier at Claude Code's own rates: a delivered block is written to the cache "
                    "once and read on every later turn until a compaction; block sizes are this session's "
                    "tokenizer count.",
                    *notes,
                    *cost.problems,
                ]
            )
        )
