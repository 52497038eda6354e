"""The team's token budget: per teammate, the context it is given at start and the GC and
TEAM-MEMORY it receives; the Context pane's team table and ``lead-console contexts``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from models.context.links import Link
from models.session.folder import Session
from models.text.tokens import Tokenizer


class ContextRow(NamedTuple):
    """One teammate's line: ``context`` is None while it is unlinked (or not composed yet)."""

    role: str
    agent_home: str  # "" when unlinked
    context: int | None
    gc: int
    memory: int

    @property
    def total(self) -> int:
        return (self.context or 0) + self.gc + self.memory


def context_rows(
    session: Session, tokenizer: Tokenizer, links: Mapping[str, Link], composed: Mapping[str, int]
) -> list[ContextRow]:
    """Every teammate's row, the biggest consumer first (ties in the session's order).
    ``composed``: each linked teammate's composed context, in tokens."""
    gc = session.gc.tokens if session.gc else 0
    memory = tokenizer.count(session.memory.text) if session.memory else 0
    rows = [
        ContextRow(role, str(links[role].agent_home) if role in links else "", composed.get(role), gc, memory)
        for role in session.roles()
    ]
    return sorted(rows, key=lambda row: -row.total)
