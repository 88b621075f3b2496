"""The extraction step alone: untrusted HTML in, main content and metadata out, offline."""

from __future__ import annotations

from renderkit.reading._extract import extract_page, extractor_version

BASE = "https://news.example/section/story"


def test_relative_links_resolve_against_the_final_url_and_script_links_lose_their_target() -> None:
    html = (
        b"<html><body><article><h1>Title of the story</h1><p>A paragraph long enough to be "
        b"kept as content, with <a href='../other'>a relative link</a> and "
        b"<a href='javascript:alert(1)'>a script link</a> in the middle of it.</p>"
        b"</article></body></html>"
    )
    got = extract_page(html, base_url=BASE, format="markdown", max_chars=10_000)
    assert "[a relative link](https://news.example/other)" in got.content
    assert "javascript:" not in got.content
    assert "a script link" in got.content


def test_external_entities_are_never_resolved() -> None:
    html = (
        b'<!DOCTYPE html [<!ENTITY leak SYSTEM "file:///etc/passwd">]><html><body><article>'
        b"<p>Before the entity, a paragraph long enough to be kept as the main content.</p>"
        b"<p>&leak;</p></article></body></html>"
    )
    got = extract_page(html, base_url=BASE, format="text", max_chars=10_000)
    assert "root:" not in got.content
    assert "Before the entity" in got.content


def test_a_page_without_content_answers_empty_with_a_warning() -> None:
    for html in (b"", b"<html><body><script>start()</script></body></html>"):
        got = extract_page(html, base_url=BASE, format="markdown", max_chars=10_000)
        assert got.content == ""
        assert got.warnings == ("no main content was recognised on the page",)


def test_metadata_prefers_open_graph_title_and_the_html_lang() -> None:
    html = (
        b'<html lang="de"><head><title>Plain title</title><meta property="og:title" '
        b'content="OG title"><meta property="og:title" content="second"><meta '
        b'property="og:description" content="OG description"><link rel="canonical" '
        b'href="javascript:x"></head><body></body></html>'
    )
    got = extract_page(html, base_url=BASE, format="markdown", max_chars=10_000).metadata
    assert (got.title, got.description, got.language) == ("OG title", "OG description", "de")
    assert got.canonical_url is None  # only an http(s) canonical URL is answered
    assert got.og == {"title": "OG title", "description": "OG description"}


def test_the_extractor_version_names_trafilatura() -> None:
    assert extractor_version().startswith("trafilatura-2.")
