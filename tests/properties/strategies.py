"""Hypothesis strategies shared by the property tests: JSON-ish values and mutated requests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: Scalars a JSON decoder can produce, plus a few that only Python callers can pass.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)

#: Arbitrary JSON-like values, nested a few levels.
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


#: Field names a client might send: real ones, near misses and junk.
def field_names(known: list[str]) -> st.SearchStrategy[str]:
    """Known names, their case variants, and arbitrary short strings."""
    return st.sampled_from(known) | st.sampled_from(known).map(str.lower) | st.text(max_size=12)


def request_dicts(known: list[str], valid: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid request with some fields replaced, added or removed at random."""
    return st.builds(
        _mutate,
        st.just(valid),
        st.dictionaries(field_names(known), json_values, max_size=4),
        st.lists(st.sampled_from(sorted(valid)), max_size=2),
    )


def _mutate(valid: dict[str, Any], changes: dict[str, Any], drop: list[str]) -> dict[str, Any]:
    out = {k: v for k, v in valid.items() if k not in drop}
    out.update(changes)
    return out
