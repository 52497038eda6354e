"""ADR-001 §5: who may write a TEAM-MEMORY section, by agent type."""

from __future__ import annotations

from models.session.roles import role_type

# ADR-001 §5: who may write a TEAM-MEMORY section, by agent type.
DIRECT = "direct Edit (own section)"
RELAY = "Lead relay"
LEAD = "Lead (full access)"
_ACCESS = {
    "implementer": DIRECT,
    "integrator": DIRECT,
    "architect": RELAY,
    "tester": RELAY,
    "researcher": RELAY,
    "devils-advocate": RELAY,  # no Edit tool: it sends findings, the Lead writes them
}


def access_of(role: str) -> str:
    """ADR-001 §5's access for a role id, by its type (``implementer-ws1`` → direct Edit);
    a role of no known type is relayed by the Lead."""
    if role.lower() in ("lead", "meta"):
        return LEAD
    kind = role_type(role)
    return _ACCESS.get(kind, RELAY) if kind is not None else RELAY
