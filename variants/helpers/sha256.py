"""SHA-256 (FIPS 180-4) block function, written as small helper functions."""

from __future__ import annotations

import struct
from typing import List, Tuple

from variants._tables import MASK32, SHA256_K

State = Tuple[int, ...]


def rotate_right(x: int, n: int) -> int:
    """ROTR^n(x) on a 32-bit word (FIPS 180-4, 3.2)."""
    return ((x >> n) | (x << (32 - n))) & MASK32


def ch(x: int, y: int, z: int) -> int:
    """Ch(x, y, z), FIPS 180-4 (4.2)."""
    return (x & y) ^ (~x & z)


def maj(x: int, y: int, z: int) -> int:
    """Maj(x, y, z), FIPS 180-4 (4.3)."""
    return (x & y) ^ (x & z) ^ (y & z)


def big_sigma0(x: int) -> int:
    """Σ0(x), FIPS 180-4 (4.4)."""
    return rotate_right(x, 2) ^ rotate_right(x, 13) ^ rotate_right(x, 22)


def big_sigma1(x: int) -> int:
    """Σ1(x), FIPS 180-4 (4.5)."""
    return rotate_right(x, 6) ^ rotate_right(x, 11) ^ rotate_right(x, 25)


def small_sigma0(x: int) -> int:
    """σ0(x), FIPS 180-4 (4.6)."""
    return rotate_right(x, 7) ^ rotate_right(x, 18) ^ (x >> 3)


def small_sigma1(x: int) -> int:
    """σ1(x), FIPS 180-4 (4.7)."""
    return rotate_right(x, 17) ^ rotate_right(x, 19) ^ (x >> 10)


def load_words(block: memoryview) -> Tuple[int, ...]:
    """The 16 big-endian 32-bit words of one 64-byte block."""
    return struct.unpack(">16I", block)


def message_schedule(block: memoryview) -> List[int]:
    """W[0..63], FIPS 180-4 6.2.2 step 1."""
    w = list(load_words(block))
    for t in range(16, 64):
        w.append((small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16]) & MASK32)
    return w


def round_step(working: State, k: int, w: int) -> State:
    """One of the 64 rounds, FIPS 180-4 6.2.2 step 3."""
    a, b, c, d, e, f, g, h = working
    t1 = (h + big_sigma1(e) + ch(e, f, g) + k + w) & MASK32
    t2 = (big_sigma0(a) + maj(a, b, c)) & MASK32
    return ((t1 + t2) & MASK32, a, b, c, (d + t1) & MASK32, e, f, g)


def compress_block(state: State, block: memoryview) -> State:
    """Process one 64-byte block."""
    working = state
    for k, w in zip(SHA256_K, message_schedule(block)):
        working = round_step(working, k, w)
    return tuple((s + v) & MASK32 for s, v in zip(state, working))


def compress(state: State, data: memoryview) -> State:
    """Process ``data``, a whole number of 64-byte blocks, from ``state``."""
    for offset in range(0, len(data), 64):
        state = compress_block(state, data[offset : offset + 64])
    return state
