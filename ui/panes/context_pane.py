"""The Context pane: what a teammate's context is built from, and what each part costs.

A teammate is linked to an agent home and workspace (kept in the session). Its context.yaml is
composed in a worker thread, so a slow generator never freezes the window; generators run only
after the Lead trusts that exact context.yaml (remembered by content hash, asked again when it
changes), with the commands shown first. The team table puts each teammate's context beside
the GC and TEAM-MEMORY it receives, biggest consumers first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from models.context.compose import Block, Composed, compose, load_manifest
from models.context.generators import coverage
from models.context.links import Link, load_links, save_link
from models.context.team import ContextRow, context_rows
from models.session.folder import Session
from models.text.tokens import Tokenizer
from ui.item_models import DISPLAY, TOOLTIP
from ui.node_model import NodeTreeModel, Spec, keyed
from ui.row_detail import RowDetail, every_cell
from ui.tones import tones
from ui.widgets import button_bar, column, plain_label, table_view
from ui.workers import Job

BACKGROUND = Qt.ItemDataRole.BackgroundRole
_PREVIEW_LINES = 40


def _bar(share: float) -> str:
    return "█" * round(share * 20) + "░" * (20 - round(share * 20))


class BlocksModel(NodeTreeModel):
    """The composed blocks in order; each expands to its first lines (or journal messages)."""

    headers = ("Block", "Source", "Status", "Tokens", "Share")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.total = 0

    def set_composed(self, composed: Composed | None) -> None:
        blocks = composed.blocks if composed is not None else []
        self.total = sum(b.tokens for b in blocks) or 1
        specs = []
        for block in blocks:
            if block.source == "journal":
                lines = [
                    f"{m.get('role')}: {str(m.get('content') or m.get('tool_calls') or '')[:160]}"
                    for m in block.messages
                ]
            else:
                lines = (block.content or block.reason or "").splitlines()[:_PREVIEW_LINES]
            children = keyed([(f"{n}:{line}", line, ()) for n, line in enumerate(lines)])
            specs.append((block.id, block, children))
        self.sync(keyed(specs))

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Blocks by status and tokens; preview lines by their text."""
        if isinstance(payload, Block):
            return (payload.id, payload.status, payload.tokens, payload.reason)
        return (payload,)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """A share bar for each block; failures and refusals tinted, their reason in the tooltip."""
        if not isinstance(payload, Block):
            return payload if role == DISPLAY and column == 0 else None
        if role == DISPLAY:
            share = payload.tokens / self.total
            values = (payload.id, payload.source, payload.status, f"{payload.tokens:,}", f"{_bar(share)} {share:.0%}")
            return values[column]
        if role == TOOLTIP:
            command = f"\ncommand: {' '.join(payload.command)}" if payload.command else ""
            return (payload.reason or payload.status) + command
        if role == BACKGROUND and payload.status in ("failed", "refused"):
            return tones().warn
        return None


