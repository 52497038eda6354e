"""Small widgets shared by the panes: the safe Markdown viewer, button rows, tables and labels."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QAbstractItemModel, QEvent, Qt, QUrl
from PySide6.QtGui import QAction, QGuiApplication, QImage, QKeySequence, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProxyStyle,
    QPushButton,
    QStyle,
    QStyleOption,
    QTableView,
    QTextBrowser,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from models.text.markdown_html import first_part_end, render_markdown
from ui.after_paint import AfterPaint
from ui.column_fit import ColumnFit, Texts
from ui.font_follow import follow_font
from ui.tones import Tones, tones

PREVIEW_LIMIT = 20_000  # characters (a whole ordinary GC); rendering a 20,000-line GC takes seconds
# Characters rendered first by a view not on screen, whose size says nothing yet: more than
# a tall screen's preview shows.
UNSIZED_PART = 6_000


class MarkdownView(QTextBrowser):
    """Renders Markdown with raw HTML escaped; loads no resources and follows no links.

    Long text is shown in two steps: up to a heading past ``first_part()`` characters at once,
    then the whole after the view has painted that part (``rest``, an ``AfterPaint``).
    Rendering all 20,000 characters took 17 ms of opening a large session (Python-Markdown 10,
    Qt taking the HTML 6), for lines below the fold.
    """

    _shown: str | None = None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rest = AfterPaint(self.viewport(), self)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setSearchPaths([])
        self._html = ""
        self._tones: Tones | None = None
        self._take_tones()

    def _take_tones(self) -> None:
        """Table rules, code boxes and notes in the palette's colours (``ui.tones``)."""
        now = self._tones = tones()
        self.document().setDefaultStyleSheet(
            "table { border-collapse: collapse; }"
            f" th, td {{ border: 1px solid {now.rule.name()}; padding: 2px 6px; }}"
            f" code, pre {{ background: {now.code_background.name()}; }}"
            f" .note {{ color: {now.muted.color().name()}; }}"
        )

    def changeEvent(self, event: QEvent) -> None:
        """On a new palette, render the text again with its colours, at the same place."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and tones() is not self._tones:
            self._take_tones()
            if self._html:
                bar = self.verticalScrollBar()
                value = bar.value()
                self.setHtml(self._html)
                bar.setValue(value)

    def _show_html(self, html_text: str) -> None:
        self._html = html_text
        self.setHtml(html_text)

    def show_markdown(
        self, text: str, start: int = 0, end: int | None = None, lines: int | None = None, later: bool = False
    ) -> None:
        """Render ``text[start:end]`` unless it is already shown; very long text is cut at a
        line end. A range, not a slice: the preview of a whole 10 MB GC copied all of it, and
        counted its lines, to show 20,000 characters; ``lines``, when the caller knows how
        many the range holds, spares the count. ``later``: a view on screen renders after its
        next paint (a session opening: its lists go out first, see ``MainWindow``)."""
        end = len(text) if end is None else end
        if end - start > PREVIEW_LIMIT:
            cut = text.rfind("\n", start, start + PREVIEW_LIMIT) + 1 or start + PREVIEW_LIMIT
            total = text.count("\n", start, end) + (text[end - 1] != "\n") if lines is None else lines
            shown = text[start:cut] + (
                f"\n\n---\n*Preview shows the first {text.count(chr(10), start, cut):,} of {total:,} lines;"
                " select a section to see it whole.*\n"
            )
        else:
            shown = text[start:end]
        if shown == self._shown:
            return  # an edit elsewhere in the file: keep the rendering and the scroll position
        self._shown = shown
        if later and self.isVisible():
            self._html = ""
            self.clear()  # not the last session's text beside this one's lists
            self.rest.arm(lambda: self._render_first(shown))
            return
        self._render_first(shown)

    def _render_first(self, shown: str) -> None:
        """Render ``shown``, or its first part now and the rest after the next paint."""
        first = first_part_end(shown, self.first_part())
        if first is None:
            self.rest.cancel()
            self._show_html(render_markdown(shown))
            return
        self._show_html(render_markdown(shown[:first]))
        self.rest.arm(lambda: self._render_whole(shown))

    def first_part(self) -> int:
        """Characters that fill the view, with a quarter to spare: its lines times the average
        characters a line holds. Rendered Markdown holds fewer (headings are larger, lists
        indented, tables padded), and the part runs on to the next heading; real GCs fill the
        view with half of this (``tests/test_after_paint.py``)."""
        if not self.isVisible():
            return UNSIZED_PART
        viewport = self.viewport()
        metrics = self.fontMetrics()
        lines = viewport.height() // max(metrics.lineSpacing(), 1) + 1
        per_line = viewport.width() // max(metrics.averageCharWidth(), 1)
        return lines * per_line * 5 // 4

    def _render_whole(self, shown: str) -> None:
        """The whole text in place of its first part, at the same scroll position."""
        bar = self.verticalScrollBar()
        value = bar.value()
        self._show_html(render_markdown(shown))
        bar.setValue(value)

    def show_message(self, text: str) -> None:
        self._shown = None
        self.rest.cancel()
        self._show_html(f"<p class='note'>{html.escape(text)}</p>")

    def loadResource(self, type: int, name: QUrl | str) -> object:
        """Never load images or style sheets named by the document (local or remote).

        Returning nothing is not enough: QTextDocument then opens a local path itself (a GC
        with ``![a](/dev/zero)`` froze the window). An empty value of the asked type is an
        answer, so nothing is opened.
        """
        if type == QTextDocument.ResourceType.ImageResource.value:
            return QImage()
        return ""


def plain_label(text: str = "") -> QLabel:
    """A label that shows ``text`` as written: session files may hold HTML, and a rich-text
    label would render it and load its images."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def widget_action(
    widget: QWidget,
    text: str,
    keys: QKeySequence | QKeySequence.StandardKey | str | None,
    run: Callable[[], object],
    context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetShortcut,
) -> QAction:
    """A command of ``widget``: its key works while the focus is in it (a view's Ctrl+C is its
    own), or in ``context``; a view with ``ActionsContextMenu`` lists it on right-click."""
    action = QAction(text, widget)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(context)
    action.triggered.connect(lambda _checked=False: run())  # ``checked`` is no argument of ours
    widget.addAction(action)
    return action


