"""SHA-1 (FIPS 180-4) block function, written as small helper functions."""

from __future__ import annotations

import struct
from typing import Callable, List, Tuple

from variants._tables import MASK32, SHA1_K

State = Tuple[int, ...]
RoundFunction = Callable[[int, int, int], int]


def rotate_left(x: int, n: int) -> int:
    """ROTL^n(x) on a 32-bit word (FIPS 180-4, 3.2)."""
    return ((x << n) | (x >> (32 - n))) & MASK32


def ch(x: int, y: int, z: int) -> int:
    """Ch(x, y, z), f_t for rounds 0-19, FIPS 180-4 (4.1)."""
    return (x & y) ^ (~x & z)


def parity(x: int, y: int, z: int) -> int:
    """Parity(x, y, z), f_t for rounds 20-39 and 60-79, FIPS 180-4 (4.1)."""
    return x ^ y ^ z


def maj(x: int, y: int, z: int) -> int:
    """Maj(x, y, z), f_t for rounds 40-59, FIPS 180-4 (4.1)."""
    return (x & y) ^ (x & z) ^ (y & z)


def load_words(block: memoryview) -> Tuple[int, ...]:
    """The 16 big-endian 32-bit words of one 64-byte block."""
    return struct.unpack(">16I", block)


def message_schedule(block: memoryview) -> List[int]:
    """W[0..79], FIPS 180-4 6.1.2 step 1."""
    w = list(load_words(block))
    for t in range(16, 80):
        w.append(rotate_left(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1))
    return w


def _rounds() -> Tuple[Tuple[RoundFunction, int], ...]:
    """For each of the 80 rounds: f_t and K_t, FIPS 180-4 (4.1) and 4.2.1."""
    functions = (ch, parity, maj, parity)
    return tuple((functions[t // 20], SHA1_K[t // 20]) for t in range(80))


ROUNDS = _rounds()


def round_step(working: State, f: RoundFunction, k: int, w: int) -> State:
    """One of the 80 rounds, FIPS 180-4 6.1.2 step 3."""
    a, b, c, d, e = working
    t = (rotate_left(a, 5) + f(b, c, d) + e + k + w) & MASK32
    return (t, a, rotate_left(b, 30), c, d)


def compress_block(state: State, block: memoryview) -> State:
    """Process one 64-byte block."""
    working = state
    for (f, k), w in zip(ROUNDS, message_schedule(block)):
        working = round_step(working, f, k, w)
    return tuple((s + v) & MASK32 for s, v in zip(state, working))


def compress(state: State, data: memoryview) -> State:
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    for offset in range(0, len(data), 64):
        state = compress_block(state, data[offset : offset + 64])
    return state
