"""The docs a newcomer reads match the tree: the README stays a short user's page, and
docs/architecture.md names every package and module that exists, and none that does not."""

from __future__ import annotations

import re

from conftest import ROOT

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _tree_block() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text.split("```", 2)[1]


def test_the_readme_is_a_short_page_for_users() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for doc in ("docs/guide.md", "docs/session-folder.md", "docs/architecture.md", "docs/benchmarks.md"):
        assert f"]({doc})" in readme and (ROOT / doc).is_file(), doc
    assert "](CONTRIBUTING.md)" in readme and (ROOT / "CONTRIBUTING.md").is_file()


def test_every_package_is_in_the_architecture_tree() -> None:
    tree = _tree_block()
    packages = [p for top in ("app", "ui", "models") for p in (ROOT / top).iterdir() if (p / "__init__.py").is_file()]
    assert len(packages) >= 10
    missing = [p.name for p in packages if not re.search(rf"(^\s+|\| ){p.name}/", tree, re.M)]
    assert missing == []


def test_every_module_the_architecture_names_exists() -> None:
    tree = _tree_block()
    named = set(re.findall(r"\b([a-z_]+\.py)\b", tree))
    existing = {p.name for top in ("app", "ui", "models") for p in (ROOT / top).rglob("*.py")}
    assert len(named) >= 30
    assert sorted(named - existing) == []


def test_every_module_of_app_and_ui_is_in_the_architecture_tree() -> None:
    tree = _tree_block()
    modules = [
        p for top in ("app", "ui") for p in (ROOT / top).glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    ]
    missing = sorted(p.name for p in modules if p.name not in tree)
    assert missing == []