def to_clipboard(text: str) -> str:
    """Put ``text`` on the clipboard unless it is empty (nothing to copy leaves what was
    there); return it."""
    if text:
        QGuiApplication.clipboard().setText(text)
    return text


def button(
    text: str,
    slot: Callable[..., object],
    shortcut: str | None,
    owner: QWidget,
    tip: str = "",
    context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetWithChildrenShortcut,
) -> QPushButton:
    """A push button whose shortcut lives on ``owner`` and shows in the tooltip.

    The shortcut is an action on the owning pane, not the button, so that it works while
    the focus is anywhere inside the pane (``WidgetWithChildrenShortcut``) and two panes
    can use the same keys without Qt calling the sequence ambiguous.
    """
    widget = QPushButton(text)
    # ``clicked`` passes ``checked``: a slot with an optional argument took False for it
    # (Copy message copied the message of a teammate named False: nothing).
    widget.clicked.connect(lambda _checked=False: slot())
    if shortcut:  # named as the tooltip says it (Help ▸ Keyboard Shortcuts lists it)
        widget_action(owner, tip or text, shortcut, slot, context)
        native = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)
        tip = f"{tip} ({native})" if tip else native
    widget.setToolTip(tip)
    return widget


def column(*widgets: QWidget, margin: int = 0) -> QWidget:
    """Widgets stacked vertically in a plain container."""
    return stack(QWidget(), *widgets, margin=margin)


def stack(box: QWidget, *widgets: QWidget, margin: int = 0) -> QWidget:
    """Lay ``widgets`` out vertically inside ``box`` (a pane's own widget); returns ``box``."""
    layout = QVBoxLayout(box)
    layout.setContentsMargins(margin, margin, margin, margin)
    layout.setSpacing(3)
    for w in widgets:
        layout.addWidget(w)
    return box


def row(*widgets: QWidget) -> QWidget:
    """Widgets side by side, packed to the left."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        layout.addWidget(w)
    layout.addStretch(1)
    return box


def count(n: int, one: str, many: str | None = None) -> str:
    """``1 message``, ``2 messages``: every count the window shows reads as English."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def needing_attention(n: int) -> str:
    return f"{n:,} {'needs' if n == 1 else 'need'} attention"


