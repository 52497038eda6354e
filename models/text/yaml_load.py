"""Loading YAML written by agents, bounded before anything walks or prints the value.

PyYAML builds an alias bomb (``a: &a [x, x, ...]``, ``b: &b [*a, *a, ...]``, ...) cheaply, as
shared lists; it is a later ``repr`` or walk that expands 9⁹ values and takes gigabytes. Deep
nesting raises RecursionError in the same places. So every load here counts what the value
expands to, shared parts counted each time they appear (as a printer would), and refuses past
a limit with a ``yaml.YAMLError`` that the callers already report as a one-line problem.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import yaml

MAX_VALUES = 100_000  # values a document may expand to (front matter holds a few dozen)
MAX_DEPTH = 64


# libyaml's parser with PyYAML's safe constructor: the same values, a tenth of the time (a
# session's front matter and gate records took 30 ms of opening it). PyYAML's wheels ship it;
# a build without it falls back to the pure-Python loader.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # not a SafeLoader subclass: its own parser


class YamlTooLarge(yaml.YAMLError):
    """The document expands past the limits (aliases or nesting); nothing of it is used."""


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` with the expansion and depth bounded."""
    _check_flow_depth(text)
    try:
        data = yaml.load(text, Loader=_LOADER)
    except RecursionError:
        raise YamlTooLarge(f"YAML nested deeper than Python can read (limit {MAX_DEPTH})") from None
    _check(data)
    return data


def _check_flow_depth(text: str) -> None:
    """Refuse flow nesting (``[[[[...``) past the limit before PyYAML parses it: its parser
    slows down with each open level, so 5,000 brackets took over a second per load."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth, quote = 0, ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlTooLarge(f"YAML nested more than {MAX_DEPTH} levels deep")
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "\n" and depth == 0:
            quote = ""


def _check(data: Any) -> None:
    """Count expanded values with one memo per distinct container, so the count is exact and
    the cost stays linear in the document's own size."""
    sizes: dict[int, int] = {}
    depth_of: dict[int, int] = {}
    # Iterative post-order: (value, depth, children already pushed)
    stack: list[tuple[Any, int, bool]] = [(data, 0, False)]
    while stack:
        value, depth, expanded = stack.pop()
        if not isinstance(value, (list, dict)):
            continue
        key = id(value)
        if depth > MAX_DEPTH:
            raise YamlTooLarge(f"YAML nested more than {MAX_DEPTH} levels deep")
        children = list(value.values()) + list(value.keys()) if isinstance(value, dict) else value
        if not expanded:
            if key in sizes and depth_of.get(key, 0) >= depth:
                continue
            depth_of[key] = depth
            stack.append((value, depth, True))
            stack.extend((child, depth + 1, False) for child in children if isinstance(child, (list, dict)))
            continue
        total = 1 + sum(sizes.get(id(c), 1) if isinstance(c, (list, dict)) else 1 for c in children)
        sizes[key] = total
        if total > MAX_VALUES:
            raise YamlTooLarge(f"YAML expands to more than {MAX_VALUES:,} values (aliases repeated)")


def scalar_text(value: object) -> str:
    """A YAML scalar as text in the form it was most likely written: PyYAML reads
    ``2026-11-21T14:02:11Z`` as a datetime, whose ``str`` is ``2026-11-21 14:02:11+00:00``,
    and a reminder quoting it should say what the plan says."""
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text
    return str(value)
