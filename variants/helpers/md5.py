"""MD5 (RFC 1321) block function, written as small helper functions."""

from __future__ import annotations

import struct
from typing import Callable, Tuple

from variants._tables import MASK32, MD5_K, MD5_SHIFTS, MD5_WORD_ORDER

State = Tuple[int, ...]
RoundFunction = Callable[[int, int, int], int]


def rotate_left(x: int, n: int) -> int:
    """Rotate the 32-bit word ``x`` left by ``n`` bits."""
    return ((x << n) | (x >> (32 - n))) & MASK32


def f(x: int, y: int, z: int) -> int:
    """Round 1: if x then y else z."""
    return (x & y) | (~x & z)


def g(x: int, y: int, z: int) -> int:
    """Round 2: if z then x else y."""
    return (x & z) | (y & ~z)


def h(x: int, y: int, z: int) -> int:
    """Round 3: parity."""
    return x ^ y ^ z


def i(x: int, y: int, z: int) -> int:
    """Round 4."""
    return y ^ (x | ~z)


def load_words(block: memoryview) -> Tuple[int, ...]:
    """The 16 little-endian 32-bit words of one 64-byte block."""
    return struct.unpack("<16I", block)


def step(func: RoundFunction, a: int, b: int, c: int, d: int, x: int, s: int, t: int) -> int:
    """One MD5 step: b + ((a + func(b, c, d) + x + t) <<< s)."""
    return (b + rotate_left((a + func(b, c, d) + x + t) & MASK32, s)) & MASK32


def _schedule() -> Tuple[Tuple[RoundFunction, int, int, int], ...]:
    """For each of the 64 steps: round function, word index, shift, constant."""
    steps = []
    for n in range(64):
        rnd = n // 16
        start, stride = MD5_WORD_ORDER[rnd]
        func = (f, g, h, i)[rnd]
        steps.append((func, (start + stride * n) % 16, MD5_SHIFTS[rnd][n % 4], MD5_K[n]))
    return tuple(steps)


SCHEDULE = _schedule()


def compress_block(state: State, block: memoryview) -> State:
    """Process one 64-byte block: four rounds of sixteen steps."""
    x = load_words(block)
    a, b, c, d = state
    for func, k, s, t in SCHEDULE:
        a, b, c, d = d, step(func, a, b, c, d, x[k], s, t), b, c
    return (
        (state[0] + a) & MASK32,
        (state[1] + b) & MASK32,
        (state[2] + c) & MASK32,
        (state[3] + d) & MASK32,
    )


def compress(state: State, data: memoryview) -> State:
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    for offset in range(0, len(data), 64):
        state = compress_block(state, data[offset : offset + 64])
    return state
