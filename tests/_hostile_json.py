"""Hostile JSON bodies, each the worst case of one part of reading JSON, at any size: shared
by the body-stall tests (in-thread server) and the adversarial suite (a real server)."""

from __future__ import annotations


def fill(unit: bytes, size: int, *, head: bytes = b"", tail: bytes = b"") -> bytes:
    """``head``, ``unit`` repeated, ``tail``: at most ``size`` bytes in all."""
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


def hostile_bodies(size: int) -> dict[str, bytes]:
    """The hostile shapes at ``size`` bytes each (at most)."""
    return {
        "escaped quotes in an unterminated string": fill(b'\\"', size, head=b'{"email": "'),
        "escaped quotes in a string": fill(b'\\"', size, head=b'{"email": "', tail=b'"}'),
        "quotes": fill(b'"', size),
        "backslashes": fill(b"\\", size),
        "opening brackets": fill(b"[", size),
        "nested arrays": fill(b"[", size // 2) + fill(b"]", size // 2),
        "empty arrays": fill(b"[],", size, head=b"[", tail=b"[]]"),
        "many keys": b"{"
        + b",".join(b'"k%d":0' % n for n in range(size // 16)).ljust(size - 2, b" ")
        + b"}",
        "one long string": fill(b"x", size, head=b'{"email": "', tail=b'"}'),
        "unicode escapes": fill(b"\\u0000", size, head=b'{"email": "', tail=b'"}'),
        "invalid UTF-8 in a string": fill(b"\xff", size, head=b'{"email": "', tail=b'"}'),
    }
