"""The bundled demo session, copied to a writable place before it is opened.

The copy lives under the user's data folder in a folder named after a hash of the bundled
files, so a newer bundle gets a fresh copy while edits to the current one survive restarts.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
DEMO_PROJECT = RESOURCES / "demo-project"
DEMO_SESSION_ID = "payments-ledger-v2"


def bundled_session() -> Path:
    return DEMO_PROJECT / ".agent" / "teams" / DEMO_SESSION_ID


def _bundle_hash() -> str:
    digest = hashlib.sha256()
    root = bundled_session()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lead-console"


def demo_session(reset: bool = False, base: Path | None = None) -> Path:
    """Path of a writable copy of the demo session, made if missing (or when ``reset``)."""
    target_project = (base or data_dir()) / "demo" / _bundle_hash()
    target = target_project / ".agent" / "teams" / DEMO_SESSION_ID
    if reset and target_project.exists():
        shutil.rmtree(target_project)
    if not target.exists():
        tmp = target_project.with_name(target_project.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(DEMO_PROJECT, tmp)
        tmp.replace(target_project)
    return target
