"""Fitting a table's columns to its texts, measured in Python from the model's own strings.

``QHeaderView.ResizeToContents`` measures each cell through the delegate: eight calls into
the Python model per cell (the seven roles a cell is drawn with, then its size). Fitting the
teammate table's twelve columns to the rows on screen took 8 ms of opening a session, more
than reading its TEAM-MEMORY. The texts are Python strings already; measuring them with the
view's font metrics gives the same widths for a twentieth of the calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF, QTextLayout
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

from ui.font_follow import follow_font

# Rows measured at least, from the top row shown: a table not laid out yet (or out of sight)
# has no rows on screen to go by, and widths taken from a screenful do not jump on a scroll.
SCREEN_ROWS = 60
_KEPT_WIDTHS = 5_000  # texts whose width is kept, per table

Texts = Callable[[int, int], Sequence[Sequence[str]]]  # (first row, count) → each row's texts


def text_width(text: str, font: QFont, metrics: QFontMetricsF) -> int:
    """The width the item delegate lays ``text`` out in. A symbol taken from a fallback font
    (``✖ CONTEXT_LOST``) lays out a pixel wider than the font's advance says, so text that is
    not ASCII is laid out as the delegate does; the rest is measured directly."""
    if text.isascii():
        return math.ceil(metrics.horizontalAdvance(text))
    layout = QTextLayout(text, font)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(1_000_000)
    layout.endLayout()
    return math.ceil(line.naturalTextWidth())


class ColumnFit(QObject):
    """Keeps ``view``'s columns (all but ``stretch``, by default the last, which takes the
    width left) as wide as their widest text on screen and their title, refitted whenever
    the model's rows change.

    Qt's own ``ResizeToContents``, measuring the rows on screen, also measured nothing when
    the rows came before the table had laid them out (a pane filled behind another tab, or
    by a worker as the window opened): the Inbox's sender and kind columns stayed as wide
    as their titles, "im…" and "re…", until the Lead resized the pane.

    A change is fitted once, in a queued call: a sync of the model emits several signals, and
    the queued call still runs before the paint that shows the change (Qt posts paints at a
    lower priority), so no frame shows the old widths around the new rows.

    A column the Lead drags to a width of their own keeps it until they double-click its edge
    (or choose Fit Columns to Their Text): a refit on every change would take it back.
    """

    _due = Signal()

    def __init__(self, view: QTableView, texts: Texts, stretch: int | None = None) -> None:
        super().__init__(view)
        self.view = view
        self.texts = texts
        self._pending = False
        self._fitting = False
        self.by_hand: set[int] = set()  # columns the Lead sized: not fitted again
        # Widths measured in the font they were measured in: a working team's table is refitted
        # at each append to a transcript, and all but one of its texts are the same.
        self._widths: tuple[str, dict[str, int]] = ("", {})
        # The titles' widths, by what they depend on: Qt's size hint of a title asks the model
        # for its header data in seven roles, and a working team's table is refitted each time
        # a teammate answers (a millisecond of the window's each time, more than the rows took).
        self._titles: tuple[object, list[int]] = ((), [])
        header = view.horizontalHeader()
        last = header.count() - 1
        self.stretch = last if stretch is None else stretch
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(self.stretch == last)
        if self.stretch != last:
            header.setSectionResizeMode(self.stretch, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(self._resized)
        # After the view's own answer to the double-click (Qt's fitting of the rows on screen).
        header.sectionHandleDoubleClicked.connect(self._fit_again)
        self._due.connect(self.fit, Qt.ConnectionType.QueuedConnection)
        model = view.model()
        for signal in (
            model.modelReset,
            model.layoutChanged,
            model.rowsInserted,
            model.rowsRemoved,
            model.dataChanged,
        ):
            signal.connect(self.fit_soon)
        header.sortIndicatorChanged.connect(self.fit_soon)  # the arrow's room moves with it
        # Now (an empty table too: its columns as wide as their titles), and after each change
        # of the font (View ▸ Larger Text), which changes every width.
        follow_font(view, self.fit_soon)

    def _title_width(self, column: int, arrow: int) -> int:
        """The column's title as the header draws it, with room for the sort arrow only in the
        sorted column. Qt's size hint keeps that room in every column of a sortable table (the
        header's height and a margin, some 25 pixels each): on a 1366-pixel laptop the teammate
        table ran past its edge by as much as the arrows not drawn took (``arrow``: that room)."""
        header = self.view.horizontalHeader()
        hint = header.sectionSizeHint(column)
        if not header.isSortIndicatorShown() or header.sortIndicatorSection() == column:
            return hint
        return max(hint - arrow, 0)

    def _title_widths(self) -> list[int]:
        """Each column's title width (``_title_width``), measured again only when a title, the
        header's font or style, the sorted column or the columns shown changed since the last
        fit."""
        header = self.view.horizontalHeader()
        model = header.model()
        horizontal = Qt.Orientation.Horizontal
        key = (
            header.font().key(),
            header.style().name(),
            header.isSortIndicatorShown(),
            header.sortIndicatorSection(),
            tuple(str(model.headerData(column, horizontal)) for column in range(header.count())),
            tuple(header.isSectionHidden(column) for column in range(header.count())),  # a hidden one's hint is 0
        )
        if self._titles[0] != key:
            # What QHeaderView::sectionSizeFromContents adds for a sort arrow: the section's
            # height (the header's, for a row of titles) and the header margin.
            arrow = header.sizeHint().height() + header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin)
            self._titles = (key, [self._title_width(column, arrow) for column in range(header.count())])
        return self._titles[1]

    def _resized(self, column: int, old: int, new: int) -> None:
        """A width not set here is the Lead's: a drag, or Qt's fitting on a double-click (taken
        back in ``_fit_again``). Hiding or showing a column passes through zero."""
        if not self._fitting and column != self.stretch and old and new:
            self.by_hand.add(column)

    def _fit_again(self, column: int) -> None:
        """A double-click on a column's edge gives it back to the fitting."""
        self.by_hand.discard(column)
        self.fit()

    def fit_all(self) -> None:
        """Every column fitted again, the Lead's widths forgotten."""
        self.by_hand.clear()
        self.fit()

    def fit_soon(self) -> None:
        """Fit in a moment, once for all the signals of one change."""
        if not self._pending:
            self._pending = True
            self._due.emit()

    def fit(self) -> None:
        """Fit now: each column to the widest text of the rows from the top one shown."""
        self._pending = False
        view = self.view
        header = view.horizontalHeader()
        top = max(0, view.rowAt(0))
        shown = view.viewport().height() // max(1, view.verticalHeader().defaultSectionSize()) + 1
        rows = self.texts(top, max(SCREEN_ROWS, shown))
        font = view.font()
        metrics = QFontMetricsF(font)  # fractional widths, rounded up as the delegate does
        if self._widths[0] != font.key() or len(self._widths[1]) > _KEPT_WIDTHS:
            self._widths = (font.key(), {})
        widths = self._widths[1]

        def width(text: str) -> int:
            known = widths.get(text)
            if known is None:
                known = widths[text] = text_width(text, font, metrics)
            return known

        # What the item delegate adds around a text (Qt's CT_ItemViewItem), and the grid line.
        margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
        margin += 1 if view.showGrid() else 0
        titles = self._title_widths()
        self._fitting = True
        try:
            for column in range(header.count()):
                if column == self.stretch or column in self.by_hand or header.isSectionHidden(column):
                    continue
                texts = {row[column] for row in rows}
                widest = max((width(text) for text in texts if text), default=0)
                wanted = max(titles[column], widest + margin if widest else 0)
                if header.sectionSize(column) != wanted:
                    header.resizeSection(column, wanted)
        finally:
            self._fitting = False
