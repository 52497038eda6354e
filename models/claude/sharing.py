"""The cost of sharing context: what each teammate (and the lead) spends receiving the team's
context and acknowledging it, against what it spends on work, priced by cache tier.

Worked out from a transcript's responses in order (``Spending``) and the messages that reached
its model (``Received``, each with how many responses came before it):

- **A delivered block** (a full GC, a delta, a version bump, a ping; on the lead's side, an
  ACK) of T tokens is written to the prompt cache once, by the first response after it, and
  read by every later response until a compaction summarises it away: T at that response's
  five-minute cache-write rate, then T at each later response's cache-read rate.
- **An ACK round trip's turn**: a response that sends an ``[ACK-UPDATE]``, or (the lead's) one
  that answers ACKs alone, costs what its usage says, less what the blocks above already
  counted of it.
- **Work** is the rest: every response's usage, priced at its model's rates
  (``models.claude.prices``), less the two above.
- **Savings**: for each delta or bump, a full injection of that version (and, where a
  subscription narrowed it, the whole delta) in its place, living as long: what deltas and
  subscriptions saved.

Block sizes are the session tokenizer's count (close to Claude's, not equal); the rest is the
transcript's own usage. A model with no known price is counted in tokens and named, never
priced as another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from models.claude.prices import SOURCE, prices_for
from models.claude.transcript_read import Received, TeammateContext
from models.claude.usage import Response

KINDS = ("full", "delta", "bump", "ping", "ack")
KIND_TITLES = {
    "full": "full GC injections",
    "delta": "deltas",
    "bump": "version bumps",
    "ping": "pings",
    "ack": "ACK round trips",
}
Alternative = Callable[[Received, str], tuple[int | None, int | None]]  # (full GC, whole delta) tokens


def usd(value: float) -> str:
    """A price as the Lead reads it: cents, or four places under a cent."""
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def kind_of(text: str) -> str | None:
    """What a delivered block is, by its first line; None for work (tasks, questions, answers)."""
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("[ACK-UPDATE]"):
        return "ack"
    if first.startswith("[PING]"):
        return "ping"
    if not first.startswith("[CONTEXT-UPDATE]"):
        return None
    if "(full injection" in first:
        return "full"
    return "bump" if "nothing in your sections" in first else "delta"


@dataclass(frozen=True)
class Part:
    """Tokens and their price (US$; 0.0 where no price is known)."""

    tokens: int = 0
    usd: float = 0.0

    def __add__(self, other: Part) -> Part:
        return Part(self.tokens + other.tokens, self.usd + other.usd)

    def __sub__(self, other: Part) -> Part:
        return Part(max(0, self.tokens - other.tokens), max(0.0, self.usd - other.usd))

    def data(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "usd": round(self.usd, 6)}


@dataclass(frozen=True)
class MemberCost:
    """One member's spending: in all, on the team's context by kind, and what was saved."""

    member: str
    role: str | None
    responses: int
    total: Part
    by_kind: dict[str, Part]
    saved_by_deltas: Part = Part()
    saved_by_subscriptions: Part = Part()
    unpriced: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """Its role, or the lead's member name said as the lead's."""
        return self.role or f"{self.member} (lead)"

    @property
    def coordination(self) -> Part:
        return sum(self.by_kind.values(), Part())

    @property
    def work(self) -> Part:
        return self.total - self.coordination

    @property
    def share(self) -> float:
        """Coordination's share of what it spent (by price; by tokens where nothing is priced)."""
        if self.total.usd > 0:
            return min(1.0, self.coordination.usd / self.total.usd)
        return min(1.0, self.coordination.tokens / self.total.tokens) if self.total.tokens else 0.0

    def data(self) -> dict[str, Any]:
        return {
            "member": self.member,
            "role": self.role,
            "responses": self.responses,
            "total": self.total.data(),
            "work": self.work.data(),
            "coordination": self.coordination.data(),
            "coordination_share_percent": round(100 * self.share, 1),
            "by_kind": {k: self.by_kind.get(k, Part()).data() for k in KINDS},
            "saved_by_deltas": self.saved_by_deltas.data(),
            "saved_by_subscriptions": self.saved_by_subscriptions.data(),
            "unpriced_models": list(self.unpriced),
        }


