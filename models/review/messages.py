"""Teammates' protocol messages: [ACK-UPDATE], [STATUS] and DELTA reports (seed 004).

Language models write these with bold markers, ``->`` for arrows, bullets of any kind, extra
spaces and prose (in any language) around the fields. Every parser returns the fields it read
and a list of what it could not read; it never guesses a field: a missing field stays None.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml

from models.text.yaml_load import safe_load

Kind = Literal["ack", "status", "delta_report", "context_update", "protocol", "unknown"]
ACTIONS = ("CONTINUE", "PAUSE", "NEED_CLARIFICATION")
STATUSES = ("CONTEXT_RECEIVED", "CONTEXT_LOST", "CONTEXT_PRESSURE", "COMPLETE", "BLOCKED", "IN_PROGRESS")
RISK_LEVELS = ("critical", "high", "medium", "low")

_ACK = re.compile(r"\[ACK-UPDATE\]\**\s*(?:GC-v(?P<version>\d+))?", re.I)
_STATUS = re.compile(r"\[STATUS\]\**(?P<rest>[^\n]*)", re.I)
_UPDATE = re.compile(r"\[CONTEXT-UPDATE\]", re.I)
_FIELD = r"[-*+•]?\s*\**\s*{name}\s*\**\s*:\s*\**\s*(?P<value>[^\n]*?)\s*\**\s*(?:$|\n)"
# A § reference in prose: bracketed, or up to a comma, semicolon, "and" or the next one-line
# field (". Action:"), outside quoted segments.
_REF = re.compile(
    r'§\s*(\[[^\]]+\]|(?:"(?:[^"\\\n]|\\.)*"(?:#\d+)?|[^,;\n"])+?)'
    r"(?=\s*(?:,|;|$|\n|\s+and\s+|\.\s+\w[\w -]*:|\.\s*$))"
)


def _clean(text: str) -> str:
    return text.replace("**", "").replace("`", "").strip()


@dataclass
class Ack:
    """An [ACK-UPDATE]: which version, how many items applied, impact, action, unclear refs."""

    version: int | None = None
    applied: int | None = None
    total: int | None = None
    impact: str | None = None
    action: str | None = None
    unclear: list[str] | None = None  # [] when the teammate said "none"
    form: str = "multi-line"
    unreadable: list[str] = field(default_factory=list)


@dataclass
class Status:
    """A [STATUS] line: phase, status word, and the GC version for CONTEXT_RECEIVED."""

    phase: int | None = None
    status: str | None = None
    version: int | None = None
    unreadable: list[str] = field(default_factory=list)
    detail: str | None = None  # what follows the status word: ``BLOCKED | waiting on the bucket policy``


@dataclass(frozen=True)
class Risk:
    level: str | None
    desc: str


@dataclass
class DeltaReport:
    """Seed 004's DELTA block (changes, risks, alternatives, needs_consult), maybe after STATE."""

    changes: list[str] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    alternatives: list[str] = field(default_factory=list)
    needs_consult: bool | None = None
    state: dict[str, Any] | None = None
    unreadable: list[str] = field(default_factory=list)

    @property
    def attention(self) -> bool:
        """needs_consult: yes, or a critical or high risk: the Lead should look now."""
        return bool(self.needs_consult) or any(r.level in ("critical", "high") for r in self.risks)


