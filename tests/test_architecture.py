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


#: Re-exports kept in ``renderkit.core`` for a server module not yet moved to the new place
#: (``renderkit_server.operations`` imports ``store_file``); delete each with its module.
_CORE_COMPAT = {"renderkit.core.store": {"renderkit.storage.files"}}


def test_core_imports_nothing_built_on_top_of_it() -> None:
    offences = []
    for name, path in _modules().items():
        if name != "renderkit.core" and not name.startswith("renderkit.core."):
            continue
        allowed = _CORE_COMPAT.get(name, set())
        for imported in _imports(path):
            parts = imported.split(".")
            if imported in allowed or imported.rsplit(".", 1)[0] in allowed:
                continue
            if parts[0] in ("renderkit", "renderkit_server") and parts[:2] != ["renderkit", "core"]:
                offences.append(f"{name} imports {imported}")
    assert offences == []


def _module_level_imports(path: Path) -> set[str]:
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
        imported = _module_level_imports(path) if name in _SERVER_LAUNCHERS else _imports(path)
        offences.extend(
            f"{name} imports {module}"
            for module in imported
            if module.split(".")[0] == "renderkit_server"
        )
    assert offences == []
