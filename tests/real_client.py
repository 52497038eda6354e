"""The real Claude Code client as teammates of a made-up team, offline (REAL-CLIENT.md).

Each teammate is the pinned client (``scripts/fetch_claude_code.py`` puts it in ``.cache/``) in
a private tmux server, started as a 2.1.332 lead starts one (``--agent-id``, a lead verify key,
its first prompt in its inbox), with a fresh HOME and its model a fake Messages API of ours on
127.0.0.1 (tests/fake_messages_api.py). Nothing of the developer's setup is seen, nothing leaves
the machine (outside hosts are refused by the fake's proxy, and ``git`` is shadowed), and
``stop`` ends every process it started, by process id or by its own tmux socket.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
VERSION = "2.1.332"
CLIENT = ROOT / ".cache" / "claude-code" / VERSION / "claude"
FAKE_API = Path(__file__).parent / "fake_messages_api.py"
TEAM = "lc-real"
COLORS = ("blue", "green", "yellow", "purple")

T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float, on_timeout: Callable[[], str] = str) -> T:
    """Poll ``probe`` until it returns something true (REAL-CLIENT.md §6: generous limits, no
    fixed sleeps); AssertionError naming ``what`` and what ``on_timeout`` tells after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:  # an empty list is no answer yet
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{on_timeout()}")
        time.sleep(0.05)


def read_json(path: Path) -> Any:
    """The file's JSON, or None while it is missing or half-written."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def stamp_now() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def verify_key(folder: Path) -> str:
    """``<ms>.<public key>`` as a signing lead passes ``--lead-verify-key``: an ed25519 key
    pair made with openssl, the public key as DER SPKI in base64url."""
    key = folder / "lead-key.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True, capture_output=True)
    der = subprocess.run(
        ["openssl", "pkey", "-in", str(key), "-pubout", "-outform", "DER"], check=True, capture_output=True
    ).stdout
    return f"{int(time.time() * 1000)}.{base64.urlsafe_b64encode(der).decode('ascii').rstrip('=')}"


@dataclass
class Teammate:
    """One running teammate: its member name, its fake model's port and request log."""

    name: str
    ack: str
    port: int
    log: Path
    debug: Path
    server: subprocess.Popen[bytes]

    def requests(self) -> list[dict[str, Any]]:
        """Every /v1/messages request the client made, bodies included (a line the fake is
        writing now is left for the next look)."""
        try:
            lines = self.log.read_bytes().decode("utf-8", errors="replace").splitlines()
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # the server is writing this one now
            if item.get("method") == "POST" and str(item.get("path")).startswith("/v1/messages?"):
                out.append(item)
        return out

    def refused_hosts(self) -> set[str]:
        """The outside hosts the client tried through the proxy (all refused)."""
        try:
            lines = self.log.read_text(encoding="utf-8").splitlines()
        except OSError:
            return set()
        return {json.loads(line)["path"] for line in lines if '"CONNECT"' in line}


