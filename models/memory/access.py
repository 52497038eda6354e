"""ADR-001 §5: who may write a TEAM-MEMORY section, by agent type."""

from __future__ import annotations

import re

# ADR-001 §5: who may write a TEAM-MEMORY section, by agent type.
DIRECT = "direct Edit (own section)"
RELAY = "Lead relay"
READ_ONLY = "read-only"
LEAD = "Lead (full access)"
_ACCESS = {
    "implementer": DIRECT,
    "integrator": DIRECT,
    "architect": RELAY,
    "tester": RELAY,
    "researcher": RELAY,
    "devils-advocate": READ_ONLY,
}


def access_of(role: str) -> str:
    """ADR-001 §5's access for a role id (``researcher-1`` → Lead relay)."""
    if role.lower() == "lead":
        return LEAD
    if role.lower() == "meta":
        return LEAD
    return _ACCESS.get(re.sub(r"-\d+$", "", role), RELAY)
