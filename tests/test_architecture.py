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
