"""Whether an update fits a teammate's context, against Claude Code's auto-compact threshold.

Claude Code 2.1.332 (read from the client itself, see docs/claude-code-fit.md): the effective
window is the model's window less the output it reserves, ``min(maxOutputTokens, 20000)``; an
automatic compaction fires at the effective window less a 13,000-token summary buffer
(``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``, when set, may only lower it). A message that takes a
teammate past that line starts a compaction that summarises away what it just received.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.claude.transcript_read import TeammateContext

OUTPUT_RESERVE_CAP = 20_000  # the most output a window keeps back (current models reserve at least this)
SUMMARY_BUFFER = 13_000  # below the effective window: where the automatic compaction fires


def autocompact_threshold(window: int, max_output: int = OUTPUT_RESERVE_CAP, pct_override: float | None = None) -> int:
    """The context size at which Claude Code compacts a session of ``window`` tokens."""
    effective = window - min(max_output, OUTPUT_RESERVE_CAP)
    threshold = effective - SUMMARY_BUFFER
    if pct_override is not None and 0 < pct_override <= 100:
        return min(int(effective * pct_override / 100), threshold)
    return threshold


@dataclass(frozen=True)
class Fit:
    """One recipient's context now, the message it is about to receive, and the line."""

    role: str
    context: int  # tokens, from its transcript's last usage
    message: int  # tokens of the message (our tokenizer's count: close, not Claude's own)
    threshold: int
    window: int

    @property
    def after(self) -> int:
        return self.context + self.message

    @property
    def tips(self) -> bool:
        """The message takes it to or past the auto-compact threshold."""
        return self.after >= self.threshold

    def describe(self) -> str:
        where = f"{self.context:,} + {self.message:,} = {self.after:,} of {self.threshold:,} before auto-compact"
        if self.tips:
            return (
                f"{self.role}: would tip into an automatic compaction ({where}); send it after its "
                "compaction, or a shorter update"
            )
        return f"{self.role}: fits ({where})"


def fit_of(role: str, context: TeammateContext | None, message_tokens: int) -> Fit | None:
    """The fit of ``message_tokens`` into ``role``'s context; None when its transcript says no
    size (no linked team, no response yet)."""
    if context is None or context.tokens is None or message_tokens <= 0:
        return None
    threshold = autocompact_threshold(context.window)
    return Fit(role, context.tokens, message_tokens, threshold, context.window)