class _FlatBar(QProxyStyle):
    """A toolbar drawn as a plain row: no frame, no margin, 3 pixels between its widgets.

    A style sheet said the same, but a widget under a style sheet keeps the palette it was
    polished with: on a switch to a dark palette, the buttons of every pane's row stayed
    light (89 of the window's 457 widgets)."""

    def pixelMetric(
        self, metric: QStyle.PixelMetric, option: QStyleOption | None = None, widget: QWidget | None = None
    ) -> int:
        """The frame and margins nothing, the spacing 3 pixels; the rest the style's."""
        if metric in (QStyle.PixelMetric.PM_ToolBarFrameWidth, QStyle.PixelMetric.PM_ToolBarItemMargin):
            return 0
        if metric == QStyle.PixelMetric.PM_ToolBarItemSpacing:
            return 3
        return super().pixelMetric(metric, option, widget)

    def drawControl(
        self, element: QStyle.ControlElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        """No toolbar panel; every other element as the style draws it."""
        if element != QStyle.ControlElement.CE_ToolBar:
            super().drawControl(element, option, painter, widget)

    def drawPrimitive(
        self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter, widget: QWidget | None = None
    ) -> None:
        """No toolbar frame; every other primitive as the style draws it."""
        if element != QStyle.PrimitiveElement.PE_PanelToolBar:
            super().drawPrimitive(element, option, painter, widget)


def button_bar(*widgets: QWidget) -> QToolBar:
    """Buttons in a row that a narrow pane may shrink: what does not fit goes behind the
    toolbar's » menu instead of widening the window (a 1366-pixel laptop screen)."""
    bar = QToolBar()
    bar.setMovable(False)
    bar.setFloatable(False)
    flat = _FlatBar()
    flat.setParent(bar)
    bar.setStyle(flat)  # the bar's own: its widgets keep the application's style
    for w in widgets:
        bar.addWidget(w)
    return bar


def set_shown(widget: QWidget, visible: bool) -> None:
    """Show or hide a widget, also inside a ``button_bar``: a toolbar shows its widgets by their
    actions, and ``setVisible`` on the widget itself does not last."""
    bar = widget.parentWidget()
    if isinstance(bar, QToolBar):
        for action in bar.actions():
            if bar.widgetForAction(action) is widget:
                action.setVisible(visible)
                return
    widget.setVisible(visible)


def is_shown(widget: QWidget) -> bool:
    """Whether ``set_shown`` last showed it (whether or not its window is on screen yet)."""
    bar = widget.parentWidget()
    if isinstance(bar, QToolBar):
        return any(a.isVisible() for a in bar.actions() if bar.widgetForAction(a) is widget)
    return not widget.isHidden()


def table_view(model: QAbstractItemModel, texts: Texts | None = None, stretch: int | None = None) -> QTableView:
    """A compact, row-selecting table. With ``texts`` (the model's shown texts, by rows), its
    columns are fitted to them (``ColumnFit``) and ``stretch`` (the last by default) takes
    the width left."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setTabKeyNavigation(False)  # rows are chosen, not cells: Tab goes on to the next control
    view.verticalHeader().hide()
    follow_font(view, lambda: view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8))
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    if texts is not None:
        ColumnFit(view, texts, stretch)  # a child of the view
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    return view


def number_columns(view: QTreeView, samples: dict[int, str]) -> None:
    """Stretch column 0 and size the others once from sample text.

    ``ResizeToContents`` would measure every row after every change, which on a 20,000-row
    tree costs seconds; the sample width fits the widest value these columns hold.
    """
    header = view.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for number in samples:
        header.setSectionResizeMode(number, QHeaderView.ResizeMode.Interactive)

    def fit() -> None:
        for number, sample in samples.items():
            header.resizeSection(number, view.fontMetrics().horizontalAdvance(sample) + 24)

    follow_font(view, fit)


def short_time(timestamp: str | None) -> str:
    """``02-09 10:02`` from an ISO timestamp; anything else as it was written."""
    if not timestamp:
        return ""
    if len(timestamp) >= 16 and timestamp[4] == "-" and timestamp[10] in "T ":
        return f"{timestamp[5:10]} {timestamp[11:16]}"
    return timestamp
