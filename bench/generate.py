"""Generate a large, realistic session folder for the benchmark."""

from __future__ import annotations

import hashlib
from pathlib import Path

from models.session.ledger_records import HandledLine, ReceivedLine, SentLine
from models.session.memory_entries import TAGS


def big_gc(lines: int = 20_000, sections: int = 2_000, version: int = 40) -> str:
    """A GC of ``sections`` sections (a third nested) and about ``lines`` lines."""
    out = ["---", f"version: GC-v{version}", "feature: bench", "---", "", "# Global Context — Benchmark", ""]
    per = max(3, lines // sections - 2)
    for n in range(sections):
        level = "###" if n % 3 == 2 else "##"
        out.append(f"{level} Area {n}: subsystem {n % 97}")
        for k in range(per):
            out.append(f"- item-{n}-{k}: value {k} for area {n} — owner implementer-{n % 50 + 1}")
        out.append("")
    return "\n".join(out) + "\n"


def big_memory(lines: int = 20_000, sections: int = 40) -> str:
    out = ["# TEAM-MEMORY — bench", "", "## Meta", "- GC Version: GC-v40", "", "## Lead"]
    per = lines // sections - 2
    for s in range(sections - 1):
        out.append(f"## implementer-{s + 1}")
        for k in range(per):
            tag = TAGS[k % len(TAGS)]
            out.append(f"- [{tag}] entry {k} of implementer-{s + 1}: found something about module {k % 31}")
        out.append("")
    return "\n".join(out) + "\n"


def big_plan(teammates: int = 50, version: int = 40) -> str:
    roles = [f"implementer-{n + 1}" for n in range(teammates)]
    fm = ["---", f"gc_version: GC-v{version}", "teammate_gc_versions:"]
    fm += [f"  {r}: {version - n % 3}" for n, r in enumerate(roles)]
    fm += ["teammate_status:", f"  {roles[-1]}: CONTEXT_LOST", "---", "", "# Plan", ""]
    table = ["| Name | Role | Status |", "|---|---|---|"] + [f"| {r} | implementer | IN_PROGRESS |" for r in roles]
    return "\n".join(fm + table) + "\n"


def write_session(root: Path, teammates: int = 50, scale: int = 1) -> Path:
    """The benchmark's session; ``scale`` multiplies the GC's and TEAM-MEMORY's lines (and
    the GC's sections and memory's sections) for the ten-times rows."""
    folder = root / ".agent" / "teams" / "bench-session"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "global-context.md").write_text(big_gc(lines=20_000 * scale, sections=2_000 * scale), encoding="utf-8")
    (folder / "TEAM-MEMORY.md").write_text(big_memory(lines=20_000 * scale, sections=40 * scale), encoding="utf-8")
    (folder / "orchestration-plan.md").write_text(big_plan(teammates), encoding="utf-8")
    for n in range(teammates):
        (folder / "phase-6" / f"implementer-{n + 1}").mkdir(parents=True, exist_ok=True)
    for phase in range(1, 6):
        (folder / f"phase-{phase}").mkdir(exist_ok=True)
        (folder / f"phase-{phase}" / "gate-record.yaml").write_text(
            f"phase: {phase}\nresult: APPROVED\n", encoding="utf-8"
        )
    return folder


def write_field_session(root: Path) -> Path:
    """Ten times the largest real session files (issue 46): a 2,500-line GC, a 5,000-line
    TEAM-MEMORY, 50 teammates, a ledger of 100,000 lines and 10,000 inbox messages, every one
    of them already recorded in the ledger (as after the team has worked for weeks)."""
    folder = root / ".agent" / "teams" / "field-session"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "global-context.md").write_text(big_gc(lines=2_500, sections=250), encoding="utf-8")
    (folder / "TEAM-MEMORY.md").write_text(big_memory(lines=5_000, sections=50), encoding="utf-8")
    (folder / "orchestration-plan.md").write_text(big_plan(50), encoding="utf-8")
    for n in range(50):
        (folder / "phase-6" / f"implementer-{n + 1}").mkdir(parents=True, exist_ok=True)
    inbox = folder / "messages" / "inbox"
    inbox.mkdir(parents=True)
    ledger: list[str] = []
    for k in range(10_000):
        role = f"implementer-{k % 50 + 1}"
        version = 30 + k // 1_000
        text = f"[ACK-UPDATE] GC-v{version} received. Items: 3/3. Impact: none. Action: CONTINUE (note {k})\n"
        name = f"{role}-ack-{k:05d}.md"
        (inbox / name).write_text(text, encoding="utf-8")
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        stamp = f"2026-11-{1 + k // 400:02d}T{k % 24:02d}:00:00Z"
        ledger.append(ReceivedLine(stamp, role, f"inbox/{name}", "ack", None, sha).line())
        ledger.append(HandledLine(stamp, f"inbox/{name}", sha, role, "recorded").line())
    for k in range(80_000):
        role = f"implementer-{k % 50 + 1}"
        version = 1 + k // 2_000
        stamp = f"2026-10-{1 + k // 3_000:02d}T{k % 24:02d}:00:00Z"
        file = f"messages/outbox/GC-v{version}-{role}-delta.md"
        ledger.append(SentLine(stamp, role, version, "delta", file, "0" * 64, version - 1, 120).line())
    (folder / "messages" / "ledger.jsonl").write_text("".join(line + "\n" for line in ledger), encoding="utf-8")
    return folder
