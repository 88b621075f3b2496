"""The URL policy's refusals say what would lift them."""

from __future__ import annotations

import pytest

from renderkit.core.errors import BlockedUrlError
from renderkit.core.netpolicy import UrlPolicy

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/", "http://localhost/", "http://10.1.2.3/"])
async def test_a_private_address_refusal_names_the_switch_and_is_marked_private(url: str) -> None:
    with pytest.raises(BlockedUrlError) as exc:
        await UrlPolicy().check(url)
    assert exc.value.private
    assert "allow_private_network" in str(exc.value)
    await UrlPolicy(allow_private=True).check(url)


async def test_a_forbidden_scheme_is_not_a_private_address_refusal() -> None:
    with pytest.raises(BlockedUrlError) as exc:
        await UrlPolicy(allow_private=True).check("file:///etc/passwd")
    assert not exc.value.private
