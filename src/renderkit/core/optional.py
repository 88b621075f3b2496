"""Importing a package from an optional extra, with an error that says how to install it."""

from __future__ import annotations

import importlib
from types import ModuleType

from renderkit.core.errors import MissingDependencyError

__all__ = ["require_module"]


def require_module(module: str, *, purpose: str, extra: str) -> ModuleType:
    """Import ``module``, which the ``renderkit[extra]`` extra installs.

    Raises:
        MissingDependencyError: it is not installed; the message names ``purpose`` and the
            ``pip install`` command.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        msg = f"{purpose} needs {module}: pip install 'renderkit[{extra}]'"
        raise MissingDependencyError(msg) from exc
