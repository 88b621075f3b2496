"""What every produced-file result shares: its bytes, saving, and Jupyter display."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from renderkit.core.media import MEDIA_TYPES

__all__ = ["FileResult"]


class FileResult:
    """Mixin for frozen attrs results with ``content: bytes`` and ``format: str``."""

    content: bytes
    format: str

    @property
    def content_type(self) -> str:
        """The MIME type of ``content``."""
        return MEDIA_TYPES[self.format]

    @property
    def size_bytes(self) -> int:
        """Size of the file."""
        return len(self.content)

    def save(self, path: str | Path) -> Path:
        """Write the file to ``path`` and return it."""
        path = Path(path)
        path.write_bytes(self.content)
        return path

    # Jupyter shows results inline through these hooks (None: "not in this format").
    def _repr_png_(self) -> Any:
        return self.content if self.format == "png" else None

    def _repr_jpeg_(self) -> Any:
        return self.content if self.format == "jpeg" else None

    def _repr_html_(self) -> str | None:
        if self.format != "webp":
            return None
        encoded = base64.b64encode(self.content).decode()
        return f'<img src="data:image/webp;base64,{encoded}">'
