"""Running a context.yaml's generators safely: what they are given, and what trusting them covers.

A generator is an argv list, run without a shell, so a placeholder substituted into a plain
argument cannot change the command. An argument that is code (the script after ``sh -c``,
``python -c``, ``node -e``) is different: ``${CWD}`` pasted into it as text let a workspace
named ``ws;touch INJECTED;#`` run a command. There, shells get the path shell-quoted; other
interpreters get it only when it holds nothing but ordinary path characters (else the source
is refused, and the script can read ``$DELTA_CWD`` instead).

A code flag may come in a cluster (``sh -ec``, ``bash -lc``, ``python -Bc``, ``perl -ne``): any
short-option cluster holding ``c`` or ``e`` is taken for one (for a program that reads it
otherwise, only a placeholder that is not a plain path is refused).

Trust is given to a tuple: context.yaml's bytes, the workspace it runs in, and the bytes of
every file the commands name there (scripts, the program itself), and of every file those
scripts ``source`` (or ``.``) by a fixed name, followed in turn. A script that sources a name
it works out when it runs (``$VAR``, a command substitution) cannot be covered: ``coverage``
says so, and the Lead is told before trusting. Any covered file changing asks the Lead again.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from pathlib import Path

from models.text.textfile import read_bounded

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"})
CODE_FLAGS = frozenset({"-c", "-e", "--command", "--eval", "-Command", "-E"})
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_./+@%=:,~-]*$")
_CLUSTER = re.compile(r"^-[A-Za-z]*[ce][A-Za-z]*$")  # -ec, -lc, -Bc, -ne: a code flag among others
_SOURCES = re.compile(r"^\s*(?:source|\.)\s+(\S+)", re.MULTILINE)  # a shell script's `source x` / `. x`
_DEPTH = 8  # sourced files followed this deep (a file sourcing itself is seen once)
PLACEHOLDERS = ("${AGENT_HOME}", "${CWD}")


class UnsafeCommand(ValueError):
    """A placeholder cannot be put into a code argument without changing the code."""


def expand_command(command: list[str], agent_home: Path, cwd: Path) -> list[str]:
    """The argv to run, with ``${AGENT_HOME}`` and ``${CWD}`` put in where they can do no harm."""
    values = {"${AGENT_HOME}": str(agent_home), "${CWD}": str(cwd)}
    program = Path(command[0]).name if command else ""
    out: list[str] = []
    for n, arg in enumerate(command):
        is_code = n > 0 and is_code_flag(command[n - 1])
        if not is_code or not any(p in arg for p in PLACEHOLDERS):
            out.append(_substitute(arg, values, lambda v: v))
        elif program in SHELLS:
            out.append(_substitute(arg, values, shlex.quote))
        else:
            for placeholder, value in values.items():
                if placeholder in arg and not _SAFE_PATH.match(value):
                    raise UnsafeCommand(
                        f"{placeholder} ({value!r}) would change the code given to {program} {command[n - 1]}; "
                        "read $DELTA_CWD / $DELTA_AGENT_HOME in the script instead"
                    )
            out.append(_substitute(arg, values, lambda v: v))
    return out


def is_code_flag(flag: str) -> bool:
    """Whether the argument after ``flag`` is code (alone, or in a cluster of short options)."""
    return flag in CODE_FLAGS or bool(_CLUSTER.match(flag))


def _substitute(arg: str, values: dict[str, str], form: object) -> str:
    for placeholder, value in values.items():
        arg = arg.replace(placeholder, form(value))  # type: ignore[operator]
    return arg


def trust_key(context_yaml: bytes, commands: list[list[str]], agent_home: Path, cwd: Path) -> str:
    """What the Lead trusts: context.yaml, the workspace, and every file its commands name."""
    digest = hashlib.sha256()
    digest.update(hashlib.sha256(context_yaml).digest())
    digest.update(str(cwd.resolve()).encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(coverage(commands, agent_home, cwd)[0]):
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(hashlib.sha256(read_bounded(path)[0]).digest())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


def coverage(commands: list[list[str]], agent_home: Path, cwd: Path) -> tuple[set[Path], list[str]]:
    """(the files trust covers, what it cannot cover): the files the commands name, and what
    each of those sources by a fixed name, in turn; a name worked out at run time is listed
    as not covered."""
    roots = [agent_home.resolve(), cwd.resolve()]
    covered = _named_files(commands, agent_home, cwd)
    uncovered: list[str] = []
    pending = [(path, 0) for path in sorted(covered)]
    while pending:
        path, depth = pending.pop()
        try:
            text = read_bounded(path)[0].decode("utf-8", "replace")
        except OSError:
            continue
        for name in _SOURCES.findall(text):
            if any(mark in name for mark in ("$", "`", "(")) or depth >= _DEPTH:
                uncovered.append(f"{path.name} sources {name}, worked out when it runs: not covered")
                continue
            # A relative name is read from wherever the shell runs; the script's folder and the
            # workspace both are covered.
            places = [Path(name)] if Path(name).is_absolute() else [path.parent / name, cwd / name]
            found = [f for f in (_inside(p, roots) for p in places) if f is not None]
            if not found:
                uncovered.append(f"{path.name} sources {name}, found in neither the workspace nor the agent home")
            for each in found:
                if each not in covered:
                    covered.add(each)
                    pending.append((each, depth + 1))
    return covered, uncovered


def _inside(candidate: Path, roots: list[Path]) -> Path | None:
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):
        return None
    return resolved if resolved.is_file() and any(resolved.is_relative_to(r) for r in roots) else None


def _named_files(commands: list[list[str]], agent_home: Path, cwd: Path) -> set[Path]:
    """Regular files inside the agent home or the workspace that an argument names."""
    roots = [agent_home.resolve(), cwd.resolve()]
    found: set[Path] = set()
    for command in commands:
        for arg in command:
            text = arg.replace("${AGENT_HOME}", str(agent_home)).replace("${CWD}", str(cwd))
            for word in {text, *shlex.split(text, posix=True)} if _splittable(text) else {text}:
                candidate = Path(word) if Path(word).is_absolute() else cwd / word
                try:
                    resolved = candidate.resolve()
                except (OSError, RuntimeError):
                    continue
                if resolved.is_file() and any(resolved.is_relative_to(r) for r in roots):
                    found.add(resolved)
    return found


def _splittable(text: str) -> bool:
    try:
        shlex.split(text, posix=True)
    except ValueError:
        return False
    return True
