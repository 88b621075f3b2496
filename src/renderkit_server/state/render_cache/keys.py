"""The render cache's key: a hash of whose it is and what decides the output.

A cache key hashes the scope (the key lineage that may read the entry, or the one scope
shared by every key: see :func:`scope`), the operation, the normalised request (the
structured request unstructured by the one converter, keys sorted, so aliases, defaults and
key order do not matter), the template version (a hash of the shipped template files) and
the renderer version (renderkit's version plus Chromium's major version, or the speech
provider).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import json

import renderkit
from renderkit.core.converter import converter

__all__ = ["SHARED_SCOPE", "cache_key", "scope", "template_version"]

#: The scope of the renders every key may share (template renders, when the operator allows).
SHARED_SCOPE = "shared"

#: Request fields that steer the call rather than the output: never part of a key.
#: (``strict`` refuses a request before the cache is asked; one it lets through renders
#: exactly what the same request without it does.)
_CACHE_FIELDS = frozenset({"cache", "cache_ttl", "strict"})


@functools.cache
def template_version() -> str:
    """A hash of every shipped template file: editing a template invalidates the cache.

    Computed once per process; the files do not change while it runs.
    """
    digest = hashlib.sha256()
    for package in ("renderkit.image", "renderkit.pdf"):
        root = importlib.resources.files(package) / "templates"
        stack = [root]
        files = []
        while stack:
            for child in stack.pop().iterdir():
                if child.is_dir():
                    stack.append(child)
                elif child.is_file():
                    files.append(child)
        for child in sorted(files, key=lambda f: str(f)):
            digest.update(f"{package}{str(child).removeprefix(str(root))}".encode())
            digest.update(child.read_bytes())
    return digest.hexdigest()[:16]


def scope(key_id: str, *, shared: bool) -> str:
    """Who may read an entry: the key lineage ``key_id`` (its regenerations keep it), or
    every key when ``shared``."""
    return SHARED_SCOPE if shared else f"key:{key_id}"


def cache_key(operation: str, request: object, *, renderer: str, scope: str) -> str:
    """The sha256 naming the output of ``request`` rendered by ``operation`` for ``scope``.

    The scope is hashed with the rest, so no request sent by one key can name another
    key's entry.

    Args:
        operation: the operation's name (``image``, ``pdf-gen``...).
        request: the structured request model.
        renderer: the renderer version (see :func:`renderkit_server.operations`).
        scope: who may read the entry (see :func:`scope`).
    """
    normalised = {
        name: value
        for name, value in converter.unstructure(request).items()
        if name not in _CACHE_FIELDS
    }
    material = {
        "scope": scope,
        "operation": operation,
        "request": normalised,
        "templates": template_version(),
        "renderer": renderer,
        "renderkit": renderkit.__version__,
    }
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()
