"""Print the README's GSD savings table for a project: per agent type, the tokens each loads
for every phase of the roadmap (delta context on) against the same files whole.

Run: .venv/bin/python scripts/gsd_savings.py ../shared/gsd-projects/001TMF+HYDRA
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.context.gsd import AGENT_TYPES, phase_plans, roadmap_phases, selective_context  # noqa: E402
from models.text.tokens import get_tokenizer  # noqa: E402


def main() -> int:
    project = Path(sys.argv[1])
    planning = project / ".planning"
    tokenizer = get_tokenizer("o200k_base")
    phases = roadmap_phases(planning)
    print(f"| Agent type ({len(phases)} phases, first plan of each) | Whole files | Given | Saved | Fallbacks |")
    print("|---|---:|---:|---:|---:|")
    for agent in AGENT_TYPES:
        full = given = fallbacks = 0
        for phase in phases:
            plans = phase_plans(planning, phase)
            result = selective_context(planning, agent, phase, tokenizer, plans[0] if plans else None, delta=True)
            full += result.full_tokens
            given += result.tokens
            fallbacks += sum(p.status == "fallback" for p in result.parts)
        share = 100 * (full - given) / full if full else 0.0
        print(f"| {agent} | {full:,} | {given:,} | {share:.0f}% | {fallbacks} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
