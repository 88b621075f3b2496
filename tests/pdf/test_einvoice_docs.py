"""The e-invoice guide's example is the sample the tests validate."""

from __future__ import annotations

import json
import re
from pathlib import Path

from renderkit.demo import EINVOICE_SAMPLE

GUIDE = Path(__file__).parents[2] / "docs" / "einvoices.md"


def test_the_guides_factur_x_request_is_the_validated_sample() -> None:
    match = re.search(r"```json\n(.*?)\n```", GUIDE.read_text(encoding="utf-8"), re.S)

    assert match is not None
    assert json.loads(match.group(1)) == EINVOICE_SAMPLE
