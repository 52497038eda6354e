"""A new TEAM-MEMORY.md for a session that has none, from ADR-001 §4's file structure.

Most real sessions have no TEAM-MEMORY.md. The first entry the Lead adds creates it: the title,
``## Meta`` (Created, Session, GC Version), ``## Lead``, and a section per teammate that is
still active, then the entry; previewed in the window, said by ``memory add``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from models.memory.edits import EditResult, MemoryEditError, SectionEdit, add_entry, apply_edits, edits_for_entry
from models.memory.journal import MemoryJournal
from models.session.folder import Session
from models.session.memory_parse import parse_memory
from models.session.versions import label
from models.text.atomic import MISSING, FileChangedError, atomic_write


def skeleton(session: Session, today: str | None = None) -> str:
    """ADR-001 §4's structure for this session, with no entries yet."""
    feature = session.plan.front.data.get("feature") if session.plan is not None else None
    title = str(feature) if isinstance(feature, str) and feature.strip() else session.id
    created = today or datetime.now(UTC).strftime("%Y-%m-%d")
    version = label(session.gc_version) if session.gc_version is not None else "none yet"
    parts = [
        f"# TEAM-MEMORY — {title}",
        "",
        "## Meta",
        f"- Created: {created}",
        f"- Session: {session.id}",
        f"- GC Version: {version}",
        "",
        "## Lead",
        "",
    ]
    for mate in session.teammates():
        if mate.receives:
            parts += [f"## {mate.role}", ""]
    return "\n".join(parts)


def create_with_entry(
    session: Session, role: str, tag: str | None, text: str, timestamp: str | None = None
) -> tuple[EditResult, bool]:
    """Add an entry, creating TEAM-MEMORY.md from the skeleton when the session has none;
    returns the result and whether the file was created."""
    path: Path = session.folder / "TEAM-MEMORY.md"
    if path.exists() or path.is_symlink():
        return add_entry(path, role, tag, text, timestamp), False
    new = preview_create(session, role, tag, text, timestamp)
    try:
        atomic_write(path, new.encode("utf-8"), MISSING)
    except FileChangedError:  # someone created it meanwhile: add to theirs
        return add_entry(path, role, tag, text, timestamp), False
    except OSError as exc:
        raise MemoryEditError(f"TEAM-MEMORY.md could not be created: {exc.strerror or exc}") from None
    MemoryJournal(session.folder).observe(parse_memory(new), report=False)
    return EditResult(new, [], 1, ""), True


def preview_create(session: Session, role: str, tag: str | None, text: str, timestamp: str | None = None) -> str:
    """The file that creating TEAM-MEMORY.md with this first entry would write."""
    base = skeleton(session)
    edits: list[SectionEdit] = edits_for_entry(role, tag, text, timestamp)(base)
    return apply_edits(base, edits, [])
