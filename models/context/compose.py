"""What an agent sees: context.yaml (Delta Engine v1.6, seed 001) composed into blocks.

``file`` and ``computed_file`` sources become system blocks (``# Context Block: <id>``), the
``journal`` source becomes the raw message list rebuilt from the run's journal.jsonl. Each
block carries its tokens; each failure its reason. Running a generator runs a command from a
file, so it happens only when the caller says this exact context.yaml is trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from models.context.generators import UnsafeCommand, expand_command, trust_key
from models.text.textfile import read_bounded, read_utf8
from models.text.tokens import Tokenizer
from models.text.yaml_load import safe_load

SCHEMA_VERSION = "1.6.0"
DEFAULT_TIMEOUT_MS = 30_000
SourceType = Literal["file", "computed_file", "journal"]
BlockStatus = Literal["ok", "skipped", "failed", "refused"]

_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "file": {"type": str, "id": str, "path": str, "on_missing": str},
    "computed_file": {"type": str, "id": str, "generator": dict, "output_path": str, "on_missing": str},
    "journal": {"type": str, "id": str, "max_iterations": int},
}
_REQUIRED = {"file": ("path",), "computed_file": ("generator", "output_path"), "journal": ()}

DEFAULT_MANIFEST: dict[str, Any] = {
    "sources": [
        {"type": "file", "id": "system_prompt", "path": "${AGENT_HOME}/system_prompt.md"},
        {"type": "file", "id": "workspace_guide", "path": "${CWD}/DELTA.md", "on_missing": "skip"},
        {"type": "journal", "id": "conversation_history"},
    ]
}


@dataclass(frozen=True)
class Source:
    type: SourceType
    id: str
    spec: dict[str, Any]


@dataclass
class Manifest:
    sources: list[Source]
    problems: list[str] = field(default_factory=list)
    path: Path | None = None  # None: the default manifest
    sha256: str | None = None  # of context.yaml's bytes
    trust_key: str | None = None  # what the Lead trusts (models.context.generators), once composed
    raw: bytes | None = field(default=None, repr=False)  # the bytes these sources were read from

    def commands(self) -> list[list[str]]:
        """Every generator's command, as written."""
        return [list(s.spec["generator"]["command"]) for s in self.sources if s.type == "computed_file"]

    def key_for(self, agent_home: Path, cwd: Path) -> str | None:
        """The trust key in this workspace; None without a context.yaml to trust."""
        if self.raw is None:
            return None
        # The bytes the sources came from, not a new read: trust must cover what will run.
        return trust_key(self.raw, self.commands(), agent_home, cwd)


@dataclass
class Block:
    """One piece of the composed context, in order."""

    source: SourceType
    id: str
    status: BlockStatus
    tokens: int = 0
    content: str | None = None  # the system message for file/computed_file
    messages: list[dict[str, Any]] = field(default_factory=list)  # the journal's messages
    reason: str | None = None
    command: list[str] | None = None  # a computed_file's generator, shown before it runs


@dataclass
class Composed:
    manifest: Manifest
    blocks: list[Block]

    @property
    def tokens(self) -> int:
        return sum(b.tokens for b in self.blocks)


def expand(text: str, agent_home: Path, cwd: Path) -> str:
    return text.replace("${AGENT_HOME}", str(agent_home)).replace("${CWD}", str(cwd))


