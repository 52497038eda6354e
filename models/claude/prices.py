"""What a model's tokens cost, by cache tier: Claude Code 2.1.332's own price table.

Read from the client (its baked model catalog: ``pricing_tiers`` and each model's ``pricing``,
the figures its ``/cost`` uses), in US dollars per million tokens. A model id matches the
longest catalog id it starts with, as for windows (``models.claude.windows``); an id the table
does not know has no price, and its tokens are counted but not priced (never priced as another
model's). Haiku 5.5's dearer rate above 100,000 prompt tokens is kept, as the client applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.claude.protocol import READ_FROM


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens of each tier."""

    input: float
    output: float
    write_5m: float  # a cache write that lives five minutes (the client's default)
    write_1h: float
    read: float
    long_prompt: tuple[int, Prices] | None = None  # (prompt tokens above which, the rates there)

    def at(self, prompt_tokens: int) -> Prices:
        """The rates for a request of ``prompt_tokens`` (input + cache writes + cache reads)."""
        if self.long_prompt is not None and prompt_tokens > self.long_prompt[0]:
            return self.long_prompt[1]
        return self


def _tier(i: float, o: float, w5: float, w1: float, r: float) -> Prices:
    return Prices(i, o, w5, w1, r)


TIERS: dict[str, Prices] = {
    "tier_2_10": _tier(2, 10, 2.5, 4, 0.2),
    "tier_2_10_cache_read_0_10": _tier(2, 10, 2.5, 4, 0.1),
    "tier_3_15": _tier(3, 15, 3.75, 6, 0.3),
    "tier_5_25": _tier(5, 25, 6.25, 10, 0.5),
    "tier_15_75": _tier(15, 75, 18.75, 30, 1.5),
    "tier_10_50": _tier(10, 50, 12.5, 20, 1),
    "tier_10_50_cache_read_0_25": _tier(10, 50, 12.5, 20, 0.25),
    "tier_4_20_cache_read_0_20": _tier(4, 20, 5, 8, 0.2),
    "tier_8_40_cache_read_0_20": _tier(8, 40, 10, 16, 0.2),
    "haiku_35": _tier(0.8, 4, 1, 1.6, 0.08),
    "haiku_45": _tier(1, 5, 1.25, 2, 0.1),
    "haiku_55": Prices(0.1, 0.5, 0.125, 0.2, 0.01, (100_000, _tier(0.5, 2.5, 0.625, 1, 0.05))),
}
MODEL_TIERS: dict[str, str] = {
    "claude-3-5-haiku": "haiku_35",
    "claude-haiku-4-5": "haiku_45",
    "claude-haiku-5-5": "haiku_55",
    "claude-3-5-sonnet": "tier_3_15",
    "claude-3-7-sonnet": "tier_3_15",
    "claude-sonnet-4-0": "tier_3_15",
    "claude-sonnet-4-5": "tier_3_15",
    "claude-sonnet-4-6": "tier_3_15",
    "claude-sonnet-5": "tier_2_10",
    "claude-sonnet-5-5": "tier_2_10_cache_read_0_10",
    "claude-opus-4-0": "tier_15_75",
    "claude-opus-4-1": "tier_15_75",
    "claude-opus-4-5": "tier_5_25",
    "claude-opus-4-6": "tier_5_25",
    "claude-opus-4-7": "tier_5_25",
    "claude-opus-4-8": "tier_5_25",
    "claude-opus-5": "tier_5_25",
    "claude-opus-5-5": "tier_4_20_cache_read_0_20",
    "claude-fable-5": "tier_10_50",
    "claude-fable-5-1": "tier_10_50_cache_read_0_25",
    "claude-fable-5-2": "tier_8_40_cache_read_0_20",
    "claude-mythos-5": "tier_10_50",
    "claude-mythos-5-1": "tier_10_50_cache_read_0_25",
    "claude-mythos-5-2": "tier_8_40_cache_read_0_20",
}
SOURCE = f"Claude Code {READ_FROM}'s price table (US$ per million tokens)"


def prices_for(model: str) -> Prices | None:
    """The rates of ``model`` (the longest catalog id it starts with; a ``[1m]`` suffix is the
    same model), or None for an id the table does not know."""
    plain = model.strip().lower().removesuffix("[1m]")
    match = max((m for m in MODEL_TIERS if plain == m or plain.startswith(m + "-")), key=len, default=None)
    return None if match is None else TIERS[MODEL_TIERS[match]]
