"""What the delta, plan and savings commands print: JSON-ready data and readable text."""

from __future__ import annotations

from typing import Any

from models.delta.decisions import Decision, UpdatePlan
from models.delta.items import Delta, DeltaItem
from models.delta.savings import ScenarioRow, TeamRow
from models.session.versions import label
from models.text.wording import counted


def item_data(item: DeltaItem) -> dict[str, Any]:
    return {
        "op": item.op,
        "ref": item.ref,
        "key": item.key,
        "old": item.old,
        "new": item.new,
        "content": item.content,
        "position": item.position,
    }


def delta_data(delta: Delta, exact: bool, message: str, tokens: dict[str, Any]) -> dict[str, Any]:
    return {
        "old_version": delta.old_version,
        "new_version": delta.new_version,
        "exact": exact,
        "items": [item_data(i) for i in delta.items],
        "impact": {"affected": list(delta.impact.affected), "actions": delta.impact.actions},
        "tokens": tokens,
        "message": message,
    }


def plan_data(plan: UpdatePlan) -> dict[str, Any]:
    return {
        "current_version": plan.current_version,
        "tokenizer": plan.tokenizer,
        "full_tokens": plan.full_tokens,
        "frozen": plan.frozen,
        "notes": plan.notes,
        "teammates": [
            {
                "role": d.role,
                "mode": d.mode,
                "base_version": d.base_version,
                "tokens": d.tokens,
                "conditions": [{"code": c.code, "reason": c.reason} for c in d.conditions],
                "items": len(d.delta.items) if d.delta else 0,
                "follows": list(d.scope.follows) if d.scope is not None else None,
                "not_sent": _not_sent(d),
                "bump": d.bump,
                "tokens_following_every_section": d.unscoped_tokens,
            }
            for d in plan.decisions
        ],
        "team": {
            "recipients": len(plan.recipients),
            "sent_tokens": plan.sent_tokens,
            "sent_tokens_without_subscriptions": plan.unscoped_tokens,
            "all_full_tokens": plan.all_full_tokens,
            "savings_percent": round(plan.savings_percent, 1),
        },
    }


def _not_sent(d: Decision) -> dict[str, Any] | None:
    """What a role following some sections is not sent: items by section, or whole sections."""
    if d.scope is None:
        return None
    return {"items": d.scope.items_left_out, "in": list(d.scope.left_out), "sections": list(d.scope.others)}


def plan_text(plan: UpdatePlan) -> str:
    out = [f"Update to {label(plan.current_version)}: full GC message {plan.full_tokens:,} tokens ({plan.tokenizer})"]
    if plan.frozen:
        out.append(f"FROZEN: {plan.frozen}; nothing is sent until the gate concludes")
    out += [f"Note: {n}" for n in plan.notes]
    width = max([len(d.role) for d in plan.decisions] + [8])
    for d in plan.decisions:
        what = {
            "delta": f"delta from {label(d.base_version)}, {counted(len(d.delta.items) if d.delta else 0, 'item')}",
            "full": "full GC",
            "frozen": "frozen",
            "current": "up to date",
            "inactive": "not a recipient",
        }[d.mode]
        if d.bump:
            what = f"version bump: nothing changed in its sections (delta from {label(d.base_version)})"
        elif d.scope is not None and d.mode == "full":
            what = "its sections of the GC, in full"
        out.append(f"  {d.role:<{width}}  {d.mode:<7} {d.tokens:>7,} tok  {what}")
        if d.scope is not None:
            unscoped = f" ({d.unscoped_tokens:,} tok following every section)" if d.unscoped_tokens is not None else ""
            out.append(f"  {'':<{width}}    It {d.scope.describe()}{unscoped}")
        out += [f"  {'':<{width}}    {c.code}: {c.reason}" for c in d.conditions]
    out.append(
        f"Team: {len(plan.recipients)} recipients, {plan.sent_tokens:,} tokens sent vs "
        f"{plan.all_full_tokens:,} for full GCs to all: {plan.savings_percent:.0f}% saved"
    )
    if plan.scoped:
        out.append(f"Without subscriptions: {plan.unscoped_tokens:,} tokens sent")
    return "\n".join(out)


def savings_data(rows: list[ScenarioRow], team: list[TeamRow], tokenizer: str) -> dict[str, Any]:
    return {
        "tokenizer": tokenizer,
        "per_update": [
            {
                "scenario": r.scenario,
                "items": r.items,
                "adr": {"full": r.adr_full, "delta": r.adr_delta, "savings_percent": r.adr_savings},
                "ours": {"full": r.full, "delta": r.delta, "savings_percent": round(r.savings, 1)},
                "note": r.note,
            }
            for r in rows
        ],
        "team_of_4": [
            {
                "metric": t.metric,
                "adr": {"full": t.adr_full, "delta": t.adr_delta, "savings_percent": t.adr_savings},
                "ours": {"full": t.full, "delta": t.delta, "savings_percent": round(t.savings, 1)},
                "note": t.note,
            }
            for t in team
        ],
    }


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *[line(r) for r in rows]]


def savings_text(rows: list[ScenarioRow], team: list[TeamRow], tokenizer: str) -> str:
    def na(v: int | None) -> str:
        return "N/A (full)" if v is None else f"{v:,}"

    per = _table(
        ["Scenario", "Items", "Full (ADR / ours)", "Delta (ADR / ours)", "Savings (ADR / ours)", "Note"],
        [
            [
                r.scenario,
                str(r.items),
                f"~{r.adr_full:,} / {r.full:,}",
                f"{na(r.adr_delta)} / {na(r.delta)}",
                f"{r.adr_savings}% / {r.savings:.0f}%",
                r.note,
            ]
            for r in rows
        ],
    )
    multi = _table(
        ["4 implementers", "Full (ADR / ours)", "Delta (ADR / ours)", "Savings (ADR / ours)", "Note"],
        [
            [
                t.metric,
                f"{t.adr_full:,} / {t.full:,}",
                f"{t.adr_delta:,} / {t.delta:,}",
                f"{t.adr_savings}% / {t.savings:.0f}%",
                t.note,
            ]
            for t in team
        ],
    )
    return "\n".join([f"Per update (tokens counted with {tokenizer}):", *per, "", *multi])
