"""measure_json: the depth and item count of a JSON text, the same whatever its chunking."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderkit_server.jsonshape import JsonShape, measure_json

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.sampled_from('ab"\\[]{},:')),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet=st.sampled_from('k"\\[:,')), children, max_size=3)
    ),
    max_leaves=20,
)


def _shape(value: object) -> JsonShape:
    """The shape counted on the decoded value: brackets, commas and colons json.dumps writes."""
    if isinstance(value, list):
        inner = [_shape(item) for item in value]
        items = 1 + max(len(value) - 1, 0) + sum(shape.items for shape in inner)
        return JsonShape(depth=1 + max((s.depth for s in inner), default=0), items=items)
    if isinstance(value, dict):
        inner = [_shape(item) for item in value.values()]
        items = 1 + max(len(value) - 1, 0) + len(value) + sum(shape.items for shape in inner)
        return JsonShape(depth=1 + max((s.depth for s in inner), default=0), items=items)
    return JsonShape(depth=0, items=0)


@settings(max_examples=300, deadline=None)
@given(value=_values, chunk_bytes=st.integers(min_value=1, max_value=40))
def test_the_shape_is_exact_for_any_json_whatever_the_chunk_size(
    value: object, chunk_bytes: int
) -> None:
    text = json.dumps(value).encode()
    assert measure_json(text, chunk_bytes=chunk_bytes) == _shape(value)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        (b'"\\\\"[1]', JsonShape(depth=1, items=1)),  # an escaped backslash ends no string
        (b'"\\"[1]', JsonShape(depth=0, items=0)),  # an escaped quote does not end it
        (b'"[[[', JsonShape(depth=0, items=0)),  # an unterminated string runs to the end
        (b"[[\\", JsonShape(depth=2, items=2)),  # a lone backslash at the end is ignored
    ],
)
def test_strings_and_escapes_hide_structure_across_chunk_boundaries(
    text: bytes, shape: JsonShape
) -> None:
    for chunk_bytes in range(1, len(text) + 1):
        assert measure_json(text, chunk_bytes=chunk_bytes) == shape


def test_measuring_stops_once_a_limit_is_exceeded() -> None:
    deep = b"[" * 1_000_000
    assert measure_json(deep, max_depth=64).depth < 100_000
    assert measure_json(b"," * 1_000_000, max_items=10).items < 100_000


def test_between_chunks_runs_after_every_chunk() -> None:
    calls: list[int] = []
    measure_json(b"x" * 100, between_chunks=lambda: calls.append(1), chunk_bytes=10)
    assert len(calls) == 10


@pytest.mark.parametrize(
    "unit", [b'\\"', b'"', b"\\", b"[", b"[],", b'"k":1,', b"\\u0000", b"\xff"], ids=repr
)
def test_measuring_time_grows_linearly_with_any_repeated_bytes(unit: bytes) -> None:
    def seconds(size: int) -> float:
        text = unit * (size // len(unit))
        best = float("inf")
        for _ in range(3):
            # CPU time of this thread: on a loaded machine wall time mostly measures how long
            # the scheduler kept the thread waiting, which says nothing about the algorithm.
            started = time.thread_time()
            measure_json(text)
            best = min(best, time.thread_time() - started)
        return best

    small, large = seconds(64 * 1024), seconds(16 * 64 * 1024)
    # 16 times the bytes: linear is about 16 times the time, quadratic 256 times.
    assert large < 64 * small + 0.05, (small, large)
