"""Publishing a GC update: every file it writes, checked against the files as they were read.

Publishing is the one moment the app writes to a session on the Lead's behalf, so it is
prepared as a list of planned writes (shown as a dry run), each carrying the stamp of the file
as the preview read it. Before anything is written every stamp is checked again; if any file
changed, nothing is written and the caller is told which. Writes then go one by one through
the atomic helper, messages and the snapshot first and the ledger last, so that a failure
half-way leaves the session consistent: the GC is never newer than its snapshot and outbox.
Confirmed versions are not touched: they change when ACKs arrive, never on send.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from models.delta.apply import set_version
from models.delta.decisions import HISTORY_DIR, UpdatePlan, render_full, snapshot_path
from models.delta.message import render_message
from models.memory.curation import set_meta_gc_version, with_meta
from models.session.folder import GC_FILE, MEMORY_FILE, PLAN_FILE
from models.session.memory_parse import parse_memory
from models.text.atomic import MISSING, FileChangedError, Missing, atomic_write, read_for_update
from models.text.surgical import EditError, set_front_entry, set_front_key
from models.text.textfile import BOM, Stamp, read_bounded, read_text, stamp_of

WriteKind = Literal["create", "replace", "append"]
OUTBOX = Path("messages") / "outbox"
LEDGER = Path("messages") / "ledger.jsonl"


@dataclass(frozen=True)
class PlannedWrite:
    """One file publishing will write, and what it expects to find there first."""

    path: Path
    kind: WriteKind
    summary: str
    data: bytes
    expected: Stamp | Missing | None  # None: appended to (the ledger), not replaced


@dataclass
class PublishPlan:
    """Everything publishing will do; ``blocked`` says why it cannot (nothing is written)."""

    version: int
    writes: list[PlannedWrite] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what publishing leaves out, and why

    def dry_run(self, folder: Path) -> str:
        lines = [f"Publishing GC-v{self.version} writes {len(self.writes)} files:"]
        for w in self.writes:
            lines.append(f"  {w.kind:<7} {w.path.relative_to(folder)}  — {w.summary}")
        lines += [f"  skipped: {s}" for s in self.skipped]
        lines += [f"  blocked: {b}" for b in self.blocked]
        return "\n".join(lines)


NO_META = " (ADR-001 §4; publish with 'Add ## Meta', or the CLI's --add-meta, to add one)"


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _encode(text: str) -> bytes:
    return text.encode("utf-8")


def prepare_publish(
    folder: Path,
    working_text: str,
    plan: UpdatePlan,
    gc_expected: Stamp | None,
    forced_reasons: dict[str, str] | None = None,
    now: str | None = None,
    add_meta: bool = False,
) -> PublishPlan:
    """Plan the writes of publishing ``working_text`` as ``plan.current_version``.

    ``gc_expected`` is the stamp of the GC on disk that the working GC was taken from (an
    agent's later change must not be overwritten). The plan and TEAM-MEMORY are edited as read
    now, and expected to stay so until the writes happen.
    """
    version = plan.current_version
    if version is None:
        return PublishPlan(0, blocked=["the GC has no version; give it 'version: GC-vN' first"])
    now = now or utc_now()
    out = PublishPlan(version)
    if plan.frozen:
        out.blocked.append(f"{plan.frozen}: publishing is frozen until the gate concludes")
    text = set_version(working_text, version)
    gc_path = folder / GC_FILE
    out.writes.append(
        PlannedWrite(gc_path, "replace", f"the GC as GC-v{version}", _encode(text), gc_expected or MISSING)
    )
    snap = snapshot_path(folder, version)
    existing = stamp_of(snap)
    if existing is None:
        out.writes.append(PlannedWrite(snap, "create", f"snapshot of GC-v{version}", _encode(text), MISSING))
    elif not existing.same_content(Stamp.of_bytes(_encode(text))):
        out.blocked.append(f"{HISTORY_DIR}/GC-v{version}.md already exists with other content")
    stamp = now.replace("-", "").replace(":", "")
    plan_path = folder / PLAN_FILE
    plan_text: str
    plan_expected: Stamp | Missing
    try:
        plan_text, plan_expected = read_for_update(plan_path)
    except OSError as exc:  # a folder, a FIFO, a link to nowhere: where would "sent" be recorded?
        out.blocked.append(f"{PLAN_FILE} cannot be read ({exc.strerror or exc}); it records what is sent")
        plan_text, plan_expected = "", MISSING
    ledger: list[str] = []
    for decision in plan.recipients:
        if decision.mode == "delta" and decision.delta is not None:
            message = render_message(decision.delta)
        else:
            message = render_full(text, version)
        rel = OUTBOX / f"GC-v{version}-{decision.role}-{stamp}.md"
        data = _encode(message)
        out.writes.append(PlannedWrite(folder / rel, "create", f"{decision.mode} for {decision.role}", data, MISSING))
        try:
            plan_text = set_front_entry(
                plan_text,
                "teammate_gc_last_delta",
                decision.role,
                {"sent_version": version, "delta_size": decision.tokens, "timestamp": now},
            )
        except EditError as exc:
            out.blocked.append(f"{PLAN_FILE}: {exc}")
        entry = {
            "ts": now,
            "direction": "sent",
            "to": decision.role,
            "kind": "CONTEXT-UPDATE",
            "gc_version": version,
            "base_version": decision.base_version if decision.mode == "delta" else None,
            "mode": decision.mode,
            "tokens": decision.tokens,
            "conditions": [c.code for c in decision.conditions],
            "forced_reason": (forced_reasons or {}).get(decision.role),
            "file": rel.as_posix(),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        ledger.append(json.dumps(entry, ensure_ascii=False))
    try:
        plan_text = set_front_key(plan_text, "gc_version", f"GC-v{version}")
    except EditError as exc:
        out.blocked.append(f"{PLAN_FILE}: {exc}")
    recipients = ", ".join(d.role for d in plan.recipients) or "nobody"
    out.writes.append(
        PlannedWrite(
            plan_path,
            "create" if isinstance(plan_expected, Missing) else "replace",
            f"gc_version GC-v{version}; last sent for {recipients}",
            _encode(plan_text),
            plan_expected,
        )
    )
    memory_path = folder / MEMORY_FILE
    memory_file = read_text(memory_path) if memory_path.is_file() else None
    no_meta = memory_file is not None and not any(s.kind == "meta" for s in parse_memory(memory_file.text).sections)
    if no_meta and not add_meta:
        out.skipped.append(f"{MEMORY_FILE} has no ## Meta section, so its GC Version line is not written{NO_META}")
    elif memory_file is not None:
        try:
            base = memory_file.text
            if no_meta:
                base = with_meta(base, folder.name, version, (now or utc_now())[:10])
            memory = set_meta_gc_version(base, version)
            out.writes.append(
                PlannedWrite(
                    memory_path,
                    "replace",
                    f"## Meta GC Version: GC-v{version}" + (" (## Meta added)" if no_meta else ""),
                    (BOM if memory_file.raw.startswith(BOM) else b"") + _encode(memory),
                    memory_file.stamp,
                )
            )
        except EditError as exc:
            out.blocked.append(f"{MEMORY_FILE}: {exc}")
    if ledger:
        data = _encode("".join(line + "\n" for line in ledger))
        out.writes.append(PlannedWrite(folder / LEDGER, "append", f"{len(ledger)} sent messages", data, None))
    return out


def changed_since_preview(plan: PublishPlan) -> list[str]:
    """Files that are no longer what the preview read (empty: safe to publish)."""
    changed = []
    for w in plan.writes:
        if w.expected is None:
            continue
        try:
            now = stamp_of(w.path)
        except OSError as exc:  # turned into a folder, a FIFO, a link to nowhere since
            changed.append(f"{w.path.name} cannot be read ({exc.strerror or exc})")
            continue
        if isinstance(w.expected, Missing):
            if now is not None:
                changed.append(f"{w.path.name} was created meanwhile")
        elif not w.expected.same_content(now):
            changed.append(f"{w.path.name} {'was deleted' if now is None else 'changed on disk'} since the preview")
    return changed


class PublishRefused(Exception):
    """Publishing did not start; ``reasons`` lists why. Nothing was written."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("; ".join(reasons))


def execute_publish(plan: PublishPlan) -> list[Path]:
    """Write every planned file, or nothing: refused when anything changed since the preview,
    and rolled back when a write fails half-way (a full disk, a permission, a file an agent
    changed between two of our writes), so the Lead sees the session as before or as after."""
    reasons = plan.blocked + changed_since_preview(plan)
    if reasons:
        raise PublishRefused(reasons)
    written: list[Path] = []
    undo: list[tuple[PlannedWrite, bytes | None, int]] = []  # what each write replaced
    order = {"create": 0, "replace": 1, "append": 2}
    for w in sorted(plan.writes, key=lambda w: (order[w.kind], w.path.name == GC_FILE)):
        try:
            w.path.parent.mkdir(parents=True, exist_ok=True)
            before = read_bounded(w.path)[0] if w.kind == "replace" and w.path.is_file() else None
            size = w.path.stat().st_size if w.kind == "append" and w.path.is_file() else 0
            if w.kind == "append":
                _append(w.path, w.data)
            else:
                atomic_write(w.path, w.data, w.expected)
            undo.append((w, before, size))
        except (FileChangedError, OSError) as exc:
            undone = _roll_back(undo)
            why = str(exc) if isinstance(exc, FileChangedError) else f"{w.path.name}: {exc.strerror or exc}"
            raise PublishRefused([f"{why}; nothing was published ({undone})"]) from exc
        written.append(w.path)
    return written


def _roll_back(undo: list[tuple[PlannedWrite, bytes | None, int]]) -> str:
    """Undo the writes done so far, newest first; says what was undone and what could not be."""
    failed: list[str] = []
    for w, before, size in reversed(undo):
        try:
            if w.kind == "create":
                w.path.unlink(missing_ok=True)
            elif w.kind == "append":
                with open(w.path, "r+b") as fh:
                    fh.truncate(size)
            elif before is not None:
                if read_bounded(w.path)[0] != w.data:
                    failed.append(f"{w.path.name} (changed by someone else since; kept)")
                    continue
                atomic_write(w.path, before, None)
        except OSError as exc:
            failed.append(f"{w.path.name} ({exc.strerror or exc})")
    if failed:
        return f"{len(undo) - len(failed)} of {len(undo)} writes undone; left as written: {', '.join(failed)}"
    return f"{len(undo)} writes undone" if undo else "nothing had been written"


def _append(path: Path, data: bytes) -> None:
    """Append to the app-owned ledger in one write with O_APPEND, then fsync."""
    import os

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
