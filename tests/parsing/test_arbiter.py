"""The arbiter's wiring: when it is asked, what it sees, and what its answer changes."""

from __future__ import annotations

import anyio
import pytest

from renderkit import ProviderUnavailableError
from renderkit.parsing import (
    Document,
    Line,
    LocalExtractor,
    MemoryArbiter,
    Page,
    Usage,
    Word,
    parse,
)
from renderkit.parsing._models import ParseRequest, ParseResult
from renderkit.parsing.arbiter import ARBITER_CONFIDENCE, Choice, Question, top_rows
from renderkit.parsing.arbiter.base import CONTEXT_CHARS, CONTEXT_ROWS, prompt, read_answer

from ._arbiter_docs import CONTRACT, RECEIPT, SURE, UNSURE, UNSURE_CANDIDATES, UNSURE_LINES
from ._documents import text_pdf

pytestmark = pytest.mark.anyio


async def _parse(pdf: bytes, extractor: LocalExtractor, **request: object) -> ParseResult:
    return await parse(
        ParseRequest.from_bytes(pdf, "application/pdf", **request), extractor=extractor
    )


async def test_the_arbiter_choosing_candidate_2_makes_it_the_field() -> None:
    arbiter = MemoryArbiter([2], usage=Usage(input_tokens=180, output_tokens=1))
    result = await _parse(UNSURE, LocalExtractor(arbiter=arbiter))
    assert result.data["company"] == UNSURE_CANDIDATES[1]
    assert result.field_confidence["company"] == ARBITER_CONFIDENCE
    assert "company: chosen by the arbiter (memory), candidate 2 of 2" in result.warnings
    assert result.usage == Usage(input_tokens=180, output_tokens=1)
    (question,) = arbiter.questions
    assert question.field == "company"
    assert question.candidates == UNSURE_CANDIDATES
    assert question.context == "\n".join(UNSURE_LINES)


async def test_without_an_arbiter_the_rules_choice_is_unchanged() -> None:
    result = await _parse(UNSURE, LocalExtractor())
    assert result.data["company"] == UNSURE_CANDIDATES[0]
    assert result.field_confidence["company"] < 0.8
    assert not any("arbiter" in w for w in result.warnings)
    assert result.usage == Usage()


async def test_the_arbiter_choice_fills_a_schema_property_meaning_the_seller() -> None:
    schema = {"type": "object", "properties": {"vendor": {"type": "string"}}}
    arbiter = MemoryArbiter([2])
    result = await _parse(
        UNSURE, LocalExtractor(arbiter=arbiter), schema=schema, include_provenance=True
    )
    assert result.data == {"vendor": UNSURE_CANDIDATES[1]}
    assert result.provenance is not None
    assert result.provenance["vendor"].text == UNSURE_CANDIDATES[1]


async def test_the_arbiter_is_never_called_when_the_rules_are_confident() -> None:
    arbiter = MemoryArbiter([2])
    result = await _parse(SURE, LocalExtractor(arbiter=arbiter))
    assert arbiter.questions == []
    assert result.data["company"] == "Northvale Ceramics Ltd"
    assert result.field_confidence["company"] >= 0.8
    assert result.usage == Usage()


async def test_a_threshold_of_zero_never_asks_and_one_asks_even_a_sure_name() -> None:
    never = MemoryArbiter([2])
    await _parse(UNSURE, LocalExtractor(arbiter=never, arbiter_threshold=0.0))
    assert never.questions == []
    always = MemoryArbiter([2])
    result = await _parse(SURE, LocalExtractor(arbiter=always, arbiter_threshold=1.0))
    assert result.data["company"] == "Brightfield Lamps Ltd"
    assert always.questions[0].candidates[:2] == ("Northvale Ceramics Ltd", "Brightfield Lamps Ltd")


async def test_a_name_without_a_rival_is_not_asked_about() -> None:
    pdf = text_pdf([["Harbourline Studio", "INVOICE", "Invoice no: 5", "Total: 9.00"]])
    arbiter = MemoryArbiter([1])
    result = await _parse(pdf, LocalExtractor(arbiter=arbiter))
    assert arbiter.questions == []
    assert result.data["company"] == "Harbourline Studio"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("none", "none of them"),
        (0, "none of them"),
        (3, "'3'"),
        ("The seller is Quillmore Paper Supplies", "'The seller is Qu'"),
        ("-1", "'-1'"),
    ],
)
async def test_an_answer_that_is_not_an_offered_number_keeps_the_rules_choice(
    answer: int | str, said: str
) -> None:
    result = await _parse(UNSURE, LocalExtractor(arbiter=MemoryArbiter([answer])))
    assert result.data["company"] == UNSURE_CANDIDATES[0]
    assert result.field_confidence["company"] < ARBITER_CONFIDENCE
    assert f"company: the arbiter answered {said} for 2 candidates; the rules' choice stays" in (
        result.warnings
    )


