"""Finding ``$ref`` cycles in a JSON Schema before anything validates against it.

A validator follows ``$ref`` and the in-place applicators (``allOf``, ``not``, ``if``...) on
the same value; only keywords such as ``properties`` or ``items`` move on to a part of the
value. A loop of the first kind (``{"$ref": "#"}``, or a property referring to itself) never
ends, whatever the data, and in ``jsonschema`` ends in a ``RecursionError`` only when the data
happens to reach it. Recursive schemas that descend (a tree whose ``children`` refer back to
the node) are fine and are not reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

__all__ = ["ref_cycle"]

# Keywords whose subschemas apply to the same value as the schema holding them.
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas", "dependencies")
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


def ref_cycle(schema: Mapping[str, Any]) -> str | None:
    """The location of a ``$ref`` cycle in ``schema`` that never moves on to part of the value.

    Only references within the document (``#``, ``#/json/pointer``) are followed; others
    cannot loop back into it without a resolver, and validation reports them itself.

    Args:
        schema: the schema document.

    Returns:
        A JSON pointer (``#/properties/a``) to a schema on the cycle, or None when there is
        none. Linear in the size of the schema, without recursion.
    """
    nodes: dict[int, tuple[str, Mapping[str, Any]]] = {}
    for pointer, node in _schemas(schema):
        nodes[id(node)] = (pointer, node)
    # Iterative depth-first search over the in-place edges: grey nodes are on the stack.
    state: dict[int, int] = {}  # 1 on the stack, 2 done
    for start in nodes:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(_next(nodes[start][1], schema)))]
        while stack:
            current, edges = stack[-1]
            following = next(edges, None)
            if following is None:
                state[current] = 2
                stack.pop()
                continue
            key = id(following)
            if key not in nodes:
                continue
            if state.get(key) == 1:
                return nodes[key][0]
            if key not in state:
                state[key] = 1
                stack.append((key, iter(_next(following, schema))))
    return None


def _schemas(schema: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every object in the document, with its pointer (subschemas and plain values alike)."""
    pending: list[tuple[str, Any]] = [("#", schema)]
    while pending:
        pointer, value = pending.pop()
        if isinstance(value, Mapping):
            yield pointer, value
            pending.extend((f"{pointer}/{_escape(str(k))}", v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((f"{pointer}/{n}", v) for n, v in enumerate(value))


def _next(node: Mapping[str, Any], root: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The schemas validated against the same value right after ``node`` (objects only:
    boolean schemas end a path)."""
    for candidate in _candidates(node, root):
        if isinstance(candidate, Mapping):
            yield candidate


def _candidates(node: Mapping[str, Any], root: Mapping[str, Any]) -> Iterator[Any]:
    for keyword in _REFERENCES:
        reference = node.get(keyword)
        if isinstance(reference, str):
            target = _resolve(root, reference)
            if target is not None:
                yield target
    for keyword in _IN_PLACE_ONE:
        yield node.get(keyword)
    for keyword in _IN_PLACE_MANY:
        many = node.get(keyword)
        if isinstance(many, list):
            yield from many
    for keyword in _IN_PLACE_MAP:
        mapping = node.get(keyword)
        if isinstance(mapping, Mapping):
            yield from mapping.values()


def _resolve(root: Mapping[str, Any], reference: str) -> Any:
    if not reference.startswith("#"):
        return None
    value: Any = root
    fragment = unquote(reference[1:])
    if not fragment:
        return root
    if not fragment.startswith("/"):
        return None  # a plain-name anchor: not followed
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, Mapping) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")
