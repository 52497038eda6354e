"""Entries an outside write took away from TEAM-MEMORY.md, found against the last snapshot,
and putting them back.

ADR-001 asks agents to Edit, never Write, TEAM-MEMORY; a whole-file Write from a stale
copy drops what others added meanwhile. The window compares each new version with the one it
saw before and offers to restore what vanished.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from models.memory.edits import EditResult, SectionEdit, append_entry, edit_memory
from models.session.team_memory import TeamMemory, parse_memory
from models.text.textfile import split_lines


@dataclass
class Loss:
    """What an outside write took away, for the warning and the one-click restore."""

    lost_entries: dict[str, list[str]] = field(default_factory=dict)  # header → entry lines
    removed_sections: dict[str, str] = field(default_factory=dict)  # header → whole text
    renamed: list[tuple[str, str]] = field(default_factory=list)
    cross_section: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.lost_entries or self.removed_sections or self.renamed or self.cross_section)

    def describe(self) -> list[str]:
        out = [f"## {h}: {len(v)} entries vanished" for h, v in self.lost_entries.items()]
        out += [f"## {h} was removed" for h in self.removed_sections]
        out += [f"## {a} was renamed to ## {b}" for a, b in self.renamed]
        out += self.cross_section
        return out


def _entry_lines(text: str, memory: TeamMemory) -> dict[str, list[str]]:
    lines = split_lines(text)
    return {s.header: ["".join(lines[e.line : e.end_line]) for e in s.entries] for s in memory.sections}


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
    old_entries, new_entries = _entry_lines(before, old), _entry_lines(after, new)
    loss = Loss()
    gone = expected_gone or set()
    everywhere: set[str] | None = None  # every entry now, unarchived: moved is not lost
    new_roles = {s.role: s.header for s in new.sections}
    for section in old.sections:
        if section.kind == "meta":
            continue  # key-value settings, updated in place by design (GC Version), not entries
        if section.header not in new_entries:
            renamed_to = new_roles.get(section.role)
            if renamed_to is not None:  # the role is still there under another header
                loss.renamed.append((section.header, renamed_to))
            else:
                lines = split_lines(before)
                loss.removed_sections[section.header] = "".join(lines[section.line : section.end_line])
            continue
        still = set(new_entries[section.header])
        candidates = [e for e in old_entries[section.header] if e not in still and e not in gone]
        if not candidates:
            continue  # the usual case: the section only grew, or did not change
        if everywhere is None:
            everywhere = {_strip_archived(e) for entries in new_entries.values() for e in entries}
        vanished = [e for e in candidates if _strip_archived(e) not in everywhere]
        if vanished:
            loss.lost_entries[section.header] = vanished
    grew = [h for h, entries in new_entries.items() if len(entries) > len(old_entries.get(h, []))]
    roles = {h for h in grew if h.split()[0].lower() not in ("lead", "meta")}
    if len(roles) > 1:
        loss.cross_section.append(f"one write added entries to {len(roles)} role sections: {', '.join(sorted(roles))}")
    return loss


_ARCHIVED_MARK = re.compile(r"\[ARCHIVED\]\s*", re.I)


def _strip_archived(entry: str) -> str:
    return _ARCHIVED_MARK.sub("", entry)


def restore(path: Path, loss: Loss) -> EditResult:
    """Put vanished entries back at the end of their sections and removed sections at the end."""
    edits: list[SectionEdit] = []
    for header, entries in loss.lost_entries.items():

        def add_back(current: str, entries: list[str] = entries) -> str:
            for entry in entries:
                current = append_entry(current, entry.rstrip("\r\n"))
            return current

        edits.append(SectionEdit(header, None, add_back))
    for header, text in loss.removed_sections.items():
        edits.append(SectionEdit(header, None, text if text.endswith("\n") else text + "\n"))
    return edit_memory(path, edits)
