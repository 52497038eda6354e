"""The section editor: the selected section of the working GC, as Markdown source and rendered.

The editor only shows text and reports typing; the composer pane decides when typing becomes
an edit of the working GC (after a pause, as one undo step).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QFont, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QWidget

from ui.markdown_highlighter import MarkdownHighlighter
from ui.widgets import MarkdownView, plain_label, stack


class SectionEditor(QWidget):
    """A highlighted source editor above the rendered section."""

    typed = Signal()  # the Lead typed (never emitted for text set by ``show_text``)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._applying = False
        self.editor_label = plain_label("Select a section in the GC tree to edit it")
        self.editor_label.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("Monospace"))
        self.editor.setPlaceholderText("The selected section of the working GC")
        # Tab moves on, as everywhere in the window: a tab character in the GC is no indent
        # Markdown reads, and the key kept the focus in the editor for good.
        self.editor.setTabChangesFocus(True)
        self.set_wrapped(False)  # tables and code read unwrapped; View ▸ Wrap Long Lines for prose
        # One undo for the composer (its stack holds typing as steps): Ctrl+Z here is that one.
        self.editor.setUndoRedoEnabled(False)
        self.editor.installEventFilter(self)
        self.highlighter = MarkdownHighlighter(self.editor.document())
        self.editor.textChanged.connect(self._on_text_changed)
        self.rendered = MarkdownView()
        self.rendered.setToolTip("The working section as it will read")
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("section-source-and-rendered")
        split.addWidget(self.editor)
        split.addWidget(self.rendered)
        split.setSizes([360, 200])
        stack(self, self.editor_label, split)

    def set_wrapped(self, wrapped: bool) -> None:
        """Long lines wrapped at the editor's edge, or on one line each (scrolled to): in the
        composer's narrow column on a laptop, a paragraph read a few words at a time."""
        mode = QPlainTextEdit.LineWrapMode.WidgetWidth if wrapped else QPlainTextEdit.LineWrapMode.NoWrap
        self.editor.setLineWrapMode(mode)

    def focus_action(self, owner: QWidget) -> None:
        """Ctrl+E on ``owner`` puts the focus into the editor."""
        focus = QAction("Go to the section editor", owner)
        focus.setShortcut(QKeySequence("Ctrl+E"))
        focus.triggered.connect(self.editor.setFocus)
        owner.addAction(focus)

    def show_text(self, ref: str | None, text: str | None, keep_typed: bool) -> None:
        """Show section ``ref`` (``text`` None: nothing to edit); ``keep_typed`` keeps typing not yet taken."""
        self.editor_label.setText(
            f"Editing §{ref}" if text is not None else "Select a section in the GC tree to edit it"
        )
        self.editor.setReadOnly(text is None)
        if text is not None:
            self.rendered.show_markdown(text)
        else:
            self.rendered.show_message("No section selected.")
        # Shown without its closing newlines: with them, Ctrl+End landed on an empty line below
        # the last item, and Return there put a blank line into the section (the composer keeps
        # the section's own ending when it takes the edit).
        shown = text.rstrip("\n") if text is not None else None
        if shown is not None and shown != self.editor.toPlainText().rstrip("\n") and not keep_typed:
            self._applying = True
            cursor = self.editor.textCursor().position()
            self.editor.setPlainText(shown)
            cursor_to = self.editor.textCursor()
            cursor_to.setPosition(min(cursor, len(shown)))
            self.editor.setTextCursor(cursor_to)
            self._applying = False
        elif text is None:
            self._applying = True
            self.editor.clear()
            self._applying = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Let Undo and Redo reach the composer's actions: the text edit would claim them; and
        colour the source again when the palette changes (a dark desktop theme)."""
        if watched is self.editor and event.type() == QEvent.Type.PaletteChange:
            self.highlighter.follow_palette()
        if (
            watched is self.editor
            and event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and (event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo))
        ):
            return True  # not accepted here: the window's shortcut runs
        return super().eventFilter(watched, event)

    def _on_text_changed(self) -> None:
        if not self._applying:
            self.typed.emit()
