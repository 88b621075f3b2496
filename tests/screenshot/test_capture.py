"""screenshot() through a real Chromium against pages served on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from renderkit import (
    BlockedUrlError,
    InvalidRequestError,
    NavigationError,
    screenshot,
)
from renderkit.browser import BrowserConfig, ChromiumPool
from tests._server import LocalServer, serve
from tests.conftest import open_image, png_bytes

pytestmark = [pytest.mark.anyio, pytest.mark.browser]

PAGE = b"""<!doctype html><html><head><style>
  body { margin: 0; background: rgb(255, 255, 255); }
  @media (prefers-color-scheme: dark) { body { background: rgb(0, 0, 0); } }
  #box { width: 300px; height: 100px; margin: 50px; background: rgb(0, 200, 0); }
</style></head><body><div id="box"></div><p>Hello</p></body></html>"""

LONG = b"""<!doctype html><html><body style="margin:0">
<div style="height:4000px;background:linear-gradient(#fff,#00f)"></div>
<img loading="lazy" src="/lazy.png" width="64" height="64">
</body></html>"""

LATE = b"""<!doctype html><html><body style="margin:0;background:rgb(255,0,0)">
<script>setTimeout(() => { document.body.style.background = 'rgb(0,0,255)'; }, 800);</script>
</body></html>"""

# A script inside a declarative shadow root: the page has no script in its light DOM. It
# fetches after the load event, and only the answer (300 ms later) turns the page blue.
SHADOWED = b"""<!doctype html><html><body style="margin:0;background:rgb(255,0,0)">
<div><template shadowrootmode="open"><script>
addEventListener('load', () => setTimeout(() => fetch('/slow').then(() => {
  document.body.style.background = 'rgb(0,0,255)';
}), 20));
</script></template></div></body></html>"""


def _slow(handler: object) -> tuple[int, str, bytes]:
    time.sleep(0.3)
    return (200, "text/plain", b"ok")


@pytest.fixture
def site(http_server: LocalServer) -> LocalServer:
    http_server.routes.update(
        {
            "/": (200, "text/html", PAGE),
            "/long": (200, "text/html", LONG),
            "/lazy.png": (200, "image/png", png_bytes((64, 64))),
            "/late": (200, "text/html", LATE),
            "/shadowed": (200, "text/html", SHADOWED),
            "/slow": _slow,
            "/gone": (404, "text/html", b"<h1>Not here</h1>"),
        }
    )
    return http_server


@pytest.mark.parametrize(
    ("device", "size"),
    [
        ("desktop", (1280, 800)),
        ("laptop", (1440, 900)),
        ("tablet", (768, 1024)),
        ("mobile", (1170, 2532)),
    ],
)
async def test_each_device_gives_its_pixel_size(
    pool: ChromiumPool, site: LocalServer, device: str, size: tuple[int, int]
) -> None:
    result = await screenshot({"url": site.url("/"), "device": device}, browser=pool)
    assert open_image(result.content).size == size == (result.width, result.height)
    assert result.device == device
    assert result.http_status == 200


async def test_viewport_overrides_the_device(pool: ChromiumPool, site: LocalServer) -> None:
    result = await screenshot(
        {"url": site.url("/"), "device": "mobile", "viewport": {"width": 500, "height": 400}},
        browser=pool,
    )
    assert open_image(result.content).size == (1500, 1200)  # mobile keeps its 3x ratio


async def test_full_page_is_taller_than_the_viewport_and_loads_lazy_images(
    pool: ChromiumPool, site: LocalServer
) -> None:
    result = await screenshot({"url": site.url("/long"), "fullPage": True}, browser=pool)
    width, height = open_image(result.content).size
    assert width == 1280
    assert height > 4000
    assert result.full_page is True
    assert "/lazy.png" in site.hits


async def test_dark_mode_changes_the_page_background(pool: ChromiumPool, site: LocalServer) -> None:
    light = await screenshot({"url": site.url("/")}, browser=pool)
    dark = await screenshot({"url": site.url("/"), "darkMode": True}, browser=pool)
    assert open_image(light.content).convert("RGB").getpixel((1200, 700)) == (255, 255, 255)
    assert open_image(dark.content).convert("RGB").getpixel((1200, 700)) == (0, 0, 0)


async def test_selector_captures_exactly_the_element(pool: ChromiumPool, site: LocalServer) -> None:
    result = await screenshot({"url": site.url("/"), "selector": "#box"}, browser=pool)
    image = open_image(result.content).convert("RGB")
    assert image.size == (300, 100)
    assert image.getpixel((150, 50)) == (0, 200, 0)


async def test_selector_matching_nothing_is_an_invalid_request(
    pool: ChromiumPool, site: LocalServer
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        await screenshot({"url": site.url("/"), "selector": "#nope"}, browser=pool)
    assert info.value.errors[0].field == "selector"
    with pytest.raises(InvalidRequestError):
        await screenshot({"url": site.url("/"), "selector": "[[["}, browser=pool)


async def test_delay_is_honoured(pool: ChromiumPool, site: LocalServer) -> None:
    early = await screenshot({"url": site.url("/late")}, browser=pool)
    late = await screenshot({"url": site.url("/late"), "delay": 1500}, browser=pool)
    assert open_image(early.content).convert("RGB").getpixel((10, 10)) == (255, 0, 0)
    assert open_image(late.content).convert("RGB").getpixel((10, 10)) == (0, 0, 255)


async def test_a_script_in_a_shadow_root_gets_the_quiet_window_of_a_page_with_scripts(
    pool: ChromiumPool, site: LocalServer
) -> None:
    # Taken for a static page, it would be captured right after its load event, red.
    result = await screenshot({"url": site.url("/shadowed")}, browser=pool)
    assert open_image(result.content).convert("RGB").getpixel((10, 10)) == (0, 0, 255)
    assert "/slow" in site.hits


@pytest.mark.parametrize(
    ("fmt", "magic"), [("jpeg", b"\xff\xd8"), ("webp", b"RIFF"), ("pdf", b"%PDF-")]
)
async def test_other_formats(pool: ChromiumPool, site: LocalServer, fmt: str, magic: bytes) -> None:
    result = await screenshot({"url": site.url("/"), "format": fmt}, browser=pool)
    assert result.content.startswith(magic)
    assert result.format == fmt


async def test_error_pages_are_captured_and_flagged(pool: ChromiumPool, site: LocalServer) -> None:
    result = await screenshot({"url": site.url("/gone")}, browser=pool)
    assert result.http_status == 404
    assert any("404" in w for w in result.warnings)
    assert result.source_url == site.url("/gone")


async def test_unreachable_page_is_a_navigation_error(pool: ChromiumPool) -> None:
    with pytest.raises(NavigationError):
        await screenshot({"url": "http://127.0.0.1:9/"}, browser=pool)


async def test_ad_requests_never_reach_their_host() -> None:
    with serve() as ads, serve() as site:
        ads.routes["/tag.js"] = (200, "text/javascript", b"document.title='ad'")
        site.routes["/"] = (
            200,
            "text/html",
            (
                f"<html><body><script src='http://securepubads.g.doubleclick.net:{ads.port}"
                "/tag.js'></script><p>content</p></body></html>"
            ).encode(),
        )
        # Point the ad network's hostname at the local "ad server".
        rules = "--host-resolver-rules=MAP securepubads.g.doubleclick.net 127.0.0.1"
        config = BrowserConfig(slots=1, allow_private_network=True, extra_args=(rules,))
        async with ChromiumPool(config) as pool:
            await screenshot({"url": site.url("/")}, browser=pool)
            assert ads.hits == ["/tag.js"], "without blocking the ad host is reached"
            ads.hits.clear()
            await screenshot({"url": site.url("/"), "blockAds": True}, browser=pool)
            assert ads.hits == []


# -- SSRF: the private-target setting off --------------------------------------------------


@pytest.fixture
async def strict_pool() -> AsyncIterator[ChromiumPool]:
    # 127.0.0.2 plays a public site; everything else private stays forbidden.
    config = BrowserConfig(slots=1, allow_networks=("127.0.0.2/32",))
    async with ChromiumPool(config) as pool:
        yield pool


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost/",
        "http://[::1]/",
        "http://169.254.169.254/latest",
        "http://10.0.0.1/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
        "chrome://version",
    ],
)
async def test_private_and_non_http_targets_are_refused(
    strict_pool: ChromiumPool, url: str
) -> None:
    with pytest.raises((BlockedUrlError, InvalidRequestError)):
        await screenshot({"url": url}, browser=strict_pool)


async def test_redirect_to_a_private_address_is_refused(strict_pool: ChromiumPool) -> None:
    with serve() as private, serve(LocalServer(host="127.0.0.2")) as public:
        private.routes["/secret"] = (200, "text/plain", b"secret")

        def redirect(handler: object) -> None:
            handler.send_response(302)
            handler.send_header("Location", private.url("/secret"))
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        public.routes["/go"] = redirect
        started = time.monotonic()
        with pytest.raises(BlockedUrlError):
            await screenshot({"url": public.url("/go")}, browser=strict_pool)
        assert time.monotonic() - started < 10
        assert private.hits == []
        assert public.hits == ["/go"]


@pytest.mark.parametrize(
    ("page_script", "body"),
    [
        ("location = 'http://10.0.0.1/'", {}),
        (
            "onload = () => setTimeout(() => { location = 'http://127.0.0.1:9/'; }, 10)",
            {"delay": 300},
        ),
        ("", {"scripts": "location = 'http://10.0.0.1/'", "delay": 200}),
    ],
    ids=["inline-private", "after-load-loopback", "scripts-field"],
)
async def test_a_page_navigating_itself_to_a_private_address_is_refused_naming_the_url(
    strict_pool: ChromiumPool, page_script: str, body: dict[str, object]
) -> None:
    # Before, the capture failed on Chromium's error page with a 500 RENDER_FAILED (or
    # silently captured that error page).
    with serve(LocalServer(host="127.0.0.2")) as public:
        public.routes["/"] = (200, "text/html", f"<script>{page_script}</script>".encode())
        with pytest.raises(BlockedUrlError) as info:
            await screenshot({"url": public.url("/"), **body}, browser=strict_pool)
    assert info.value.field == "url"
    assert "navigated itself" in str(info.value)


async def test_subresources_to_private_addresses_are_blocked(strict_pool: ChromiumPool) -> None:
    with serve() as private, serve(LocalServer(host="127.0.0.2")) as public:
        private.routes["/pixel.png"] = (200, "image/png", png_bytes())
        public.routes["/"] = (
            200,
            "text/html",
            (
                f"<html><body><img src='{private.url('/pixel.png')}'>"
                f"<script>fetch('{private.url('/api')}')</script></body></html>"
            ).encode(),
        )
        result = await screenshot({"url": public.url("/")}, browser=strict_pool)
    assert result.http_status == 200
    assert private.hits == []
    assert any("blocked" in w for w in result.warnings)


def _self_signed(tmp_path) -> tuple[str, str]:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.2")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


async def test_https_pages_load_through_the_egress_proxy_tunnel(tmp_path) -> None:
    import ssl

    cert, key = _self_signed(tmp_path)
    with serve(LocalServer(host="127.0.0.2")) as site:
        site.routes["/"] = (
            200,
            "text/html",
            b"<body style='margin:0;background:#00ff00'>tls</body>",
        )
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        site.wrap(context)
        config = BrowserConfig(
            slots=1, allow_networks=("127.0.0.2/32",), extra_args=("--ignore-certificate-errors",)
        )
        async with ChromiumPool(config) as pool:
            result = await screenshot({"url": f"https://127.0.0.2:{site.port}/"}, browser=pool)
    assert result.http_status == 200
    assert open_image(result.content).convert("RGB").getpixel((600, 400)) == (0, 255, 0)


async def test_a_page_printing_past_the_page_cap_is_refused_naming_url(
    pool: ChromiumPool, http_server: LocalServer
) -> None:
    pages = "".join(f'<p style="break-after: page">page {n}</p>' for n in range(12))
    http_server.routes["/many"] = (200, "text/html", f"<html><body>{pages}</body></html>".encode())
    request = {"url": http_server.url("/many"), "format": "pdf"}
    with pytest.raises(InvalidRequestError) as info:
        await screenshot(request, browser=pool, max_pages=5)
    assert info.value.errors[0].field == "url"
    assert "more than 5 pages" in info.value.errors[0].message
    within = await screenshot(request, browser=pool, max_pages=12)
    assert any("12 pages" in w for w in within.warnings)
