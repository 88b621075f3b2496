"""Test helpers shipped with renderkit for code that plugs into it.

- :class:`FakeBrowser`: an in-memory :class:`~renderkit.browser.Browser` (like httpx's
  ``MockTransport``) so tests above the browser never launch Chromium.
- :class:`FakeSpeechProvider`: an in-memory speech provider producing real, audible PCM.
- :class:`FakeExtractor`: an in-memory document extractor.
- :class:`StorageContract`: an abstract pytest suite for
  :class:`~renderkit.storage.Storage` backends (imports pytest; loaded on first use).
"""

from __future__ import annotations

from typing import Any

from renderkit.testing._fake_browser import FakeBrowser, RecordedRender
from renderkit.testing._fake_extractor import FakeExtractor, RecordedExtraction
from renderkit.testing._fake_speech import FakeSpeechProvider

__all__ = [
    "FakeBrowser",
    "FakeExtractor",
    "FakeSpeechProvider",
    "RecordedExtraction",
    "RecordedRender",
    "StorageContract",
]


def __getattr__(name: str) -> Any:
    if name == "StorageContract":
        from renderkit.testing.storage import StorageContract

        return StorageContract
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
