"""Which agent home and workspace each teammate runs in, kept in the session (app-owned).

``context-links.yaml`` in the session folder maps a role id to ``{agent_home, workspace}``.
Teammates without an entry are listed as unlinked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from models.text.atomic import MISSING, Missing, atomic_write
from models.text.textfile import Stamp, read_utf8, stamp_of
from models.text.yaml_load import safe_load

LINKS_FILE = "context-links.yaml"


@dataclass(frozen=True)
class Link:
    agent_home: Path
    workspace: Path


def load_links(folder: Path) -> tuple[dict[str, Link], list[str]]:
    path = folder / LINKS_FILE
    if not path.exists():
        return {}, []
    try:
        data = safe_load(read_utf8(path)) or {}
    except (yaml.YAMLError, OSError, RecursionError) as exc:
        return {}, [
            f"{LINKS_FILE} is not readable: {getattr(exc, 'problem', None) or getattr(exc, 'strerror', None) or exc}"
        ]
    links: dict[str, Link] = {}
    problems: list[str] = []
    for role, value in data.items() if isinstance(data, dict) else []:
        if isinstance(value, dict) and isinstance(value.get("agent_home"), str):
            links[str(role)] = Link(Path(value["agent_home"]), Path(str(value.get("workspace") or value["agent_home"])))
        else:
            problems.append(f"{LINKS_FILE}: {role} needs agent_home (and workspace)")
    return links, problems


def save_link(folder: Path, role: str, link: Link | None) -> None:
    """Set (or with None remove) one teammate's link; refuses if the file changed meanwhile."""
    path = folder / LINKS_FILE
    expected: Stamp | Missing = stamp_of(path) or MISSING
    links, _ = load_links(folder)
    if link is None:
        links.pop(role, None)
    else:
        links[role] = link
    data = {r: {"agent_home": str(k.agent_home), "workspace": str(k.workspace)} for r, k in sorted(links.items())}
    atomic_write(path, yaml.safe_dump(data, sort_keys=True, allow_unicode=True).encode("utf-8"), expected)
