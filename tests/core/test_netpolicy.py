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


async def test_resolve_returns_the_checked_addresses_a_caller_connects_to() -> None:
    allowed = UrlPolicy(allow_private=True)
    addresses = {str(a) for a in await allowed.resolve("http://localhost:9/hook")}
    assert addresses <= {"127.0.0.1", "::1"} and addresses
    assert [str(a) for a in await UrlPolicy().resolve("https://8.8.8.8/")] == ["8.8.8.8"]
    narrow = UrlPolicy(allow_networks=("127.0.0.0/8",))
    assert [str(a) for a in await narrow.resolve("http://127.0.0.2/")] == ["127.0.0.2"]


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/", "http://localhost/", "http://169.254.169.254/", "data:,x"]
)
async def test_resolve_refuses_what_check_refuses_and_anything_without_an_address(
    url: str,
) -> None:
    with pytest.raises(BlockedUrlError):
        await UrlPolicy().resolve(url, field="webhook_url")