async def test_a_failing_arbiter_is_a_warning_never_an_error() -> None:
    failure = ProviderUnavailableError("memory could not be reached", provider="memory")
    result = await _parse(UNSURE, LocalExtractor(arbiter=MemoryArbiter([failure])))
    assert result.data["company"] == UNSURE_CANDIDATES[0]
    assert (
        "company: the arbiter failed (memory could not be reached); the rules' choice stays"
        in result.warnings
    )


class _Hanging:
    name = "hanging"

    def __init__(self) -> None:
        self.closed = False

    async def choose(self, question: Question) -> Choice:
        await anyio.Event().wait()  # a server that never answers
        raise AssertionError

    async def aclose(self) -> None:
        self.closed = True


async def test_an_arbiter_past_its_timeout_leaves_the_rules_choice_within_the_timeout() -> None:
    extractor = LocalExtractor(arbiter=_Hanging(), arbiter_timeout=0.2)
    with anyio.fail_after(5):
        result = await _parse(UNSURE, extractor)
    assert result.data["company"] == UNSURE_CANDIDATES[0]
    assert "company: the arbiter did not answer within 0.2 s; the rules' choice stays" in (
        result.warnings
    )


async def test_closing_the_extractor_closes_its_arbiter() -> None:
    arbiter = _Hanging()
    await LocalExtractor(arbiter=arbiter).aclose()
    assert arbiter.closed


def _document(lines: list[str]) -> Document:
    rows = tuple(
        Line(words=(Word(text=text, page=1, bbox=(0.1, 0.01 * n, 0.9, 0.01 * n + 0.01)),), page=1)
        for n, text in enumerate(lines)
    )
    page = Page(number=1, lines=rows, source="text", width=595, height=842)
    return Document(mime_type="application/pdf", content=b"", pages=(page,))


def test_the_context_is_the_first_rows_of_the_first_page() -> None:
    lines = [f"Row {n:02d}" for n in range(40)]
    assert top_rows(_document(lines)) == "\n".join(lines[:CONTEXT_ROWS])


def test_the_context_is_cut_to_the_character_budget() -> None:
    lines = [f"Row {n:02d} " + "x" * 200 for n in range(40)]
    context = top_rows(_document(lines))
    assert len(context) == CONTEXT_CHARS
    assert context == "\n".join(lines)[:CONTEXT_CHARS]


def test_the_prompt_numbers_the_candidates_from_one_on_single_lines() -> None:
    question = Question(
        field="company",
        description="the seller",
        context="Top\nrows",
        candidates=("Harbourline Studio", "Quillmore\nPaper   Supplies", "y" * 200),
    )
    text = prompt(question)
    assert (
        "Candidates:\n1. Harbourline Studio\n2. Quillmore Paper Supplies\n3. " + "y" * 80 + "\n"
        in (text)
    )
    assert "<<<\nTop\nrows\n>>>" in text
    assert "y" * 81 not in text


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("1", 0),
        (" 2\n", 1),
        ("2.", 1),
        ("3", None),
        ("0", None),
        ("none", None),
        ("two", None),
        ("2 or 1", None),
        ("", None),
        ("[2]", None),
    ],
)
def test_an_answer_is_read_strictly(text: str, index: int | None) -> None:
    assert read_answer(text, 2) == index


async def test_a_receipts_shop_name_is_arbitrated_between_its_header_lines() -> None:
    arbiter = MemoryArbiter([2])
    result = await _parse(RECEIPT, LocalExtractor(arbiter=arbiter))
    assert result.document_type == "receipt"
    assert arbiter.questions[0].candidates[:2] == ("Sunny Bakes", "Pinecrest Cafe")
    assert result.data["company"] == "Pinecrest Cafe"


async def test_a_contract_is_never_arbitrated() -> None:
    arbiter = MemoryArbiter([2])
    result = await _parse(CONTRACT, LocalExtractor(arbiter=arbiter))
    assert result.document_type == "contract"
    assert arbiter.questions == []
