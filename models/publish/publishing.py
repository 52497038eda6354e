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
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from models.delta.apply import set_version
from models.delta.decisions import HISTORY_DIR, UpdatePlan, decision_message, render_full, snapshot_path
from models.memory.curation import set_meta_gc_version, with_meta
from models.session.folder import GC_FILE, MEMORY_FILE, PLAN_FILE
from models.session.ledger_records import LEDGER, SentLine
from models.session.memory_parse import parse_memory
from models.session.roles import NOT_A_FILE_NAME, names_a_file
from models.text.atomic import MISSING, Missing, read_for_update
from models.text.surgical import EditError, set_front_entry, set_front_key
from models.text.textfile import BOM, Stamp, read_text, stamp_of
from models.text.transaction import FileWrite

OUTBOX = Path("messages") / "outbox"


@dataclass
class PublishPlan:
    """Everything publishing will do; ``blocked`` says why it cannot (nothing is written)."""

    version: int
    writes: list[FileWrite] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what publishing leaves out, and why
    sent: list[tuple[str, Path]] = field(default_factory=list)  # each recipient's outbox file


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
    gc_before: str | None = None,
    held: frozenset[str] = frozenset(),
) -> PublishPlan:
    """Plan the writes of publishing ``working_text`` as ``plan.current_version``.

    ``gc_expected`` is the stamp of the GC on disk that the working GC was taken from (an
    agent's later change must not be overwritten). The plan and TEAM-MEMORY are edited as read
    now, and expected to stay so until the writes happen. ``gc_before`` is that GC's text, for
    the review's diff.
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
        FileWrite(gc_path, "replace", f"the GC as GC-v{version}", _encode(text), gc_expected or MISSING, gc_before)
    )
    snap = snapshot_path(folder, version)
    existing = stamp_of(snap)
    if existing is None:
        out.writes.append(FileWrite(snap, "create", f"snapshot of GC-v{version}", _encode(text), MISSING))
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
    plan_before = None if isinstance(plan_expected, Missing) else plan_text
    ledger: list[str] = []
    for decision in plan.recipients:
        if not names_a_file(decision.role):
            out.blocked.append(f"{decision.role!r} {NOT_A_FILE_NAME}: its message would name no file of the outbox")
            continue
        message = decision_message(decision, text, version) or render_full(text, version)
        rel = OUTBOX / f"GC-v{version}-{decision.role}-{stamp}.md"
        data = _encode(message)
        out.writes.append(FileWrite(folder / rel, "create", f"{decision.mode} for {decision.role}", data, MISSING))
        out.sent.append((decision.role, folder / rel))
        try:
            plan_text = set_front_entry(
                plan_text,
                "teammate_gc_last_delta",
                decision.role,
                {"sent_version": version, "delta_size": decision.tokens, "timestamp": now},
            )
        except EditError as exc:
            out.blocked.append(f"{PLAN_FILE}: {exc}")
        sent = SentLine(
            now,
            decision.role,
            version,
            decision.mode,
            rel.as_posix(),
            hashlib.sha256(data).hexdigest(),
            base_version=decision.base_version if decision.mode == "delta" else None,
            tokens=decision.tokens,
            conditions=tuple(c.code for c in decision.conditions),
            forced_reason=(forced_reasons or {}).get(decision.role),
            held="compaction" if decision.role in held else None,
            follows=decision.scope.follows if decision.scope is not None else "all",
        )
        ledger.append(sent.line())
    try:
        plan_text = set_front_key(plan_text, "gc_version", f"GC-v{version}")
    except EditError as exc:
        out.blocked.append(f"{PLAN_FILE}: {exc}")
    recipients = ", ".join(d.role for d in plan.recipients) or "nobody"
    out.writes.append(
        FileWrite(
            plan_path,
            "create" if isinstance(plan_expected, Missing) else "replace",
            f"gc_version GC-v{version}; last sent for {recipients}",
            _encode(plan_text),
            plan_expected,
            plan_before,
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
                FileWrite(
                    memory_path,
                    "replace",
                    f"## Meta GC Version: GC-v{version}" + (" (## Meta added)" if no_meta else ""),
                    (BOM if memory_file.raw.startswith(BOM) else b"") + _encode(memory),
                    memory_file.stamp,
                    memory_file.text,
                )
            )
        except EditError as exc:
            out.blocked.append(f"{MEMORY_FILE}: {exc}")
    if ledger:
        data = _encode("".join(line + "\n" for line in ledger))
        out.writes.append(FileWrite(folder / LEDGER, "append", f"{len(ledger)} sent messages", data, None))
    return out