def classify(text: str) -> Kind:
    """What kind of message ``text`` is; protocol JSON (idle notifications) is kept apart."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and "type" in data:
            return "protocol"
    if _ACK.search(text):
        return "ack"
    if _UPDATE.search(text):
        return "context_update"
    if re.search(r"^\s*\**DELTA\**\s*:", text, re.M):
        return "delta_report"
    if _STATUS.search(text):
        return "status"
    return "unknown"


def _field(text: str, *names: str) -> str | None:
    for name in names:
        m = re.search(_FIELD.format(name=name), text, re.I | re.M)
        if m:
            return _clean(m.group("value"))
    return None


def _refs(value: str) -> list[str]:
    found = [r.strip().strip("[]").strip() for r in _REF.findall(value)]
    return [r for r in found if r]


def parse_ack(text: str) -> Ack:
    """Read an [ACK-UPDATE] in the multi-line ADR form or the one-line ``Items: a/b`` form."""
    ack = Ack()
    head = _ACK.search(text)
    if head is None:
        ack.unreadable.append("no [ACK-UPDATE] tag")
        return ack
    if head.group("version"):
        ack.version = int(head.group("version"))
    else:
        ack.unreadable.append("no GC version after [ACK-UPDATE]")
    body = text[head.start() :]
    one_line = re.search(r"Items\s*:\s*\**\s*(\d+)\s*/\s*(\d+)", body, re.I)
    counted = re.search(r"(?:Delta\s+)?items\s+applied\s*\**\s*:\s*\**\s*(\d+)\s*/\s*(\d+)", body, re.I)
    if counted:
        ack.applied, ack.total = int(counted.group(1)), int(counted.group(2))
    elif one_line:
        ack.applied, ack.total = int(one_line.group(1)), int(one_line.group(2))
        ack.form = "one-line"
    else:
        ack.unreadable.append("no 'items applied: a/b'")
    if ack.applied is not None and ack.total is not None and ack.applied > ack.total:
        ack.unreadable.append(f"applied {ack.applied} is more than the total {ack.total}")
    inline = re.search(r"Impact\s*\**\s*:\s*\**\s*(.+?)\s*\.?\s*\**\s*Action\s*:", body, re.I | re.S)
    if ack.form == "one-line" and inline and "\n" not in inline.group(1):
        impact: str | None = _clean(inline.group(1))
    else:
        impact = _field(body, r"Impact\s+on\s+my\s+work", "Impact")
    ack.impact = impact.rstrip(".") if impact else None
    if ack.impact is None:
        ack.unreadable.append("no impact")
    action = re.search(r"Action(?:\s+taken)?\s*\**\s*:\s*\**\s*([A-Za-z_ ]+)", body, re.I)
    word = action.group(1).strip().upper().replace(" ", "_") if action else None
    if word and word.split("_")[0] in ("CONTINUE", "PAUSE") and word not in ACTIONS:
        word = word.split("_")[0]
    if word in ACTIONS:
        ack.action = word
    else:
        ack.unreadable.append(f"action {word!r} is not CONTINUE, PAUSE or NEED_CLARIFICATION" if word else "no action")
    unclear = _field(body, r"Unclear\s+items", "Unclear")
    if unclear is not None:
        ack.unclear = [] if unclear.lower().rstrip(".") in ("none", "-", "n/a", "없음") else _refs(unclear)
        if unclear and ack.unclear == [] and unclear.lower().rstrip(".") not in ("none", "-", "n/a", "없음"):
            ack.unreadable.append(f"unclear items {unclear!r} name no §reference")
    elif ack.form == "multi-line":
        ack.unreadable.append("no 'unclear items'")
    return ack


def parse_status(text: str) -> Status:
    """Read ``[STATUS] Phase 6 | CONTEXT_RECEIVED | GC-v5`` and its variations."""
    status = Status()
    m = _STATUS.search(text)
    if m is None:
        status.unreadable.append("no [STATUS] tag")
        return status
    parts = [_clean(p) for p in re.split(r"\s*[|·]\s*", m.group("rest")) if _clean(p)]
    for part in parts:
        phase = re.match(r"^phase\s*(\d+)", part, re.I)
        version = re.search(r"GC-v(\d+)", part, re.I)
        word = part.upper().replace(" ", "_").rstrip(".")
        if phase:
            status.phase = int(phase.group(1))
        elif version and not word.startswith("CONTEXT"):
            status.version = int(version.group(1))
        elif status.status is None and (word.split("_(")[0] in STATUSES or any(word.startswith(s) for s in STATUSES)):
            status.status = next(s for s in STATUSES if word.startswith(s))
            if version:
                status.version = int(version.group(1))
        elif status.status is not None:  # after the status word: its reason, in the teammate's words
            status.detail = part if status.detail is None else f"{status.detail} | {part}"
        else:
            status.unreadable.append(f"unknown status part {part!r}")
    if status.status is None:
        status.unreadable.append("no status word")
    if status.status == "CONTEXT_RECEIVED" and status.version is None:
        status.unreadable.append("CONTEXT_RECEIVED without a GC version")
    return status


def _block(text: str, name: str) -> str | None:
    """The indented block after ``NAME:`` (the name at the start of a line)."""
    m = re.search(rf"^[ \t]*\**{name}\**\s*:[ \t]*\n((?:[ \t]+[^\n]*\n?|[ \t]*\n)+)", text, re.M)
    return m.group(1) if m else None


def parse_delta_report(text: str) -> DeltaReport:
    """Read a DELTA block (seed 004), and a STATE block before it if there is one."""
    report = DeltaReport()
    body = _block(text, "DELTA")
    if body is None:
        report.unreadable.append("no DELTA: block")
        return report
    state = _block(text, "STATE")
    if state is not None:
        try:
            loaded = safe_load(state)
            report.state = loaded if isinstance(loaded, dict) else None
        except yaml.YAMLError:
            report.unreadable.append("STATE block is not readable YAML")
    try:
        data = safe_load(body)
    except yaml.YAMLError as exc:
        report.unreadable.append(f"DELTA block is not readable YAML: {getattr(exc, 'problem', exc)}")
        return report
    if not isinstance(data, dict):
        report.unreadable.append("DELTA block is not a mapping")
        return report
    for key in data:
        if str(key) not in ("changes", "risks", "alternatives", "needs_consult"):
            report.unreadable.append(f"unknown DELTA field {key!r}")
    report.changes = [str(c) for c in _as_list(data.get("changes"), "changes", report)]
    report.alternatives = [str(a) for a in _as_list(data.get("alternatives"), "alternatives", report)]
    for risk in _as_list(data.get("risks"), "risks", report):
        if isinstance(risk, dict):
            level = str(risk.get("level", "")).lower() or None
            if level not in RISK_LEVELS:
                report.unreadable.append(f"risk level {risk.get('level')!r} is not critical, high, medium or low")
                level = None
            report.risks.append(Risk(level, str(risk.get("desc", risk.get("description", "")))))
        else:
            report.unreadable.append(f"risk {risk!r} has no level")
            report.risks.append(Risk(None, str(risk)))
    consult = data.get("needs_consult")
    if isinstance(consult, bool):
        report.needs_consult = consult
    elif isinstance(consult, str) and consult.lower() in ("yes", "no"):
        report.needs_consult = consult.lower() == "yes"
    else:
        report.unreadable.append("needs_consult is not yes or no")
    return report


def _as_list(value: Any, name: str, report: DeltaReport) -> list[Any]:
    if value is None:
        report.unreadable.append(f"no {name}")
        return []
    if not isinstance(value, list):
        report.unreadable.append(f"{name} is not a list")
        return [value]
    return value
