"""A teammate's context window: from Claude Code's model catalog, the transcript's evidence, or
the Lead's word, and always saying which.

Claude Code compiles its model catalog into each release; the table below is 2.1.332's
(PROTOCOL.md, "Context windows"). A model id matches the longest catalog id it starts with (ids
carry dates), a ``[1m]`` suffix is the 1M option, a context seen above 200,000 tokens proves a
1M window, and an id the table does not know is shown as assumed, never silently taken as 200k.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from models.claude.protocol import READ_FROM

ONE_M, TWO_HUNDRED_K = 1_000_000, 200_000
CATALOG: dict[str, int] = {
    **dict.fromkeys(
        ("claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-opus-5-5", "claude-sonnet-5",
         "claude-sonnet-5-5", "claude-haiku-5-5", "claude-fable-5", "claude-fable-5-1", "claude-fable-5-2",
         "claude-mythos-5", "claude-mythos-5-1", "claude-mythos-5-2"),
        ONE_M,
    ),
    **dict.fromkeys(
        ("claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-0",
         "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"),
        TWO_HUNDRED_K,
    ),
}  # fmt: skip
DEFAULT_MODEL = "claude-opus-5-5"  # 2.1.332's default, for a member that names none


@dataclass(frozen=True)
class Window:
    """A window in tokens and where it comes from, in the Lead's words."""

    tokens: int
    source: str

    @property
    def assumed(self) -> bool:
        return self.source.startswith("assumed")


def catalog_window(model: str) -> Window | None:
    """The window the catalog gives ``model`` (the longest id it starts with), else None."""
    plain = model.strip().lower()
    if re.search(r"\[1m\]$", plain):
        return Window(ONE_M, f"{model}: the 1M option")
    match = max((mid for mid in CATALOG if plain == mid or plain.startswith(mid + "-")), key=len, default=None)
    if match is None:
        return None
    return Window(CATALOG[match], f"Claude Code {READ_FROM}'s catalog ({match})")


def window_for(model: str, seen: int | None = None, override: int | None = None) -> Window:
    """The window of a teammate running ``model`` (its latest response's, else its member's):
    the Lead's override first, then a context ``seen`` above 200k (only a 1M window holds it),
    then the catalog; an unknown id is assumed 1M, as every current model's window is."""
    if override:
        return Window(override, "set by the Lead")
    known = catalog_window(model) if model else catalog_window(DEFAULT_MODEL)
    if seen is not None and seen > TWO_HUNDRED_K and (known is None or known.tokens < seen):
        return Window(ONE_M, f"a context of {seen:,} tokens was seen (only a 1M window holds it)")
    if known is not None:
        return known if model else Window(known.tokens, f"{known.source}, the default model")
    return Window(ONE_M, f"assumed: {model} is not in Claude Code {READ_FROM}'s catalog")
