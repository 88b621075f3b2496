"""The settings of a :class:`~renderkit.browser.ChromiumPool`, in one frozen model."""

from __future__ import annotations

import attrs

__all__ = ["DEFAULT_CHROMIUM", "BrowserConfig"]

#: The browser a local pool launches: Debian's ``chromium-headless-shell`` (the binary, not a
#: launcher script, so the pool watches and kills Chromium itself). It is Chromium's old
#: headless mode, the one Playwright and Puppeteer run headless by default: no browser window
#: or tab strip is built for each context, which halves a PDF and a fresh-context screenshot
#: against ``/usr/bin/chromium``'s new headless mode (docs/architecture.md, "The headless
#: shell"), with the same pixels (``--font-render-hinting=slight``, see ``_process``).
DEFAULT_CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"


@attrs.frozen(kw_only=True)
class BrowserConfig:
    """Settings of a :class:`ChromiumPool`.

    Attributes:
        executable_path: the Chromium binary for local mode (:data:`DEFAULT_CHROMIUM`; Debian's
            ``/usr/bin/chromium``, new headless mode, works too, at about twice the cost and
            without begin-frame control, which only the headless shell has).
        cdp_url: connect to this existing browser (``ws://`` or ``http://host:port``) instead
            of launching one: remote mode, for a browser fleet.
        slots: renders running at once (one browser context each). About one per core.
        max_queue: renders allowed to wait for a slot; beyond that, BrowserBusyError.
        tenant_queue: renders one tenant (see :meth:`ChromiumPool.for_tenant`) may have
            waiting; beyond that, TenantBusyError.
        queue_timeout: seconds a render may wait for a slot; beyond, BrowserBusyError.
            Like every render budget below, it starts once the browser is up: launching
            (or relaunching) it is bounded by ``launch_timeout`` alone.
        render_timeout: seconds a template render may take once it has its slot.
        document_timeout: seconds a custom document (the caller's HTML) may take.
        screenshot_timeout: seconds a screenshot of a URL may take, plus its requested delay.
        launch_timeout: seconds allowed for launching or connecting to the browser.
        image_timeout: seconds a template waits for its images (e.g. a logo) to load.
        allow_private_network: let pages reach private and loopback addresses.
        allow_networks: CIDR ranges pages may reach even though they are private.
        spare_contexts: fresh contexts kept ready for screenshots and custom documents.
        frame_rate_limit: keep Chromium's 60 Hz frame clock (local mode). Off by default:
            a capture asks for a new frame and then waits for it, and at 60 Hz that wait is
            two or three ticks, ~25 ms of every template render (measured, issue #30).
            Without the limit a frame is drawn as soon as it is asked for; the cost is that a
            page running an animation or a requestAnimationFrame loop draws continuously, a
            whole core while it is open (measured: 4.7 s of CPU in 4 s against 0.3 s). Template
            pages and spares are static; screenshots of animated sites and custom documents
            with animations are what pay. With the clock, a fresh-context screenshot costs
            the browser about a quarter less CPU (on the headless shell, 135-145 against
            195-200 ms, measured), which is why a split pool's page browser always keeps it
            (``split_browsers``); there this setting is the template browser's clock if
            ``begin_frame_capture`` is off (under begin-frame control no clock runs). Set
            True on a one-browser pool that mostly takes screenshots of URLs.
        split_browsers: a local pool runs two Chromiums behind its one fair queue and slot
            count: a *template browser* for the warm template pages (``capture_fragment``,
            ``print_fragment``) and a *page browser* for every fresh context (screenshots of
            URLs and the caller's documents), on the 60 Hz clock. The two want opposite
            frame clocks (see ``frame_rate_limit``), and strangers' pages no longer share a
            browser process with the warm template pages. Costs a second browser process
            (memory: docs/architecture.md, "Two browsers per local pool"). False keeps one
            browser for everything; remote mode (``cdp_url``) always uses one.
        begin_frame_capture: a split pool's template browsers run under begin-frame control
            (``--enable-begin-frame-control``): each draws a frame only when a capture asks
            for one (``HeadlessExperimental.beginFrame``), neither waiting for a clock's tick
            nor drawing frames nobody captures. A browser draws such frames one at a time, so
            each slot gets a template browser of its own (with one warm page). Measured
            against False (docs/architecture.md, "Two browsers per local pool"): 4 clients
            at 2x make 1.35-1.6x the renders per second, a card alone is faster and costs
            Chromium a quarter less CPU; the price is memory, a browser more per slot beyond
            the first (at 2 slots, about 30-80 MiB of PSS more once used; the pool's browsers
            share one Playwright driver). False keeps one template browser drawing on demand
            (its clock is ``frame_rate_limit``).
        extra_args: more Chromium flags (local mode).
        user: the account a locally launched Chromium runs as when the process is root
            (name or uid), with Chromium's sandbox on. ``None`` keeps root, which forces
            ``--no-sandbox`` (logged as a warning). Ignored when not running as root.
    """

    executable_path: str = DEFAULT_CHROMIUM
    cdp_url: str | None = None
    slots: int = attrs.field(default=2, validator=attrs.validators.in_(range(1, 65)))
    max_queue: int = attrs.field(default=64, validator=attrs.validators.ge(0))
    tenant_queue: int = attrs.field(default=4, validator=attrs.validators.ge(0))
    queue_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    render_timeout: float = attrs.field(default=20.0, validator=attrs.validators.gt(0))
    document_timeout: float = attrs.field(default=10.0, validator=attrs.validators.gt(0))
    screenshot_timeout: float = attrs.field(default=12.0, validator=attrs.validators.gt(0))
    launch_timeout: float = attrs.field(default=30.0, validator=attrs.validators.gt(0))
    image_timeout: float = attrs.field(default=5.0, validator=attrs.validators.gt(0))
    allow_private_network: bool = False
    allow_networks: tuple[str, ...] = ()
    spare_contexts: int = attrs.field(default=2, validator=attrs.validators.in_(range(0, 9)))
    frame_rate_limit: bool = False
    split_browsers: bool = True
    begin_frame_capture: bool = True
    extra_args: tuple[str, ...] = ()
    user: str | int | None = "nobody"
