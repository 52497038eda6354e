"""Item models of the composer: the delta items and the per-teammate decisions."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt

from models.delta.decisions import Decision
from models.delta.items import DeltaItem
from models.delta.message import render_item
from models.delta.savings import ScenarioRow
from ui.item_models import DISPLAY, TOOLTIP
from ui.node_model import NodeTreeModel, Spec
from ui.tones import tones

BACKGROUND = Qt.ItemDataRole.BackgroundRole


def _short(text: str | None, limit: int = 80) -> str:
    if text is None:
        return ""
    first = text.split("\n", 1)[0]
    more = "…" if len(first) > limit or "\n" in text else ""
    return first[:limit] + more


class DeltaItemsModel(NodeTreeModel):
    """The delta items in send order, with a flag when one disagrees with the working GC."""

    headers = ("Op", "Section", "Key", "Old", "New / content", "Check")

    def set_items(self, items: tuple[DeltaItem, ...], flags: list[str | None]) -> None:
        # Rows are keyed by position: the same item may appear twice while the Lead edits.
        self.sync([Spec(n, (item, flag)) for n, (item, flag) in enumerate(zip(items, flags, strict=True))])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """The item and its flag."""
        item, flag = payload
        return (item, flag)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """One column per field; the content of REPLACED/ADDED sections is cut to its first line."""
        item, flag = payload
        if role == DISPLAY:
            new = item.new if item.key is not None else item.content
            values = (item.op, "§" + item.ref, item.key or "", _short(item.old), _short(new), flag or "ok")
            return values[column]
        if role == TOOLTIP:
            return flag or (item.content or item.new or item.old or item.label)
        if role == BACKGROUND and flag:
            return tones().warn
        return None

    def describe(self, index: QModelIndex) -> str:
        """The current item as the message writes it, with its check; with none current, where
        to read them all."""
        payload = self.payload(index)
        if payload is None:
            count = self.rowCount()
            return f"{count} item{'s' * (count != 1)}: select one to read it here as it is sent" if count else ""
        item, flag = payload
        check = f"⚠ {flag}\n" if flag else ""
        return check + "\n".join(render_item(item))


_MODE_TEXT = {"delta": "delta", "full": "full GC", "frozen": "frozen", "current": "nothing due", "inactive": "not sent"}


class DecisionsModel(NodeTreeModel):
    """What each teammate gets, why, and what it costs."""

    headers = ("Teammate", "Sends", "Tokens", "Why")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def set_decisions(self, decisions: list[Decision]) -> None:
        self.sync([Spec(d.role, d) for d in decisions])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Mode, tokens and the conditions that fired."""
        d: Decision = payload
        return (d.mode, d.tokens, d.conditions, d.scope, d.unscoped_tokens)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """The conditions are listed by code; their reasons are in the tooltip."""
        d: Decision = payload
        if role == DISPLAY:
            what = sends(d)
            tokens = f"{d.tokens:,}" if d.tokens else "—"
            return (d.role, what, tokens, ", ".join(c.code for c in d.conditions))[column]
        if role == TOOLTIP:
            reasons = [f"{c.code}: {c.reason}" for c in d.conditions] or ["one version behind: the delta"]
            return "\n".join(reasons + ([f"It {d.scope.describe()}"] if d.scope is not None else []))
        if role == BACKGROUND and column == 1 and d.mode in ("full", "frozen"):
            return tones().warn if d.mode == "full" else tones().bad
        return None

    def describe(self, index: QModelIndex) -> str:
        """The current teammate's decision and every reason for it; with none current, each
        teammate that does not get the plain delta, with its reasons."""
        payload = self.payload(index)
        if payload is not None:
            return _decision_text(payload)
        shown = [self.payload(self.index(row, 0)) for row in range(self.rowCount())]
        return "\n".join(_decision_text(d) for d in shown if d.conditions or d.scope is not None)


def sends(d: Decision) -> str:
    """What the teammate is sent, in a word or two (the column is narrow on a laptop): a role
    that follows some sections is sent a version bump when nothing in them changed, and the
    sections it follows when it is due the full GC; the reading pane says the rest."""
    if d.bump:
        return "bump"
    if d.scope is not None and d.mode == "full":
        return f"full, {len(d.scope.follows)} §"  # the sections it follows, in full
    return _MODE_TEXT[d.mode]


def _decision_text(d: Decision) -> str:
    tokens = f" · {d.tokens:,} tokens" if d.tokens else ""
    if d.unscoped_tokens is not None and d.unscoped_tokens != d.tokens:
        tokens += f" ({d.unscoped_tokens:,} following every section)"
    head = f"{d.role}: {sends(d)}{tokens}"
    reasons = "; ".join(f"{c.code}: {c.reason}" for c in d.conditions) or "one version behind: the delta"
    scope = f"; it {d.scope.describe()}" if d.scope is not None else ""
    return f"{head} ({reasons}{scope})"


class ScenariosModel(NodeTreeModel):
    """ADR-002 §7's scenarios, counted on the session's own GC: the ADR's estimate beside ours."""

    headers = ("Scenario", "Items", "Full", "Delta", "Saved", "ADR saved", "What it edited")

    def set_rows(self, rows: list[ScenarioRow]) -> None:
        self.sync([Spec(r.scenario, r) for r in rows])

    def signature(self, payload: Any) -> tuple[object, ...]:
        """Every shown field."""
        r: ScenarioRow = payload
        return (r.items, r.full, r.delta, r.note)

    def display(self, payload: Any, column: int, role: int) -> Any:
        """Counts with thousands separators; a scenario sent in full says so."""
        r: ScenarioRow = payload
        if role == DISPLAY:
            delta = f"{r.delta:,}" if r.delta is not None else "full"
            values = (r.scenario, r.items, f"{r.full:,}", delta, f"{r.savings:.0f}%", f"{r.adr_savings}%", r.note)
            return values[column]
        if role == TOOLTIP:
            return r.note
        return None
