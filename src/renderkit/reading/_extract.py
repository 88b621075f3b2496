"""From a rendered DOM to the page's main content and metadata: pure, synchronous, offline.

The DOM is untrusted HTML. It is parsed here by lxml's HTML parser with the network off,
comments and processing instructions dropped and libxml2's size limits kept
(``huge_tree=False``); the parser loads no DTD and resolves no external entity. Nothing here
fetches anything: links are made absolute as text, and trafilatura gets the parsed tree,
never a URL to download. The caller bounds the input (``MAX_DOM_CHARS``, enforced in the
browser) and this module bounds the output.
"""

from __future__ import annotations

from importlib.metadata import version
from urllib.parse import urljoin, urlsplit

import attrs
from lxml import etree
from lxml import html as lxml_html

from renderkit.reading._models import PageMetadata

__all__ = ["Extracted", "extract_page", "extractor_version", "page_metadata"]

#: Open Graph properties holding URLs, made absolute like the page's links.
_OG_URLS = frozenset({"url", "image", "image:url", "image:secure_url", "video", "audio"})

#: Schemes a kept link may have; others (javascript:, data:...) lose their target.
_LINK_SCHEMES = frozenset({"http", "https", "mailto"})


@attrs.frozen(kw_only=True)
class Extracted:
    """The main content in the asked format, the metadata, and what went wrong on the way."""

    content: str
    metadata: PageMetadata
    warnings: tuple[str, ...] = ()


def extractor_version() -> str:
    """The extractor and its version, part of every cached read's key."""
    return f"trafilatura-{version('trafilatura')}"


def extract_page(html: bytes, *, base_url: str, format: str, max_chars: int) -> Extracted:
    """The main content of ``html`` (a rendered DOM, UTF-8) as ``format``, and its metadata.

    Args:
        html: the serialised DOM.
        base_url: the page's final URL: relative links and the canonical URL resolve
            against it (or against the page's ``<base href>``).
        format: markdown, html or text.
        max_chars: the longest content answered; longer is cut at a line end, with a
            warning.
    """
    # Imported on first use: a fifth of a second that `import renderkit` need not pay.
    import trafilatura

    tree = _parse(html)
    if tree is None:
        return Extracted(content="", metadata=PageMetadata(), warnings=(_NOTHING,))
    tree.make_links_absolute(base_url, resolve_base_href=True, handle_failures="discard")
    metadata = page_metadata(tree, base_url=base_url)
    _drop_unsafe_links(tree)
    text = trafilatura.extract(
        tree,
        url=base_url,
        output_format="txt" if format == "text" else format,
        include_comments=False,
        include_tables=True,
        include_images=format != "text",
        include_links=format != "text",
        include_formatting=format != "text",
        deduplicate=False,
        with_metadata=False,
    )
    warnings: list[str] = []
    content = (text or "").strip()
    if not content:
        warnings.append(_NOTHING)
    if len(content) > max_chars:
        cut = content.rfind("\n", 0, max_chars)
        content = content[: cut if cut > 0 else max_chars]
        warnings.append(f"the content was longer than {max_chars:,} characters and was cut")
    return Extracted(content=content, metadata=metadata, warnings=tuple(warnings))


_NOTHING = "no main content was recognised on the page"


def _parse(html: bytes) -> lxml_html.HtmlElement | None:
    # One parser per call: lxml parsers keep state and this runs on worker threads.
    parser = lxml_html.HTMLParser(
        encoding="utf-8",
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
        default_doctype=False,
    )
    try:
        root = lxml_html.document_fromstring(html, parser=parser)
    except (etree.ParserError, ValueError):
        return None  # an empty or unparseable document has no content
    return root if isinstance(root, lxml_html.HtmlElement) else None


def page_metadata(tree: lxml_html.HtmlElement, *, base_url: str) -> PageMetadata:
    """Title, description, canonical URL, language and Open Graph properties of ``tree``
    (its links already absolute; Open Graph URLs resolve against ``base_url``)."""
    og: dict[str, str] = {}
    named: dict[str, str] = {}
    for meta in tree.iter("meta"):
        content = _clean(meta.get("content"))
        if content is None:
            continue
        prop = (meta.get("property") or "").strip().lower()
        if prop.startswith("og:") and len(prop) > 3:
            key = prop[3:]
            og.setdefault(key, urljoin(base_url, content) if key in _OG_URLS else content)
        name = (meta.get("name") or meta.get("http-equiv") or "").strip().lower()
        if name:
            named.setdefault(name, content)
    title = og.get("title") or _clean(tree.findtext(".//title"))
    canonical = None
    for link in tree.iter("link"):
        rels = (link.get("rel") or "").lower().split()
        href = _clean(link.get("href"))
        if "canonical" in rels and href and urlsplit(href).scheme in ("http", "https"):
            canonical = href
            break
    language = _clean(tree.get("lang")) or named.get("content-language")
    return PageMetadata(
        title=title,
        description=named.get("description") or og.get("description"),
        canonical_url=canonical,
        language=language,
        og=og,
    )


def _drop_unsafe_links(tree: lxml_html.HtmlElement) -> None:
    for anchor in tree.iter("a"):
        href = anchor.get("href")
        if href is not None and urlsplit(href).scheme.lower() not in _LINK_SCHEMES:
            del anchor.attrib["href"]


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    text = " ".join(value.split())
    return text[:2_000] or None
