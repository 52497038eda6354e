"""A reviewed message as one row of text: what the window's Inbox shows and what
``lead-console inbox`` prints, so that both say the same of every message."""

from __future__ import annotations

import hashlib

from models.review.validation import Review

_BADGE = {"critical": "‼ critical", "high": "⚠ high", "medium": "medium", "low": "low"}
_KIND = {"delta_report": "report"}


def kind_label(r: Review) -> str:
    """The message's kind as the Kind column names it."""
    return _KIND.get(r.message.kind, r.message.kind)


def summary_line(r: Review) -> str:
    """``[⚠ high] summary — ⚠ problem; problem``: what it says and what is wrong, in one cell."""
    summary = r.summary
    for who in (f"{r.message.sender}: ", "unknown sender: "):  # the From column already says who
        summary = summary.removeprefix(who)
    if r.report is not None:
        badges = " ".join(_BADGE.get(k.level or "", "?") for k in r.report.risks)
        summary = f"[{badges}] {summary}" if badges else summary
    return f"{summary} — ⚠ {'; '.join(r.problems)}" if r.problems else summary


def action_line(r: Review, done: str | None) -> str:
    """What the Lead has to do, or ``done: resend`` once it is done (the time is in the tooltip)."""
    if done is not None:
        return f"done: {done.split(' at ', 1)[0]}"
    return "" if r.action in ("none", "record") and not r.problems else r.action


def message_id(r: Review) -> str:
    """A short id for a message that stays while its text and where it was read stay: the
    ledger knows a message by both (the same text may come from two places)."""
    return hashlib.sha256(f"{r.message.source}\n{r.message.sha}".encode()).hexdigest()[:10]