@dataclass(frozen=True)
class TeamCost:
    """Every member's spending, the lead's among them where its transcript was read."""

    members: tuple[MemberCost, ...]
    problems: tuple[str, ...] = field(default_factory=tuple)

    def part(self, name: str) -> Part:
        """The team's sum of one of its members' parts (``total``, ``work``, ``coordination``,
        ``saved_by_deltas``, ``saved_by_subscriptions``)."""
        parts = [getattr(m, name) for m in self.members]
        return sum((p for p in parts if isinstance(p, Part)), Part())

    @property
    def share(self) -> float:
        total, coordination = self.part("total"), self.part("coordination")
        if total.usd > 0:
            return min(1.0, coordination.usd / total.usd)
        return min(1.0, coordination.tokens / total.tokens) if total.tokens else 0.0

    def data(self) -> dict[str, Any]:
        return {
            "priced_by": SOURCE,
            "members": [m.data() for m in self.members],
            "team": {
                "total": self.part("total").data(),
                "work": self.part("work").data(),
                "coordination": self.part("coordination").data(),
                "coordination_share_percent": round(100 * self.share, 1),
                "saved_by_deltas": self.part("saved_by_deltas").data(),
                "saved_by_subscriptions": self.part("saved_by_subscriptions").data(),
            },
            "problems": list(self.problems),
        }


class _Rates:
    """Per response: its price, and the running sum of cache-read rates (a block's reads)."""

    def __init__(self, responses: tuple[Response, ...]) -> None:
        self.prices = [p.at(r.prompt) if (p := prices_for(r.model)) else None for r in responses]
        self.reads = [0.0, *accumulate((p.read if p else 0.0) / 1e6 for p in self.prices)]

    def write(self, at: int) -> float:
        price = self.prices[at]
        return price.write_5m / 1e6 if price else 0.0

    def read(self, first: int, stop: int) -> float:
        return self.reads[stop] - self.reads[first] if stop > first else 0.0

    def whole(self, at: int, r: Response) -> float:
        p = self.prices[at]
        if p is None:
            return 0.0
        return (r.input * p.input + r.write_5m * p.write_5m + r.write_1h * p.write_1h + r.read * p.read
                + r.output * p.output) / 1e6  # fmt: skip


def member_cost(
    context: TeammateContext,
    count: Callable[[str], int],
    role: str | None = None,
    alternative: Alternative | None = None,
) -> MemberCost | None:
    """``context``'s spending (None where its follower kept none). ``count``: the session
    tokenizer's; ``alternative``: a delta's full-GC and whole-delta tokens, for its savings."""
    spending = context.spending
    if spending is None:
        return None
    responses = spending.responses
    n, rates = len(responses), _Rates(responses)
    by_kind: dict[str, Part] = {}
    deltas_saved, subs_saved = Part(), Part()
    at_response: dict[int, Part] = {}  # what blocks cost at each ACK turn, not counted twice
    acks = {j for j, r in enumerate(responses) if r.ack}
    for index, block in enumerate(context.received):
        kind = kind_of(block.text)
        if kind is None or block.turn < 0:
            continue
        start = block.turn
        stop = next((t for t, before in spending.compaction_turns if before > index), n)
        if start >= stop:
            continue  # compacted away (or not yet read) before any response wrote it
        tokens = count(block.text)
        per_token = Part(1 + (stop - start - 1), rates.write(start) + rates.read(start + 1, stop))
        cost = Part(tokens * per_token.tokens, tokens * per_token.usd)
        by_kind[kind] = by_kind.get(kind, Part()) + cost
        for j in acks:
            if start <= j < stop:
                share = rates.write(j) if j == start else rates.read(j, j + 1)
                at_response[j] = at_response.get(j, Part()) + Part(tokens, tokens * share)
        if alternative is not None and kind in ("delta", "bump", "full"):
            full, whole = alternative(block, kind)
            if kind == "full":
                if full is not None and full > tokens:
                    subs_saved += Part((full - tokens) * per_token.tokens, (full - tokens) * per_token.usd)
                continue
            whole = whole if whole is not None else tokens
            if full is not None and full > whole:
                deltas_saved += Part((full - whole) * per_token.tokens, (full - whole) * per_token.usd)
            if whole > tokens:
                subs_saved += Part((whole - tokens) * per_token.tokens, (whole - tokens) * per_token.usd)
    total = Part()
    for j, r in enumerate(responses):
        spent = Part(r.prompt + r.output, rates.whole(j, r))
        total += spent
        if j in acks:
            by_kind["ack"] = by_kind.get("ack", Part()) + (spent - at_response.get(j, Part()))
    unknown = {r.model or "(no model)" for r, p in zip(responses, rates.prices, strict=True) if p is None}
    unpriced = tuple(sorted(unknown))
    return MemberCost(context.member, role, n, total, by_kind, deltas_saved, subs_saved, unpriced)
