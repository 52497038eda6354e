"""Fetch the pinned Claude Code client that the real-client integration test runs.

Two npm tarballs, fetched with ``npm pack`` (never ``npm install``: its postinstall would link
binaries into the system), checked against the registry's ``dist.integrity`` recorded here, and
unpacked into ``.cache/claude-code/<version>/``. The client is the platform tarball's
``package/claude``: a self-contained executable that needs no Node.js and no network to start.
Run by ``scripts/bootstrap.sh test``; does nothing when the client is already there.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "2.1.332"
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "claude-code" / VERSION
CLIENT = CACHE / "claude"
# name@version → the registry's dist.integrity (../shared/claude-code-team/REAL-CLIENT.md §1)
PACKAGES = {
    f"@anthropic-ai/claude-code@{VERSION}": (
        "sha512-tvSh6bLvEbd97APD31AnojOrRC3AmcRj5R8sF8QIQitu3x2ucOb1kKmTkGDw41kjva+CGJfpkt+wYouk6yv56Q=="
    ),
    f"@anthropic-ai/claude-code-linux-x64@{VERSION}": (
        "sha512-f4JWhzwYutJIHScC7/dYOPX6s28tt7ZADhsOi8zwOHq5fFPEuUeChh2NMfinSg0GrUckYxaeebC4h0DqiKzLcw=="
    ),
}


def integrity(path: Path) -> str:
    """npm's Subresource Integrity form of a file: ``sha512-`` and the digest in base64."""
    digest = hashlib.sha512()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def fetch(into: Path) -> dict[str, Path]:
    """``npm pack`` each pinned package into ``into``; name → tarball, each checked."""
    done = subprocess.run(
        ["npm", "pack", "--json", "--pack-destination", str(into), *PACKAGES],
        check=True,
        capture_output=True,
        text=True,
    )
    tarballs = {}
    for item, (spec, expected) in zip(json.loads(done.stdout), PACKAGES.items(), strict=True):
        path = into / item["filename"]
        got = integrity(path)
        if got != expected:
            raise SystemExit(f"{path.name}: integrity {got} is not the pinned {expected}")
        tarballs[spec] = path
    return tarballs


def unpack(tarballs: dict[str, Path], into: Path) -> None:
    """The wrapper's pin checked against the platform package; the binary put in place."""
    wrapper, platform = tarballs.values()
    with tarfile.open(wrapper) as tar:
        meta = json.load(tar.extractfile("package/package.json"))  # type: ignore[arg-type]
    pinned = meta.get("optionalDependencies", {}).get("@anthropic-ai/claude-code-linux-x64")
    if meta.get("version") != VERSION or pinned != VERSION:
        raise SystemExit(f"the wrapper pins {pinned} for version {meta.get('version')}, not {VERSION}")
    with tarfile.open(platform) as tar:
        member = tar.getmember("package/claude")
        source = tar.extractfile(member)
        assert source is not None  # a regular file in the pinned tarball
        staged = into / "claude.part"
        with staged.open("wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
    staged.chmod(0o755)
    staged.replace(CLIENT)


def main() -> int:
    if CLIENT.is_file():
        return 0
    if shutil.which("npm") is None:
        print("npm is needed to fetch Claude Code for the real-client test", file=sys.stderr)
        return 1
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        print(f"Fetching Claude Code {VERSION} for the real-client test (about 190 MB)")
        unpack(fetch(Path(tmp)), Path(tmp))
    version = subprocess.run([str(CLIENT), "--version"], check=True, capture_output=True, text=True).stdout
    if not version.startswith(VERSION):
        CLIENT.unlink()
        raise SystemExit(f"the fetched client says {version.strip()!r}, not {VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