def _validate(data: Any) -> tuple[list[Source], list[str]]:
    problems: list[str] = []
    if not isinstance(data, dict):
        return [], ["context.yaml is not a mapping with 'sources'"]
    for key in data:
        if key != "sources":
            problems.append(f"unknown field {key!r} (v{SCHEMA_VERSION} has only 'sources')")
    raw = data.get("sources")
    if not isinstance(raw, list):
        return [], [*problems, "'sources' is required and must be a list"]
    sources: list[Source] = []
    for n, spec in enumerate(raw):
        name = f"source {n + 1}"
        if not isinstance(spec, dict):
            problems.append(f"{name}: not a mapping")
            continue
        kind = spec.get("type")
        if kind not in _FIELDS:
            problems.append(f"{name}: type {kind!r} is not file, computed_file or journal")
            continue
        sid = str(spec["id"]) if isinstance(spec.get("id"), str) else f"{kind}_{n + 1}"
        name = f"source {n + 1} ({sid})"
        ok = True
        for key, value in spec.items():
            expected = _FIELDS[kind].get(str(key))
            if expected is None:
                problems.append(f"{name}: unknown field {key!r} for {kind}")
            elif not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                problems.append(
                    f"{name}: {key} should be {getattr(expected, '__name__', expected)}, not {type(value).__name__}"
                )
                ok = False
        for key in _REQUIRED[kind]:
            if key not in spec:
                problems.append(f"{name}: {key} is required for {kind}")
                ok = False
        if spec.get("on_missing", "error") not in ("skip", "error"):
            problems.append(f"{name}: on_missing should be skip or error, not {spec.get('on_missing')!r}")
            ok = False
        if kind == "journal" and isinstance(spec.get("max_iterations"), int) and spec["max_iterations"] < 1:
            problems.append(f"{name}: max_iterations should be at least 1")
            ok = False
        if kind == "computed_file" and isinstance(spec.get("generator"), dict):
            gen = spec["generator"]
            command = gen.get("command")
            if not (isinstance(command, list) and command and all(isinstance(c, str) for c in command)):
                problems.append(f"{name}: generator.command should be a non-empty list of strings")
                ok = False
            timeout = gen.get("timeout_ms", DEFAULT_TIMEOUT_MS)
            if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
                problems.append(f"{name}: generator.timeout_ms should be a positive integer")
                ok = False
            for key in gen:
                if key not in ("command", "timeout_ms"):
                    problems.append(f"{name}: unknown field 'generator.{key}'")
        if ok:
            sources.append(Source(kind, sid, spec))
    return sources, problems


def load_manifest(agent_home: Path) -> Manifest:
    """context.yaml from the agent home, or the default manifest when there is none."""
    path = agent_home / "context.yaml"
    if not path.exists():
        sources, problems = _validate(DEFAULT_MANIFEST)
        return Manifest(sources, problems)
    try:
        raw, _ = read_bounded(path)
    except OSError as exc:
        return Manifest([], [f"context.yaml: {exc.strerror or exc}"], path, "")
    sha = hashlib.sha256(raw).hexdigest()
    try:
        data = safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as exc:
        return Manifest([], [f"context.yaml is not readable YAML: {getattr(exc, 'problem', exc)}"], path, sha)
    sources, problems = _validate(data)
    return Manifest(sources, problems, path, sha, raw=raw)


def latest_run(cwd: Path) -> Path | None:
    """``${CWD}/.delta/LATEST``: a link to the run folder or a file naming the run id."""
    latest = cwd / ".delta" / "LATEST"
    if latest.is_symlink() or latest.is_dir():
        try:
            return latest.resolve()
        except RuntimeError:
            return None  # a link loop names no run
    if latest.is_file():
        try:
            run_id = read_utf8(latest, 4096).strip()
        except OSError:
            return None  # unreadable or not UTF-8: no run named
        return cwd / ".delta" / run_id if run_id and "/" not in run_id else None
    return None


