"""subscriptions.yaml: the GC sections each role follows (its role view), kept by the Lead.

A [CONTEXT-UPDATE] to a role that follows some sections carries only the changes in them
(``models.delta.scope``). The file is small and written to be read and edited by hand::

    # The GC sections each role follows (Lead Console). ...
    implementer-1:
      - Architecture Decisions
      - Interface Contracts
    researcher-1: all

Each role's value is a list of top-level section titles (``§`` and quotes allowed), one
title, a comma-separated line, ``all``, or ``[]`` for none (it is sent version bumps only).
A role the file does not name follows every section. Read leniently, and failing safe: a
value that cannot be read (a number, a nested mapping) leaves its role following every
section, with a warning on its line, since a teammate sent too much loses tokens and one sent
too little loses facts. A file that is not
YAML at all is an error, and every role follows every section until it is mended.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import yaml

from models.text.problems import Problem
from models.text.yaml_load import safe_load

SUBSCRIPTIONS_FILE = "subscriptions.yaml"
EVERY = ("all", "*", "every section", "everything")
_WRAPPERS = ("subscriptions", "roles", "follows")
HEADER = (
    "# The GC sections each role follows (Lead Console). A [CONTEXT-UPDATE] to a role carries\n"
    "# the changes in its sections only; a role with nothing changed in them gets a version bump\n"
    "# to ACK. A role not named here, or given 'all', follows every section.\n"
)


@dataclass(frozen=True)
class Follows:
    """The sections one role follows, as the file names them, and the line that says so."""

    role: str
    sections: tuple[str, ...]
    line: int | None = None  # 1-based


@dataclass(frozen=True)
class Subscriptions:
    """subscriptions.yaml as read: the roles it limits, and what could not be read."""

    text: str
    roles: Mapping[str, Follows]
    problems: tuple[Problem, ...] = ()

    def follows(self, role: str) -> tuple[str, ...] | None:
        """The sections ``role`` follows; None when it follows every section."""
        found = self.roles.get(role)
        return None if found is None else found.sections


NO_SUBSCRIPTIONS = Subscriptions("", MappingProxyType({}))


def parse_subscriptions(text: str, source: str = SUBSCRIPTIONS_FILE) -> Subscriptions:
    """The roles and sections of ``text``; problems for what cannot be read (never raises)."""
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = Problem("error", source, f"is not YAML ({_first_line(exc)}); every role follows every section", line)
        return Subscriptions(text, MappingProxyType({}), (problem,))
    if isinstance(data, dict):
        wrapped = [k for k in data if isinstance(k, str) and k.strip().lower() in _WRAPPERS]
        if len(data) == 1 and wrapped and isinstance(data[wrapped[0]], dict):
            data = data[wrapped[0]]
    if data is None:
        return Subscriptions(text, MappingProxyType({}))
    if not isinstance(data, dict):
        problem = Problem("error", source, "is not a mapping of roles to sections; every role follows every section")
        return Subscriptions(text, MappingProxyType({}), (problem,))
    roles: dict[str, Follows] = {}
    problems: list[Problem] = []
    for key, value in data.items():
        role = str(key).strip()
        line = _line_of(text, role)
        sections = _sections(value)
        if sections is None:
            said = "names no sections (write [] for none)" if value is None else "is not a list of sections"
            problems.append(Problem("warning", source, f"{role} {said}; it follows every section", line))
            continue
        if sections == EVERY[:1]:
            continue  # follows every section: the same as not being named
        roles[role] = Follows(role, sections, line)
    return Subscriptions(text, MappingProxyType(roles), tuple(problems))


def _sections(value: Any) -> tuple[str, ...] | None:
    """The titles a role's value names; ``("all",)`` for every section; None if unreadable."""
    if isinstance(value, str):
        if value.strip().lower() in EVERY:
            return EVERY[:1]
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, list):
        return None
    titles: list[str] = []
    for entry in value:
        if not isinstance(entry, str | int | float) or isinstance(entry, bool):
            return None
        title = section_title(str(entry))
        if title.lower() in EVERY:
            return EVERY[:1]
        if title and title not in titles:
            titles.append(title)
    return tuple(titles)


def section_title(entry: str) -> str:
    """A section as the file names it, read as its title: ``§Risks``, ``"§Risks"``, `` Risks ``."""
    title = entry.strip().removeprefix("§").strip()
    if len(title) >= 2 and title[0] == title[-1] and title[0] in "\"'":
        title = title[1:-1].strip()
    return title


def _line_of(text: str, role: str) -> int | None:
    pattern = re.compile(rf"""^\s*["']?{re.escape(role)}["']?\s*:""")
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return number
    return None


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def render_subscriptions(follows: Mapping[str, tuple[str, ...] | None]) -> str:
    """The file's text for ``follows`` (role → titles; None: every section), roles in the given
    order, each title on a line of its own and quoted where YAML would read it otherwise."""
    lines = [HEADER.rstrip("\n")]
    for role, titles in follows.items():
        if titles is None:
            lines.append(f"{_scalar(role)}: all")
        elif not titles:
            lines.append(f"{_scalar(role)}: []")
        else:
            lines.append(f"{_scalar(role)}:")
            lines += [f"  - {_scalar(t)}" for t in titles]
    return "\n".join(lines) + "\n"


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as itself: plain where it can be."""
    dumped: str = yaml.safe_dump(text, default_flow_style=True, allow_unicode=True, width=10_000)
    dumped = dumped.removesuffix("\n...\n").rstrip("\n")
    return dumped
