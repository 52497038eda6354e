"""Problems found while reading a file, kept beside the parsed result instead of raised.

A session is read while agents are writing it, so a broken file is normal, not exceptional:
every parser returns what it could read plus a list of problems. An ``error`` means the
result should not replace an earlier good reading (the file is probably half-written);
a ``warning`` means the result is usable but something looked off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing a parser could not read, with where it was."""

    severity: Severity
    file: str
    message: str
    line: int | None = None  # 1-based, as editors show it

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


def has_errors(problems: list[Problem]) -> bool:
    """True when any problem is severe enough to distrust the whole reading."""
    return any(p.severity == "error" for p in problems)


def shown(value: object, limit: int = 80) -> str:
    """A value as a problem message quotes it: ``repr``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
