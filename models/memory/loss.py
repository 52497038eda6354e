"""Entries an outside write took away from TEAM-MEMORY.md, found against the last snapshot,
and putting them back.

ADR-001 asks agents to Edit, never Write, TEAM-MEMORY; a whole-file Write from a stale
copy drops what others added meanwhile. Entries are found vanished by the app's journal
(``models.memory.journal``), which knows every entry the app wrote or saw, however fast the
writes came; sections removed or renamed are found by comparing with the version seen before.
Restoring puts each entry back after the entry it followed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from models.memory.edits import EditResult, SectionEdit, append_entry, edit_memory
from models.memory.journal import Vanished, identity
from models.session.memory_parse import parse_memory
from models.session.team_memory import MemorySection, TeamMemory
from models.text.textfile import newline_of, split_lines
from models.text.wording import counted


@dataclass
class Loss:
    """What an outside write took away, for the warning and the one-click restore."""

    lost_entries: dict[str, list[str]] = field(default_factory=dict)  # header → entry lines
    removed_sections: dict[str, str] = field(default_factory=dict)  # header → whole text
    renamed: list[tuple[str, str]] = field(default_factory=list)
    vanished: list[Vanished] = field(default_factory=list)  # from the journal: who wrote each, and where

    @property
    def any(self) -> bool:
        return bool(self.lost_entries or self.removed_sections or self.renamed)

    def describe(self) -> list[str]:
        out = [f"## {h}: {counted(len(v), 'entry', 'entries')} vanished" for h, v in self.lost_entries.items()]
        out += [f"## {h} was removed" for h in self.removed_sections]
        out += [f"## {a} was renamed to ## {b}" for a, b in self.renamed]
        return out


def journal_loss(vanished: list[Vanished], structural: Loss | None = None) -> Loss:
    """A ``Loss`` of the journal's vanished entries, with the sections ``structural`` found removed
    or renamed (an entry of a removed section comes back with its section)."""
    loss = Loss(
        vanished=[v for v in vanished if structural is None or v.seen.header not in structural.removed_sections]
    )
    if structural is not None:
        loss.removed_sections, loss.renamed = structural.removed_sections, structural.renamed
    for v in loss.vanished:
        loss.lost_entries.setdefault(v.seen.header, []).append(v.seen.entry + "\n")
    return loss


def _entry_lines(section: MemorySection) -> tuple[str, ...]:
    """The section's entries as the file holds them (their lines, line ends included)."""
    return _body_entry_lines(section.body, tuple((e.first - 1, e.stop - 1) for e in section.entries))


@functools.lru_cache(maxsize=1024)
def _body_entry_lines(body: str, spans: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    lines = split_lines(body)
    return tuple("".join(lines[first:stop]) for first, stop in spans)


def detect_loss(
    before: str,
    after: str,
    expected_gone: set[str] | None = None,
    *,
    old: TeamMemory | None = None,
    new: TeamMemory | None = None,
) -> Loss:
    """Compare the app's last snapshot with the file now (ADR-001 §5 violations).

    ``expected_gone`` holds entry lines the app itself removed (pruning), which are no loss.
    ``old`` and ``new`` are the two texts already parsed, when the caller has them: a
    20,000-line TEAM-MEMORY takes a tenth of a second to parse, on every outside write.
    """
    old = old if old is not None else parse_memory(before)
    new = new if new is not None else parse_memory(after)
    return loss_between(old, new, expected_gone)


def loss_between(old: TeamMemory, new: TeamMemory, expected_gone: set[str] | None = None) -> Loss:
    """``detect_loss`` of two parsed versions: their texts are read only for a section removed
    (a version followed from its bytes is not decoded whole for the check)."""
    new_sections = {s.header: s for s in new.sections}
    loss = Loss()
    gone = expected_gone or set()
    everywhere: set[str] | None = None  # every entry now, unarchived: moved is not lost
    new_roles = {s.role: s.header for s in new.sections}
    for k, section in enumerate(old.sections):
        if section.kind == "meta":
            continue  # key-value settings, updated in place by design (GC Version), not entries
        now = new_sections.get(section.header)
        if now is None:
            renamed_to = new_roles.get(section.role)
            if renamed_to is not None:  # the role is still there under another header
                loss.renamed.append((section.header, renamed_to))
            else:
                loss.removed_sections[section.header] = old.section_text(k)
            continue
        if now.body == section.body:
            continue  # the usual case: an agent's write changed another section (one string compare)
        still = set(_entry_lines(now))
        candidates = [e for e in _entry_lines(section) if e not in still and e not in gone]
        if not candidates:
            continue  # the section only grew
        if everywhere is None:
            everywhere = {_strip_archived(e) for s in new.sections for e in _entry_lines(s)}
        vanished = [e for e in candidates if _strip_archived(e) not in everywhere]
        if vanished:
            loss.lost_entries[section.header] = vanished
    return loss


_ARCHIVED_MARK = re.compile(r"\[ARCHIVED\]\s*", re.I)


def _strip_archived(entry: str) -> str:
    return _ARCHIVED_MARK.sub("", entry)


def restore_edits(loss: Loss) -> list[SectionEdit]:
    """Edits that put vanished entries back where they stood (after the entry they followed,
    else at the end of their section) and removed sections back at the end of the file."""
    edits: list[SectionEdit] = []
    after = {v.seen.entry: v.seen.after for v in loss.vanished}
    for header, entries in loss.lost_entries.items():

        def add_back(current: str, header: str = header, entries: list[str] = entries) -> str:
            if not current:
                current = f"## {header}\n"
            for entry in entries:
                if identity(entry) in _standing(current):
                    continue  # back already (its writer put it back, or the loss was seen twice)
                current = put_back(current, entry.rstrip("\r\n"), after.get(entry.rstrip("\r\n")))
            return current

        edits.append(SectionEdit(header, None, add_back))
    for header, text in loss.removed_sections.items():
        edits.append(SectionEdit(header, None, text if text.endswith("\n") else text + "\n"))
    return edits


def _standing(section: str) -> set[str]:
    """The identities of the entries ``section`` (its heading and body) holds."""
    lines = split_lines(section)
    memory = parse_memory(section)
    return {
        identity("".join(lines[first:stop]))
        for s in memory.sections[:1]
        for first, stop in (s.span_of(e) for e in s.entries)
    }


def put_back(section: str, entry: str, after: str | None) -> str:
    """``section`` with ``entry`` after the entry ``after`` (its first line when that is there),
    else appended."""
    nl = newline_of(section)
    lines = split_lines(section)
    memory = parse_memory(section)
    spans = [s.span_of(e) for s in memory.sections[:1] for e in s.entries]
    if after is None and spans:
        at = spans[0][0]
        return "".join(lines[:at]) + entry.replace("\n", nl) + nl + "".join(lines[at:])
    for first, stop in spans:
        text = "".join(lines[first:stop]).replace("\r\n", "\n").rstrip("\n")
        if after is not None and identity(text) == identity(after):
            return "".join(lines[:stop]) + entry.replace("\n", nl) + nl + "".join(lines[stop:])
    return append_entry(section, entry.replace("\n", nl))


def restore(path: Path, loss: Loss) -> EditResult:
    """Put back what ``loss`` names (``restore_edits``), through the safe edit path."""
    return edit_memory(path, restore_edits(loss))
