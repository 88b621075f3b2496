"""The package layout's rules, checked on the source so a new import cannot quietly break them."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parents[1] / "src"
CAPABILITIES = ("image", "pdf", "screenshot", "speech", "parsing")


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def _private_owner(module: str) -> str | None:
    """The package owning private ``module``: ``renderkit.pdf._render`` -> ``renderkit.pdf``."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def test_no_module_imports_another_packages_private_modules() -> None:
    modules = _modules()
    offences = []
    for name, path in modules.items():
        for imported in _imports(path):
            owner = _private_owner(imported)
            if owner is None or (
                imported not in modules and imported.rsplit(".", 1)[0] not in modules
            ):
                continue
            if not (name == owner or name.startswith(owner + ".")):
                offences.append(f"{name} imports {imported}")
    assert offences == []


def test_a_capability_reaches_another_only_through_its_public_package() -> None:
    offences = []
    for name, path in _modules().items():
        parts = name.split(".")
        if len(parts) < 2 or parts[0] != "renderkit" or parts[1] not in CAPABILITIES:
            continue
        for imported in _imports(path):
            other = imported.split(".")
            if (
                len(other) > 2
                and other[0] == "renderkit"
                and other[1] in CAPABILITIES
                and other[1] != parts[1]
                and other[2].startswith("_")
            ):
                offences.append(f"{name} imports {imported}")
    assert offences == []


def test_every_capability_package_exports_its_function_and_models() -> None:
    import renderkit

    for capability, function in [
        ("image", "render_image"),
        ("pdf", "render_pdf"),
        ("screenshot", "screenshot"),
        ("speech", "synthesize"),
        ("parsing", "parse"),
    ]:
        package = __import__(f"renderkit.{capability}", fromlist=["__all__"])
        assert function in package.__all__
        assert getattr(package, function) is getattr(renderkit, function)


def _outside_functions(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement of ``body`` and of the ``if``/``try``/``with`` blocks in it, but not of
    function or class bodies."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If | ast.With):
            found.extend(_outside_functions(node.body))
            found.extend(_outside_functions(getattr(node, "orelse", [])))
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found.extend(_outside_functions(block))
            for handler in node.handlers:
                found.extend(_outside_functions(handler.body))
    return found


def _module_level_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules ``name`` imports outside function bodies: top-level statements and the
    blocks under them, ``if TYPE_CHECKING:`` included (a circle hidden there is still a
    circle between the modules; only a function's lazy import of an optional extra is left out).

    ``from package import name`` counts as importing the submodule when there is one, and
    importing a module also runs its parent packages' ``__init__`` (unless ``name`` is
    inside that package already: a package's own modules are imported while it loads).
    """
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _outside_functions(ast.parse(path.read_text(encoding="utf-8")).body):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                package = name if is_package else name.rsplit(".", 1)[0]
                package = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{package}.{node.module}"
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                candidate = ".".join(parts[:end])
                inside = name == candidate or name.startswith(candidate + ".")
                if candidate in modules and candidate != name and not inside:
                    found.add(candidate)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle per strongly connected group of modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _module_level_imports(name, path, modules) for name, path in modules.items()}


def test_the_cycle_finder_reports_a_circle_and_only_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_circle_anywhere_in_the_tree_type_checking_blocks_included() -> None:
    graph = _graph()
    assert "renderkit_server.services" in graph["renderkit_server.app"]  # the graph is real
    assert "renderkit.parsing._display" in graph["renderkit.parsing._models"]
    assert _cycles(graph) == []


def test_an_import_under_type_checking_counts_as_an_edge() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from b import B\n"
    statements = _outside_functions(ast.parse(source).body)
    assert any(isinstance(node, ast.ImportFrom) and node.module == "b" for node in statements)
    inside_a_function = "def f():\n    import b\n"
    statements = _outside_functions(ast.parse(inside_a_function).body)
    assert not any(isinstance(node, ast.Import) for node in statements)


def test_core_imports_nothing_built_on_top_of_it() -> None:
    offences = []
    for name, path in _modules().items():
        if name != "renderkit.core" and not name.startswith("renderkit.core."):
            continue
        for imported in _imports(path):
            parts = imported.split(".")
            if parts[0] in ("renderkit", "renderkit_server") and parts[:2] != ["renderkit", "core"]:
                offences.append(f"{name} imports {imported}")
    assert offences == []


def _top_level_imports(path: Path) -> set[str]:
    """What ``path`` imports when it is imported (function bodies left out)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


#: ``renderkit serve`` starts the server when the ``server`` extra is installed: the one
#: place the library names it, imported inside the command so ``renderkit`` never needs it.
_SERVER_LAUNCHERS = {"renderkit.cli"}


def test_the_library_never_imports_the_server() -> None:
    offences = []
    for name, path in _modules().items():
        if name.split(".")[0] != "renderkit":
            continue
        imported = _top_level_imports(path) if name in _SERVER_LAUNCHERS else _imports(path)
        offences.extend(
            f"{name} imports {module}"
            for module in imported
            if module.split(".")[0] == "renderkit_server"
        )
    assert offences == []
