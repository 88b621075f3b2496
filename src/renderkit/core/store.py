"""Moved to :mod:`renderkit.storage.files`; this re-export remains only for the server.

``renderkit_server.operations`` still imports ``store_file`` from here. Once it imports
``renderkit.storage.files`` instead, delete this module and its entry in
``tests/test_architecture.py::_CORE_COMPAT``: ``renderkit.core`` then imports nothing above it.
"""

from __future__ import annotations

from renderkit.storage.files import store_file

__all__ = ["store_file"]
