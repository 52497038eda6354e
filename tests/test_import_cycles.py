"""No module-level import circle anywhere in ``app``, ``ui`` or ``models``.

A circle makes the order in which modules load matter, and hides a layer that is not one. Only
imports run when a module loads count: those under ``if TYPE_CHECKING:`` and inside functions
(a command's imports, made when it runs) do not. The graph is built here from the source with
``ast``, independently of the app's code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGES = ("app", "ui", "models")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _load_time_imports(tree: ast.Module, name: str, is_package: bool) -> set[str]:
    """The modules an import statement at load time names (``from a import b`` names ``a.b``
    when that is a module of ours, else ``a``)."""
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):  # still run at load time
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for child in getattr(node, field, []):
                        visit(child.body if isinstance(child, ast.ExceptHandler) else [child])

    visit(tree.body)
    return found


def _graph() -> dict[str, set[str]]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    modules = {_module_name(p): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = _load_time_imports(tree, name, path.name == "__init__.py")
        graph[name] = {m for m in named if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_the_graph_is_read_right_on_a_circle_written_here() -> None:
    tree_a = ast.parse("from models.b import x\nif TYPE_CHECKING:\n    import models.c\n")
    tree_b = ast.parse("import models.a\ndef f():\n    import models.c\n")
    assert _load_time_imports(tree_a, "models.a", False) == {"models.b", "models.b.x"}
    assert _load_time_imports(tree_b, "models.b", False) == {"models.a"}
    graph = {"models.a": {"models.b"}, "models.b": {"models.a"}, "models.c": {"models.a"}}
    assert _cycles(graph) == [["models.a", "models.b"]]


def test_no_module_level_import_circle() -> None:
    graph = _graph()
    assert len(graph) > 150  # every module of the three packages was read
    assert _cycles(graph) == []
