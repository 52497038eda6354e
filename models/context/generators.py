"""Running a context.yaml's generators safely: what they are given, and what trusting them covers.

A generator is an argv list, run without a shell, so a placeholder substituted into a plain
argument cannot change the command. An argument that is code (the script after ``sh -c``,
``python -c``, ``node -e``) is different: ``${CWD}`` pasted into it as text let a workspace
named ``ws;touch INJECTED;#`` run a command. There, shells get the path shell-quoted; other
interpreters get it only when it holds nothing but ordinary path characters (else the source
is refused, and the script can read ``$DELTA_CWD`` instead).

Trust is given to a tuple: context.yaml's bytes, the workspace it runs in, and the bytes of
every file the commands name there (scripts, the program itself). Any of them changing asks
the Lead again.
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
PLACEHOLDERS = ("${AGENT_HOME}", "${CWD}")


class UnsafeCommand(ValueError):
    """A placeholder cannot be put into a code argument without changing the code."""


def expand_command(command: list[str], agent_home: Path, cwd: Path) -> list[str]:
    """The argv to run, with ``${AGENT_HOME}`` and ``${CWD}`` put in where they can do no harm."""
    values = {"${AGENT_HOME}": str(agent_home), "${CWD}": str(cwd)}
    program = Path(command[0]).name if command else ""
    out: list[str] = []
    for n, arg in enumerate(command):
        is_code = n > 0 and command[n - 1] in CODE_FLAGS
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


def _substitute(arg: str, values: dict[str, str], form: object) -> str:
    for placeholder, value in values.items():
        arg = arg.replace(placeholder, form(value))  # type: ignore[operator]
    return arg


def trust_key(context_yaml: bytes, commands: list[list[str]], agent_home: Path, cwd: Path) -> str:
    """What the Lead trusts: context.yaml, the workspace, and every file its commands name."""
    digest = hashlib.sha256()
    digest.update(hashlib.sha256(context_yaml).digest())
    digest.update(str(cwd.resolve()).encode("utf-8", "surrogateescape") + b"\0")
    for path in sorted(_named_files(commands, agent_home, cwd)):
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(hashlib.sha256(read_bounded(path)[0]).digest())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


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