@dataclass
class RealTeam:
    """A team folder in a fresh HOME and the teammates started into it."""

    root: Path
    home: Path = field(init=False)
    cwd: Path = field(init=False)
    lead_session: str = field(default_factory=lambda: str(uuid.uuid4()))
    running: dict[str, Teammate] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.cwd = self.root / "work"
        self.cwd.mkdir(parents=True)
        (self.home / ".claude").mkdir(parents=True)
        bin_dir = self.root / "bin"
        bin_dir.mkdir()
        git = bin_dir / "git"  # the client's marketplace clone falls back to SSH, past any proxy
        git.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        git.chmod(0o755)
        self._socket_dir = Path(tempfile.mkdtemp(prefix="lc-tmux-"))  # a socket path under 108 bytes
        self._key = verify_key(self.root)

    @property
    def folder(self) -> Path:
        return self.home / ".claude" / "teams" / TEAM

    @property
    def socket(self) -> Path:
        return self._socket_dir / "tmux"

    def inbox(self, member: str) -> Path:
        return self.folder / "inboxes" / f"{member}.json"

    def write_config(self, members: list[str]) -> None:
        """config.json as a 2.1.332 lead leaves it, and the lead's HOME settings."""
        now = int(time.time() * 1000)
        lead = {
            "agentId": f"team-lead@{TEAM}",
            "name": "team-lead",
            "agentType": "team-lead",
            "joinedAt": now,
            "tmuxPaneId": "leader",
            "cwd": str(self.cwd),
            "subscriptions": [],
            "backendType": "in-process",
        }
        listed = [
            {"agentId": f"{m}@{TEAM}", "name": m, "agentType": "implementer", "model": "claude-opus-5-5",
             "color": COLORS[n % len(COLORS)], "joinedAt": now, "tmuxPaneId": f"%{n + 1}", "cwd": str(self.cwd),
             "subscriptions": [], "backendType": "tmux", "isActive": True}
            for n, m in enumerate(members)
        ]  # fmt: skip
        config = {"name": TEAM, "description": "Lead Console's real-client test", "createdAt": now,
                  "leadAgentId": f"team-lead@{TEAM}", "leadSessionId": self.lead_session,
                  "members": [lead, *listed]}  # fmt: skip
        (self.folder / "inboxes").mkdir(parents=True, exist_ok=True)
        (self.folder / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        settings = {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [self._api_key[-20:]], "rejected": []},
            "projects": {str(self.cwd): {"hasTrustDialogAccepted": True}},
        }
        (self.home / ".claude.json").write_text(json.dumps(settings), encoding="utf-8")

    _api_key = "sk-ant-lead-console-real-client-test-0000"

    def start(self, name: str, ack: str, timeout: float = 90) -> Teammate:
        """Start ``name`` as a lead would (its first prompt in its inbox first) and wait until
        it has taken that prompt: its inbox drained and its model asked."""
        index = len(self.running)
        log, port_file = self.root / f"{name}-api.jsonl", self.root / f"{name}-port"
        server = subprocess.Popen([sys.executable, str(FAKE_API), str(port_file), str(log), "--ack", ack])
        port = int(wait_for(f"{name}'s fake API", lambda: port_file.is_file() and port_file.read_text(), 20))
        mate = Teammate(name, ack, port, log, self.root / f"{name}-debug.log", server)
        self.running[name] = mate
        prompt = f"You are {name}. Wait for the lead's messages and answer each as the protocol asks."
        first = [{"from": "team-lead", "text": prompt, "timestamp": stamp_now(), "read": False}]
        self.inbox(name).write_text(json.dumps(first), encoding="utf-8")
        proxy = f"http://127.0.0.1:{port}"
        env = {
            "HOME": str(self.home), "PATH": f"{self.root / 'bin'}:/usr/bin:/bin:/usr/local/bin",
            "TERM": "xterm-256color", "LANG": "C.UTF-8",
            "ANTHROPIC_BASE_URL": proxy, "ANTHROPIC_API_KEY": self._api_key,
            "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "NO_PROXY": "127.0.0.1,localhost",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDECODE": "1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
        }  # fmt: skip
        flags = [
            "--agent-id", f"{name}@{TEAM}", "--agent-name", name, "--team-name", TEAM,
            "--agent-color", COLORS[index % len(COLORS)], "--parent-session-id", self.lead_session,
            "--lead-verify-key", self._key, "--permission-mode", "default", "--debug-file", str(mate.debug),
        ]  # fmt: skip
        script = self.root / f"{name}.sh"
        words = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(CLIENT), *flags]
        script.write_text(f"cd {_quote(str(self.cwd))} && exec {' '.join(map(_quote, words))}\n", encoding="utf-8")
        command = [*self.tmux(), "new-session", "-d", "-s", name, "-x", "200", "-y", "50", f"sh {_quote(str(script))}"]
        subprocess.run(command, check=True)
        wait_for(
            f"{name} to take its first prompt",
            lambda: read_json(self.inbox(name)) == [] and bool(mate.requests()),
            timeout,
            lambda: self.screen(name),
        )
        return mate

    @contextmanager
    def lock(self, member: str) -> Iterator[None]:
        """Hold ``member``'s inbox lock as every writer takes it (PROTOCOL.md: mkdir, rmdir)."""
        path = self.inbox(member).with_name(f"{member}.json.lock")
        wait_for(f"{member}'s inbox lock", lambda: _mkdir(path), 10)
        try:
            yield
        finally:
            path.rmdir()

    def tmux(self) -> list[str]:
        return ["tmux", "-S", str(self.socket), "-f", "/dev/null"]

    def screen(self, name: str) -> str:
        """What the teammate's pane shows (for a failure's message)."""
        done = subprocess.run([*self.tmux(), "capture-pane", "-p", "-t", name], capture_output=True, text=True)
        return done.stdout + done.stderr

    def type(self, name: str, text: str) -> None:
        """Type ``text`` into the pane and press Enter once the client has read it."""
        subprocess.run([*self.tmux(), "send-keys", "-t", name, text], check=True)
        wait_for(f"{text!r} on {name}'s screen", lambda: text in self.screen(name), 10, lambda: self.screen(name))
        subprocess.run([*self.tmux(), "send-keys", "-t", name, "Enter"], check=True)

    def transcript_lines(self, name: str) -> list[dict[str, Any]]:
        """Every line of ``name``'s transcript(s) under the HOME's projects folder."""
        out: list[dict[str, Any]] = []
        for path in sorted((self.home / ".claude" / "projects").glob("*/*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict) and item.get("agentName") == name:
                    out.append(item)
        return out

    def stop(self) -> None:
        """End the tmux server (every teammate), then the fake servers by their process ids."""
        subprocess.run([*self.tmux(), "kill-server"], capture_output=True)
        for mate in self.running.values():
            mate.server.send_signal(signal.SIGTERM)
            try:
                mate.server.wait(timeout=5)
            except subprocess.TimeoutExpired:
                mate.server.kill()
                mate.server.wait()
        shutil.rmtree(self._socket_dir, ignore_errors=True)


def _mkdir(path: Path) -> bool:
    try:
        path.mkdir()
    except FileExistsError:
        return False
    return True


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\"'\"'") + "'"


def client_missing() -> str | None:
    """Why the pinned client cannot run here, or None."""
    if not CLIENT.is_file():
        return f"{CLIENT} is missing: run `sh scripts/bootstrap.sh test` (it fetches Claude Code {VERSION})"
    for tool in ("tmux", "openssl"):
        if shutil.which(tool) is None:
            return f"{tool} is missing: run `sh scripts/bootstrap.sh test`"
    if os.uname().machine != "x86_64":
        return f"the pinned client is the linux-x64 build; this machine is {os.uname().machine}"
    return None
