"""Printing ``memory check`` for a person."""

from __future__ import annotations

from models.text.wording import counted


def memory_check_text(data: dict[str, object]) -> str:
    out = [f"TEAM-MEMORY: {data['lines']} / {data['limit']} lines"]
    for s in data["sections"]:  # type: ignore[attr-defined]
        tags = ", ".join(f"{k} {v}" for k, v in sorted(s["tags"].items()))
        mark = " [REPLACED]" if s["replaced"] and "[REPLACED]" not in s["header"] else ""
        entries = counted(s["entries"], "entry", "entries")
        out.append(f"  ## {s['header']}{mark}: {entries} ({s['archived']} archived), {s['access']}  {tags}")
    problems = data["problems"]
    out.append("Problems:" if problems else "No protocol problems found.")
    out += [f"  {p}" for p in problems]  # type: ignore[attr-defined]
    return "\n".join(out)
