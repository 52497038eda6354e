"""Role ids as agents write them: ``implementer-ws1``, ``Devils-Advocate-1``, ``researcher-2``.

A role's type is the known agent type its id starts with (ADR-001 §5's table), whatever
follows it: ``implementer-infra`` is an implementer. Ids compare without case, so that
``Devils-Advocate-1`` in a table and ``devils-advocate-1`` in a folder name are one teammate.
"""

from __future__ import annotations

import re

AGENT_TYPES = ("devils-advocate", "implementer", "integrator", "architect", "researcher", "tester", "lead")


def role_key(role: str) -> str:
    """What two spellings of one role id have in common."""
    return role.strip().lower()


def role_type(role: str) -> str | None:
    """The agent type of a role id, or None when it starts with no known type."""
    key = role_key(role)
    for kind in AGENT_TYPES:
        if key == kind or re.match(rf"^{re.escape(kind)}(?:[-_ ]|\d|$)", key):
            return kind
    return None
