"""Role ids as agents write them: ``implementer-ws1``, ``Devils-Advocate-1``, ``researcher-2``.

A role's type is the known agent type its id starts with (ADR-001 §5's table), whatever
follows it: ``implementer-infra`` is an implementer. Ids compare without case, so that
``Devils-Advocate-1`` in a table and ``devils-advocate-1`` in a folder name are one teammate.
"""

from __future__ import annotations

import re

AGENT_TYPES = ("devils-advocate", "implementer", "integrator", "architect", "researcher", "tester", "lead")
_FILE_NAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def names_a_file(role: str) -> bool:
    """Whether ``role`` can be part of a file name of ours (an outbox message, a pasted
    message): letters, digits, '.', '_' and '-', no '..'. Agents write role ids in ``From:``
    lines and plan keys; one with a path in it must never choose where a file goes."""
    return _FILE_NAME_ID.fullmatch(role) is not None and ".." not in role


NOT_A_FILE_NAME = "is no role id a file can be named by (letters, digits, '.', '_' and '-')"


def role_key(role: str) -> str:
    """What two spellings of one role id have in common."""
    return role.strip().lower()


_TYPED = re.compile(rf"({'|'.join(map(re.escape, AGENT_TYPES))})(?:[-_ ]|\d|$)")


def role_type(role: str) -> str | None:
    """The agent type of a role id, or None when it starts with no known type. (Asked for each
    of 500 teammates at each read of them: one compiled pattern, not seven built each time.)"""
    found = _TYPED.match(role_key(role))
    return found.group(1) if found else None
