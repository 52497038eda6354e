"""The memory journal's records, each defined once: what the app writes into
``.lead-console/memory-journal.jsonl`` and takes in again (``MemoryJournal._take`` reads the same
JSON forms back, from this process and from any other that shares the journal)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeenRecord:
    """An entry first seen in the file, or written by the app."""

    id: str
    header: str
    entry: str
    by: str
    at: str
    after: str | None

    def data(self) -> dict[str, object]:
        return {"kind": "seen", "id": self.id, "header": self.header, "entry": self.entry, "by": self.by,
                "at": self.at, "after": self.after}  # fmt: skip


@dataclass(frozen=True, slots=True)
class LostRecord:
    """An entry reported to the Lead as vanished (once, across every app process)."""

    id: str
    at: str

    def data(self) -> dict[str, object]:
        return {"kind": "lost", "id": self.id, "at": self.at}


@dataclass(frozen=True, slots=True)
class RemovedRecord:
    """An entry the app removed on purpose (prune): its absence is no loss."""

    id: str
    at: str

    def data(self) -> dict[str, object]:
        return {"kind": "removed", "id": self.id, "at": self.at}


@dataclass(frozen=True, slots=True)
class SectionsRecord:
    """The file's section headers, as of a good read."""

    headers: tuple[str, ...]
    at: str

    def data(self) -> dict[str, object]:
        return {"kind": "sections", "headers": list(self.headers), "at": self.at}


Record = SeenRecord | LostRecord | RemovedRecord | SectionsRecord
