"""YAML front matter (``---`` ... ``---``) at the top of a Markdown file."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from models.text.problems import Problem
from models.text.yaml_load import safe_load

_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)


@dataclass
class FrontMatter:
    """Parsed front matter and where the Markdown body starts (a character offset)."""

    data: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0
    present: bool = False
    raw: str = ""  # the YAML text between the fences, for surgical edits later


def opens_front_matter(text: str) -> bool:
    """Whether ``text`` starts a front matter block (which may not close in it)."""
    return _OPEN.match(text) is not None


def split_front_matter(text: str, file: str) -> tuple[FrontMatter, list[Problem]]:
    """Split off and parse front matter; a broken block is reported, never guessed at."""
    problems: list[Problem] = []
    opening = _OPEN.match(text)
    if not opening:
        return FrontMatter(), problems
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        problems.append(Problem("error", file, "front matter starts with --- but never ends", 1))
        return FrontMatter(present=True, body_start=len(text)), problems
    raw = text[opening.end() : closing.start()]
    fm = FrontMatter(present=True, body_start=closing.end(), raw=raw)
    try:
        data = safe_load(raw) if raw.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the fence
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        problems.append(Problem("error", file, f"front matter is not valid YAML: {reason}", line))
        return fm, problems
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problems.append(Problem("error", file, "front matter is not a YAML mapping", 2))
        return fm, problems
    fm.data = {str(k): v for k, v in data.items()}
    return fm, problems


def parse_yaml_mapping(text: str, file: str) -> tuple[dict[str, Any], list[Problem]]:
    """Parse a whole file as one YAML mapping (gate records without front matter)."""
    try:
        data = safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = mark.line + 1 if mark is not None else None
        return {}, [Problem("error", file, f"not valid YAML: {reason}", line)]
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        return {}, [Problem("error", file, "not a YAML mapping")]
    return {str(k): v for k, v in data.items()}, []