def journal_messages(journal: Path, max_iterations: int | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The message list rebuilt from journal.jsonl envelopes ``{seq, timestamp, type, payload}``."""
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    try:
        body = read_utf8(journal)
    except OSError as exc:
        return [], [f"{journal.name}: {exc.strerror or exc}"]
    order: list[tuple[int | float, int]] = []  # (seq, line): the journal's order, then the file's
    for n, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
            problems.append(f"journal line {n} is not JSON")
            continue
        if not isinstance(event, dict) or not isinstance(event.get("payload"), dict):
            problems.append(f"journal line {n} has no payload")
            continue
        seq = event.get("seq", 0)
        if isinstance(seq, bool) or not isinstance(seq, int | float) or seq != seq:  # NaN too
            problems.append(f"journal line {n}: seq {str(seq)[:40]!r} is not a number; taken as 0")
            seq = 0
        order.append((seq, n))
        events.append(event)
    events = [e for _, e in sorted(zip(order, events, strict=True), key=lambda pair: pair[0])]
    if max_iterations is not None:
        thoughts = [i for i, e in enumerate(events) if e.get("type") == "THOUGHT"]
        if len(thoughts) > max_iterations:
            events = events[thoughts[-max_iterations] :]
    messages: list[dict[str, Any]] = []
    for event in events:
        kind, payload = event.get("type"), event["payload"]
        if kind == "USER_MESSAGE":
            messages.append({"role": "user", "content": payload.get("content")})
        elif kind == "THOUGHT":
            message: dict[str, Any] = {"role": "assistant", "content": payload.get("content")}
            if payload.get("tool_calls"):
                message["tool_calls"] = payload["tool_calls"]
            messages.append(message)
        elif kind == "ACTION_RESULT":
            content = next(
                (payload[k] for k in ("observation_content", "content", "observation", "result") if k in payload), ""
            )
            messages.append(
                {
                    "role": "tool",
                    "content": content if isinstance(content, str) else json.dumps(content, ensure_ascii=False),
                    "tool_call_id": payload.get("action_id"),
                }
            )
    return messages, problems


Trust = Callable[[Manifest], bool]


def compose(
    agent_home: Path,
    cwd: Path,
    tokenizer: Tokenizer,
    trusted: Trust = lambda manifest: False,
    run_id: str | None = None,
) -> Composed:
    """Compose an agent's context; generators run only when ``trusted(manifest)`` says so."""
    agent_home, cwd = agent_home.resolve(), cwd.resolve()
    manifest = load_manifest(agent_home)
    manifest.trust_key = manifest.key_for(agent_home, cwd)
    run = latest_run(cwd)
    run_id = run_id or (run.name if run else "")
    blocks = []
    for source in manifest.sources:
        if source.type == "file":
            blocks.append(_file_block(source, agent_home, cwd, tokenizer))
        elif source.type == "computed_file":
            blocks.append(_computed_block(source, agent_home, cwd, tokenizer, trusted(manifest), run_id, manifest))
        else:
            blocks.append(_journal_block(source, run, tokenizer))
    return Composed(manifest, blocks)


def _wrap(sid: str, text: str) -> str:
    return f"# Context Block: {sid}\n\n{text}"


def _file_block(source: Source, home: Path, cwd: Path, tokenizer: Tokenizer) -> Block:
    path = Path(expand(source.spec["path"], home, cwd))
    return _read_block("file", source, path, tokenizer)


def _read_block(kind: SourceType, source: Source, path: Path, tokenizer: Tokenizer) -> Block:
    on_missing = source.spec.get("on_missing", "error")
    try:
        text = read_utf8(path)
    except FileNotFoundError:
        status: BlockStatus = "skipped" if on_missing == "skip" else "failed"
        return Block(
            kind,
            source.id,
            status,
            reason=f"missing file {path}" + (" (on_missing: skip)" if status == "skipped" else ""),
        )
    except (OSError, UnicodeDecodeError) as exc:
        return Block(kind, source.id, "failed", reason=f"{path}: {exc}")
    content = _wrap(source.id, text)
    return Block(kind, source.id, "ok", tokenizer.count(content), content)


def _computed_block(
    source: Source, home: Path, cwd: Path, tokenizer: Tokenizer, trusted: bool, run_id: str, manifest: Manifest
) -> Block:
    gen = source.spec["generator"]
    try:
        command = expand_command(list(gen["command"]), home, cwd)
    except UnsafeCommand as exc:
        return Block("computed_file", source.id, "refused", reason=str(exc), command=list(gen["command"]))
    output = Path(expand(source.spec["output_path"], home, cwd))
    if not trusted:
        block = Block(
            "computed_file", source.id, "refused", reason="not run: trust this context.yaml first (it runs commands)"
        )
        block.command = command
        return block
    env = {**os.environ, "DELTA_RUN_ID": run_id, "DELTA_AGENT_HOME": str(home), "DELTA_CWD": str(cwd)}
    timeout = gen.get("timeout_ms", DEFAULT_TIMEOUT_MS) / 1000
    try:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    except OSError as exc:
        return Block("computed_file", source.id, "failed", reason=f"generator could not start: {exc}", command=command)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the generator and anything it started
        proc.communicate()
        return Block(
            "computed_file",
            source.id,
            "failed",
            reason=f"generator timed out after {timeout:g} s (killed)",
            command=command,
        )
    if proc.returncode != 0:
        err = stderr.decode("utf-8", "replace").strip()[-500:]
        return Block(
            "computed_file",
            source.id,
            "failed",
            reason=f"generator exited with {proc.returncode}: {err}",
            command=command,
        )
    block = _read_block("computed_file", source, output, tokenizer)
    block.command = command
    return block


def _journal_block(source: Source, run: Path | None, tokenizer: Tokenizer) -> Block:
    if run is None:
        return Block("journal", source.id, "skipped", reason="no run yet (.delta/LATEST is missing)")
    journal = run / "journal.jsonl"
    if not journal.exists():
        return Block("journal", source.id, "skipped", reason=f"no journal at {journal}")
    messages, problems = journal_messages(journal, source.spec.get("max_iterations"))
    tokens = tokenizer.count(json.dumps(messages, ensure_ascii=False))
    block = Block("journal", source.id, "ok", tokens, messages=messages)
    if problems:
        block.reason = "; ".join(problems)
    return block
