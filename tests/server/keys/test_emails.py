from __future__ import annotations

import pytest

from renderkit import InvalidRequestError
from renderkit_server.keys import KeyService, normalize_email


@pytest.mark.anyio
@pytest.mark.parametrize(
    "email",
    [
        "",
        "   ",
        "plainaddress",
        "@example.com",
        "a@",
        "a@localhost",
        "a@127.0.0.1",
        "a..b@example.com",
        ".a@example.com",
        "a.@example.com",
        "a b@example.com",
        '"quoted"@example.com',
        "a@-example.com",
        "a@example-.com",
        "a@exa_mple.com",
        "a@example..com",
        "a@example.com\r\nBcc: victim@example.com",
        "x" * 65 + "@example.com",
        "a@" + "b" * 64 + ".com",
        "a@" + ".".join(["b" * 60] * 5) + ".com",
        "ünïcode@example.com",
        42,
        None,
    ],
)
async def test_invalid_email_is_rejected_naming_the_field(
    service: KeyService, email: object
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        await service.issue(email, "pro")  # type: ignore[arg-type]

    assert [e.field for e in info.value.errors] == ["email"]


@pytest.mark.parametrize(
    ("email", "normalized"),
    [
        ("Alice@Example.COM", "Alice@example.com"),
        ("  bob@example.org  ", "bob@example.org"),
        ("c.d+tag@Sub.Example.co.uk.", "c.d+tag@sub.example.co.uk"),
        ("o'neil@example.com", "o'neil@example.com"),
        ("user@Bücher.example", "user@xn--bcher-kva.example"),
    ],
)
def test_email_is_normalised(email: str, normalized: str) -> None:
    assert normalize_email(email) == normalized


def test_email_of_254_characters_is_accepted_and_255_is_not() -> None:
    domain = ".".join(["d" * 63, "d" * 63, "d" * 63]) + ".com"  # 195 characters
    local = "l" * (254 - 1 - len(domain))

    assert len(normalize_email(f"{local}@{domain}")) == 254
    with pytest.raises(InvalidRequestError):
        normalize_email(f"{local}x@{domain}")
