"""The layers of docs/architecture.md, enforced by import-linter's contracts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO, ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def _copy_tree(tmp_path: Path) -> Path:
    for name in ("models", "ui", "app"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


@pytest.mark.parametrize(
    ("module", "line", "contract", "said"),
    [
        pytest.param(
            "models/text/problems.py",
            "from PySide6 import QtCore",
            "models/ is pure Python: no Qt, no ui, no app",
            "models.text.problems -> PySide6",
            id="qt-in-models",
        ),
        pytest.param(
            "models/session/gates.py",
            "import models.review.ledger",
            "models/ packages, each using only those below it",
            "4 kept, 1 broken",
            id="a-lower-package-up",
        ),
        pytest.param(
            "ui/panes/gates_pane.py",
            "from models.text.atomic import atomic_write",
            "ui imports no write helper: the app's runner commits what the Lead confirmed",
            "ui.panes.gates_pane -> models.text.atomic",
            id="a-pane-writing",
        ),
    ],
)
def test_an_import_across_a_layer_breaks_its_contract(
    tmp_path: Path, module: str, line: str, contract: str, said: str
) -> None:
    root = _copy_tree(tmp_path)
    with (root / module).open("a", encoding="utf-8") as f:
        f.write(f"\n{line}  # noqa\n")
    result = _lint(root)
    assert result.returncode == 1
    assert f"{contract} BROKEN" in result.stdout
    assert said in result.stdout


def test_the_command_list_matches_the_parser_and_help_imports_no_models() -> None:
    """`lead-console --help` and the window's start name the subcommands without importing what
    they need; the static list must stay the parser's."""
    import subprocess
    import sys

    from app.cli.main import COMMANDS, _build_commands, _commands

    assert list(COMMANDS) == _commands(_build_commands())
    probe = (
        "import sys, contextlib, io\nfrom app.cli import main as m\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        m.main(['--help'])\n    except SystemExit:\n        pass\n"
        "print(sorted(n for n in sys.modules if n.startswith('models.')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = out.stdout.strip()
    assert "models.session" not in loaded and "models.delta" not in loaded, loaded


def test_a_subcommand_imports_its_own_group_only() -> None:
    """Issue 18: `inspect` (the session group) loads none of what delta, review, context,
    memory or team commands need; each command's parser comes from its own group."""
    import subprocess
    import sys

    from app.cli.main import GROUPS, _build_commands, _commands

    for group, commands in GROUPS.items():
        for command in commands:
            assert _commands(_build_commands(command)) == list(commands), (group, command)
    probe = (
        "import sys, contextlib, io\nfrom app.cli import main as m\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    m.main(['inspect', {str(DEMO)!r}])\n"
        "print(sorted(n for n in sys.modules if n.startswith(('app.cli.', 'models.'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = out.stdout.strip()
    assert "app.cli.session_cmds" in loaded, loaded
    for other in ("delta_cmds", "review_cmds", "context_cmds", "memory_cmds", "team_cmds"):
        assert f"app.cli.{other}" not in loaded, loaded
    for package in ("models.delta.diff", "models.claude.delivery", "models.context"):
        assert package not in loaded, loaded
