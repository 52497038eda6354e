"""The review of an action before it writes, as a git GUI reviews a commit: wide, every file and
inbox entry listed on the left, the selected one's change on the right as a diff, the
decisions and anything blocked or skipped above the buttons.

It shows a ``Preview`` from ``models.actions``: what the Lead reads here is what the commit
writes, byte for byte (the CLI's ``--dry-run`` prints the same preview as text).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QGuiApplication, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from models.actions.preview import Preview
from ui.tones import tones

PAYLOAD = Qt.ItemDataRole.UserRole


class DiffHighlighter(QSyntaxHighlighter):
    """Added lines green, removed red, hunk heads muted: a diff read at a glance, in the
    palette's own readable inks (light or dark)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        palette = tones()
        self.formats: dict[str, QTextCharFormat] = {}
        for mark, colour in (("+", palette.good), ("-", palette.red), ("@", palette.muted)):
            fmt = QTextCharFormat()
            fmt.setForeground(colour)
            self.formats[mark] = fmt

    def highlightBlock(self, text: str) -> None:
        """Colour a line by its first character (file heads, ``+++``/``---``, stay plain)."""
        if text.startswith(("+++", "---")) or not text:
            return
        fmt = self.formats.get(text[0])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)


class ReviewDialog(QDialog):
    """Every file and inbox entry an action writes, with its change, and OK to write them."""

    def __init__(self, preview: Preview, question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview, self.question = preview, question
        self.setWindowTitle(preview.title)
        heading = QLabel(f"<b>{_escape(question)}</b><br>{_escape(preview.text().splitlines()[0])}")
        heading.setWordWrap(True)
        self.files = QListWidget()
        self.files.setAccessibleName("Files and inbox entries")
        self.files.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long outbox names keep both ends
        self.files.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for write in preview.writes:
            item = QListWidgetItem(f"{write.kind:<7} {preview.relative(write)}\n        {write.summary}")
            item.setData(PAYLOAD, preview.change(write))
            self.files.addItem(item)
        for entry in preview.deliveries:
            item = QListWidgetItem(f"inbox   {entry.member or '—'} ({entry.what})\n        {entry.summary}")
            shown = entry.text if entry.text is not None else ""
            item.setData(PAYLOAD, f"{entry.describe()}\n\n{shown}")
            self.files.addItem(item)
        self.change = QPlainTextEdit()
        self.change.setReadOnly(True)
        self.change.setAccessibleName("The selected file's change")
        self.change.setFont(QFont("DejaVu Sans Mono"))
        self.change.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.highlighter = DiffHighlighter(self.change.document())
        self.files.currentItemChanged.connect(self._show)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.files)
        split.addWidget(self.change)
        split.setStretchFactor(1, 3)
        split.setSizes([380, 860])
        self.notes = QLabel("\n".join(notes_of(preview)))
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_verb(preview))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._check: QCheckBox | None = None
        self.layout_ = QVBoxLayout(self)
        for widget in (heading, split, self.notes, self.buttons):
            self.layout_.addWidget(widget)
        self.layout_.setStretch(1, 1)
        if self.files.count():
            self.files.setCurrentRow(0)
        self._fit()

    def _fit(self) -> None:
        """Wide as a commit review, and never past the screen (a 1366×768 laptop included)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry()
        self.resize(min(1240, room.width() - 60), min(680, room.height() - 60))

    def _show(self, item: QListWidgetItem | None) -> None:
        self.change.setPlainText(str(item.data(PAYLOAD)) if item is not None else "")

    def add_check(self, text: str) -> QCheckBox:
        """A choice shown above the buttons (publish's "Add ## Meta")."""
        self._check = QCheckBox(text, self)
        self.layout_.insertWidget(self.layout_.count() - 1, self._check)
        return self._check

    def checkBox(self) -> QCheckBox | None:
        """The choice added with ``add_check``, if any."""
        return self._check

    def text(self) -> str:
        """The question asked."""
        return self.question

    def detailedText(self) -> str:
        """The whole review in words: the preview's text, as ``--dry-run`` prints it."""
        return self.preview.text()


def notes_of(preview: Preview) -> list[str]:
    """What the file list does not say: each teammate's decision with its reasons, a message
    that would tip its recipient into an automatic compaction, what is skipped and what
    blocks the action."""
    out = []
    for d in preview.decisions:
        why = "; ".join(f"{c.code}: {c.reason}" for c in d.conditions)
        out.append(f"{d.role}: {d.mode}" + (f" ({why})" if why else ""))
    out += [f"⚠ {f.describe()}" for f in preview.fits if f.tips]
    out += [f"skipped: {s}" for s in preview.skipped]
    out += [f"blocked: {b}" for b in preview.refusals]
    return out


def _verb(preview: Preview) -> str:
    count = len(preview.writes)
    into = sum(e.what == "write" for e in preview.deliveries)
    text = f"Write {count} file{'s' if count != 1 else ''}"
    return text + (f" and deliver {into}" if into else "")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
