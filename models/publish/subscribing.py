"""A proposal of what each role follows, read from the session, each choice with its reason.

The Lead decides; this only starts the matrix from what the session says. A role is proposed
a top-level section of the GC when the section

- names the role (``implementer-3`` in the Task Decomposition table, or ``Impl-3``);
- names a path the role owns: a path on a line of the GC that names the role and no other
  teammate (``ledger/`` on ``- implementer-1: ledger/ (schema, ...)`` of the File Ownership Map);
- is cited by the role's own messages (``§Interface Contracts.Posting API`` in an ACK's unclear
  items), read from the inbox;
- names no teammate at all: it is shared (Scope, Constraints), and every role follows it.

A section that names other teammates only (another implementer's tasks) is not proposed: of
the two mistakes a proposal can make, a teammate not sent what it needed is the worse one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from models.session.gc import GlobalContext, Section

_PATH = re.compile(
    r"(?<![\w/.@-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*|[A-Za-z0-9_-]+\.(?:py|sql|ya?ml|md|ts|tsx|js|go|rs|json|toml|sh|java|kt|rb|c|h|cpp))(?![\w/-])"
)
_CITE = re.compile(r'§(?:"[^"\n]+"|\[[^\]\n]+\]|[^\n,;|)\]]+)')


@dataclass(frozen=True)
class Choice:
    """One section proposed for one role, and why."""

    role: str
    section: str
    reason: str


_SHORT = {"implementer": ("implementer", "impl"), "architect": ("architect", "arch"), "researcher": ("researcher",)}


@lru_cache(maxsize=1024)
def _pattern(role: str) -> re.Pattern[str]:
    """``role`` as GCs write it: ``implementer-1``, ``Implementer 1``, ``Impl-1`` (cow's
    Task Decomposition), whatever the case."""
    typed = re.fullmatch(r"([a-z]+)[-_ ]?(\w+)", role.strip(), re.IGNORECASE)
    if typed is not None and typed.group(1).lower() in _SHORT:
        heads = "|".join(_SHORT[typed.group(1).lower()])
        spelled = rf"(?:{heads})[-_ ]?{re.escape(typed.group(2))}"
    else:
        spelled = re.escape(role.strip())
    return re.compile(rf"(?<![\w-]){spelled}(?![\w-])", re.IGNORECASE)


def names(text: str, role: str) -> bool:
    """Whether ``text`` names ``role``, as GCs and TEAM-MEMORY write it (``_pattern``)."""
    return _pattern(role).search(text) is not None


def _named(text: str, role: str) -> str | None:
    """How ``text`` first names ``role`` (None: it does not)."""
    found = _pattern(role).search(text)
    return found.group() if found else None


def owned_paths(gc: GlobalContext, role: str, roles: Sequence[str] = ()) -> tuple[str, ...]:
    """The paths on the GC's lines that name ``role`` and no other of ``roles`` (its file
    ownership: a line naming two teammates says nothing of who owns its paths), in order."""
    others = [r for r in roles if r != role]
    found: list[str] = []
    for line in gc.text.splitlines():
        if names(line, role) and not any(names(line, other) for other in others):
            for path in _PATH.findall(line.replace("`", " ")):
                if path not in found and len(path.strip("/.")) > 1:
                    found.append(path)
    return tuple(found)


def _top(section: Section) -> Section:
    while section.parent is not None:
        section = section.parent
    return section


def cited(gc: GlobalContext, text: str) -> list[str]:
    """The top-level sections ``text`` cites by § reference (a reference that runs on into
    prose is shortened a word at a time until it names a section)."""
    out: list[str] = []
    for match in _CITE.finditer(text):
        words = match.group().split(" ")
        while words:
            found = gc.resolve(" ".join(words))
            if found is not None:
                title = _top(found.section).title
                if title not in out:
                    out.append(title)
                break
            words.pop()
    return out


Said = tuple[str | None, str, str]  # a message: (its sender, its text, where it was read)


def propose(gc: GlobalContext, roles: Sequence[str], messages: Iterable[Said] = ()) -> dict[str, tuple[Choice, ...]]:
    """Per role, the sections proposed and why, in the GC's order."""
    sections = list(gc.sections)
    texts = {s.title: gc.text[s.start : s.end] for s in sections}
    owned = {role: owned_paths(gc, role, roles) for role in roles}
    shared = {title for title, text in texts.items() if not any(names(text, role) for role in roles)}
    citing: dict[str, dict[str, str]] = {role: {} for role in roles}
    for sender, text, source in messages:
        if sender is not None and sender in citing:
            for title in cited(gc, text):
                citing[sender].setdefault(title, source)
    out: dict[str, tuple[Choice, ...]] = {}
    for role in roles:
        choices: list[Choice] = []
        for title, text in texts.items():
            reason: str | None = None
            if named := _named(text, role):
                reason = f"names {named}"
            elif title in shared:
                reason = "names no teammate: shared by all"
            elif paths := [p for p in owned[role] if p in text]:
                reason = f"names {', '.join(paths[:3])}, which {role} owns"
            elif title in citing[role]:
                reason = f"cited in its message {citing[role][title]}"
            if reason is not None:
                choices.append(Choice(role, title, reason))
        out[role] = tuple(choices)
    return out
