"""Page ranges: ``1-3,5,8-`` expanded against a page count; any text is a value or a 400."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderkit import InvalidRequestError
from renderkit.pdfops._ranges import expand, range_problem


def test_ranges_expand_in_the_order_written_with_open_ends() -> None:
    assert expand("1-3,5,8-", 10, field="pages") == [0, 1, 2, 4, 7, 8, 9]
    assert expand("-2,2", 4, field="pages") == [0, 1, 1]
    assert expand(None, 3, field="pages") == [0, 1, 2]


@pytest.mark.parametrize(
    ("text", "problem"),
    [("0", "from 1"), ("3-1", "backwards"), ("1 2", "not a page range"), ("", "not a page")],
)
def test_malformed_ranges_are_explained(text: str, problem: str) -> None:
    assert problem in (range_problem(text) or "")


@given(text=st.text(alphabet="0123456789-, x", max_size=30), pages=st.integers(1, 60))
def test_any_text_is_either_pages_of_the_document_or_an_invalid_request(
    text: str, pages: int
) -> None:
    if range_problem(text) is not None:
        with pytest.raises(InvalidRequestError) as caught:
            expand(text, pages, field="pages")
        assert caught.value.errors[0].field == "pages"
        return
    numbers = [int(n) for n in text.replace("-", ",").split(",") if n.strip()]
    if max(numbers, default=0) > pages:  # well formed, but past the end
        with pytest.raises(InvalidRequestError, match="the document has"):
            expand(text, pages, field="pages")
        return
    assert all(0 <= index < pages for index in expand(text, pages, field="pages"))