class TeamModel(NodeTreeModel):
    """Per teammate: its context, the GC and TEAM-MEMORY it receives, and the total."""

    headers = ("Teammate", "Agent home", "Context", "GC", "TEAM-MEMORY", "Total")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.top: str | None = None

    def set_rows(self, rows: list[ContextRow]) -> None:
        """``rows`` as ``context_rows`` orders them, the biggest consumer first."""
        self.top = rows[0].role if rows else None
        self.sync([Spec(r.role, r) for r in rows])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """The whole row."""
        return tuple(payload)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Unlinked teammates show no context tokens; the biggest consumer is tinted."""
        row: ContextRow = payload
        role_id, home, context, gc, memory = row
        if role == DISPLAY:
            values = (
                role_id,
                home or "unlinked",
                "—" if context is None else f"{context:,}",
                f"{gc:,}",
                f"{memory:,}",
                f"{row.total:,}",
            )
            return values[column]
        if role == BACKGROUND and role_id == self.top:
            return tones().warn
        return None


class ContextPane(QWidget):
    """Pick a teammate, see its context blocks; link teammates to agent homes; trust generators."""

    composed = Signal(object)
    _finished = Signal(int, str, object)  # generation, role, Composed or the exception

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.session: Session | None = None
        self.tokenizer: Tokenizer | None = None
        self.results: dict[str, Composed] = {}
        self._stale = False  # changed while hidden (see refresh)
        self.on_screen = True  # its dock's tab is in front (see set_on_screen)
        self.generation = 0
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.teammate = QComboBox()
        self.teammate.currentTextChanged.connect(self.refresh)
        self.status = plain_label()
        link = QPushButton("Link…")
        link.setToolTip("Choose this teammate's agent home and workspace")
        link.clicked.connect(self._ask_link)
        self.trust_button = QPushButton("Trust generators…")
        self.trust_button.setToolTip("Run this context.yaml's computed_file commands (asked again when it changes)")
        self.trust_button.clicked.connect(self._ask_trust)
        self.blocks = BlocksModel(self)
        self.blocks_view = QTreeView()
        self.blocks_view.setModel(self.blocks)
        self.blocks_view.setUniformRowHeights(True)
        self.team = TeamModel(self)
        self.team_view = table_view(self.team, self.team.texts)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("context-blocks-and-team")
        split.addWidget(self.blocks_view)
        # The dock is narrow: the row the Lead is on, every column of it, under the table.
        self.team_detail = RowDetail(
            self.team_view, every_cell, lines=2, placeholder="The selected teammate's row, whole"
        )
        split.addWidget(column(self.team_view, self.team_detail))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(button_bar(self.teammate, link, self.trust_button))
        # On a line of its own: at the end of the button row, a 460-pixel pane put it behind
        # the row's » menu, and "not linked to an agent home" went unseen.
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        self._finished.connect(self._show, Qt.ConnectionType.QueuedConnection)

    # -- session and links --------------------------------------------------------------------------

    def set_session(self, session: Session, tokenizer: Tokenizer) -> None:
        if session is not self.session:
            self.generation += 1  # results still on their way belong to the session left
        self.session, self.tokenizer = session, tokenizer
        self._offer_roles(list(session.roles()))
        self.results.clear()
        for role, _ in self.links().items():
            self._start(role)
        self.refresh()

    def _offer_roles(self, roles: list[str]) -> None:
        """The teammates to choose from, the one chosen kept while it is among them."""
        if roles == [self.teammate.itemText(i) for i in range(self.teammate.count())]:
            return
        current = self.teammate.currentText()
        self.teammate.blockSignals(True)
        self.teammate.clear()
        self.teammate.addItems(roles)
        if current in roles:
            self.teammate.setCurrentText(current)
        self.teammate.blockSignals(False)

    def links(self) -> dict[str, Link]:
        return load_links(self.session.folder)[0] if self.session else {}

    def link(self, role: str, agent_home: Path, workspace: Path) -> None:
        assert self.session is not None
        save_link(self.session.folder, role, Link(agent_home, workspace))
        self._start(role)
        self.refresh()

    def _ask_link(self) -> None:
        role = self.teammate.currentText()
        if not role:
            return
        home = QFileDialog.getExistingDirectory(self, f"Agent home of {role} (holds context.yaml)")
        if not home:
            return
        workspace = QFileDialog.getExistingDirectory(self, f"Workspace of {role}", home)
        self.link(role, Path(home), Path(workspace or home))

    # -- trust ----------------------------------------------------------------------------------------

    def _trusted_hashes(self) -> list[str]:
        value = self.settings.value("context/trusted", [])
        if isinstance(value, str):  # INI files give back one string for a one-element list
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def trusted(self, key: str | None) -> bool:
        """Whether this context.yaml may run its generators in this workspace, with these
        scripts (``Manifest.key_for``: their content hashes)."""
        return key is not None and key in self._trusted_hashes()

    def trust(self, sha: str) -> None:
        self.settings.setValue("context/trusted", [*self._trusted_hashes(), sha])

    def _ask_trust(self) -> None:
        role = self.teammate.currentText()
        link = self.links().get(role)
        if link is None:
            return
        manifest = load_manifest(link.agent_home)
        commands = [" ".join(command) for command in manifest.commands()]
        key = manifest.key_for(link.agent_home.resolve(), link.workspace.resolve())
        if key is None or not commands:
            self.status.setText("No generators to trust")
            return
        files, uncovered = coverage(manifest.commands(), link.agent_home.resolve(), link.workspace.resolve())
        box = QMessageBox(self)
        box.setWindowTitle("Trust this context.yaml?")
        covered = ", ".join(sorted(p.name for p in files)) or "no script file"
        warning = "\n\nNot covered (it may change without asking you again):\n" + "\n".join(uncovered)
        box.setText(
            f"{manifest.path} runs these commands in {link.workspace}:\n\n"
            + "\n".join(commands)
            + f"\n\nTrust covers this file and the bytes of: {covered}; any change asks again."
            + (warning if uncovered else "")
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        if self.confirm(box):
            self.trust(key)
            self._start(role)

    def confirm(self, box: QMessageBox) -> bool:
        """Asks the Lead (tests replace this)."""
        return box.exec() == QMessageBox.StandardButton.Yes

    # -- composing ------------------------------------------------------------------------------------

    def _start(self, role: str) -> None:
        link = self.links().get(role)
        if link is None or self.tokenizer is None:
            return
        tokenizer = self.tokenizer
        self.status.setText(f"Composing {role}…")
        trusted = set(self._trusted_hashes())  # the settings are read here, on the GUI thread
        generation = self.generation

        def work() -> Composed:
            return compose(link.agent_home, link.workspace, tokenizer, lambda m: m.trust_key in trusted)

        self.pool.start(Job(work, lambda result: self._finished.emit(generation, role, result)))

    def _show(self, generation: int, role: str, result: Composed | Exception) -> None:
        if generation != self.generation:
            return  # composed for a session the Lead has left
        if isinstance(result, Exception):
            self.status.setText(f"Composing {role} failed: {result}")
            return
        self.results[role] = result
        self.status.setText("")
        self.refresh()
        self.composed.emit(result)

    def refresh(self) -> None:
        """Show the composed contexts and the team's token budget. While the pane is hidden in
        a shown window it is only marked stale: a TEAM-MEMORY append would otherwise count the
        whole file and read every link again for a table nobody sees."""
        session = self.session
        if session is None or self.tokenizer is None:
            return
        if self.window().isVisible() and not (self.isVisible() and self.on_screen):
            self._stale = True
            return
        self._stale = False
        self._offer_roles(list(session.roles()))  # a phase folder or memory section brings one
        role = self.teammate.currentText()
        result = self.results.get(role)
        self.blocks.set_composed(result)
        self.trust_button.setEnabled(result is not None and any(b.status == "refused" for b in result.blocks))
        links = self.links()
        if result is None and role and role not in links:
            self.status.setText(f"{role} is not linked to an agent home")
        tokens = {name: composed.tokens for name, composed in self.results.items()}
        rows = context_rows(session, self.tokenizer, links, tokens)
        self.team.set_rows(rows)

    def set_on_screen(self, visible: bool) -> None:
        """Its dock's tab was brought to the front (or left): a tabbed dock behind another
        stays 'visible' to Qt, so the window says so. Catch up on what changed meanwhile."""
        self.on_screen = visible
        if visible and self._stale:
            self.refresh()

    def wait(self) -> None:
        """Block until composing is done (tests, screenshots)."""
        self.pool.waitForDone()
