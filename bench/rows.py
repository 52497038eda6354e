"""The benchmark's table rows: a figure beside its floor, or against a stated limit."""

from __future__ import annotations

Row = tuple[str, str, str, str, str, str, str]  # measure, workload, result, floor, ratio, goal, met
HEADER = ("measure", "workload", "result", "floor", "ratio", "goal", "met")


def ratio_row(measure: str, workload: str, value: float, floor: float, goal: float) -> Row:
    """A time beside its floor measured in the same run: the ratio is what the goal bounds,
    since absolute times on these shared machines say little."""
    ratio = value / floor if floor > 0 else float("inf")
    met = "yes" if ratio <= goal else "no"
    return (measure, workload, ms(value), ms(floor), f"{ratio:.2f}", f"≤ {goal:g}", met)


def plain_ratio_row(measure: str, workload: str, value: float, floor: float) -> Row:
    """A time beside its floor with no goal: what a goal's row is read against."""
    return (*ratio_row(measure, workload, value, floor, 1)[:5], "—", "—")


def absolute_row(measure: str, workload: str, shown: str, ok: bool, goal: str) -> Row:
    return (measure, workload, shown, "—", "—", goal, "yes" if ok else "no")


def put_off_row(seconds: float) -> Row:
    """The work an open puts off until after its first paint, as it ran: under the open's row,
    with no floor or goal of its own."""
    workload = (
        "the rest of the preview, the tree's other top-level rows, all expanded, the other tags,"
        " the watch and its catch-up (as they ran)"
    )
    return ("  then, after its first paint", workload, ms(seconds), *("—",) * 4)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"
