"""SHA-512 (FIPS 180-4) block function, written as small helper functions.

The helpers are named as the JDK's ``sun.security.provider.SHA5`` names them, so that the two
read side by side: ``lf_S`` is ROTR, ``lf_R`` is SHR, ``lf_sigma0``/``lf_sigma1`` are the
rounds' Σ0/Σ1 and ``lf_delta0``/``lf_delta1`` the message schedule's σ0/σ1. The words are 64
bits: above 2**30 an integer is several digits on CPython, and above 2**63 it is no machine
word on PyPy (half of them are).
"""

from __future__ import annotations

import struct
from typing import List, Tuple

from variants._tables import MASK64, SHA512_K

State = Tuple[int, ...]


def lf_ch(x: int, y: int, z: int) -> int:
    """Ch(x, y, z), FIPS 180-4 (4.8)."""
    return (x & y) ^ (~x & z)


def lf_maj(x: int, y: int, z: int) -> int:
    """Maj(x, y, z), FIPS 180-4 (4.9)."""
    return (x & y) ^ (x & z) ^ (y & z)


def lf_R(x: int, s: int) -> int:
    """SHR^s(x), FIPS 180-4 (3.2)."""
    return x >> s


def lf_S(x: int, s: int) -> int:
    """ROTR^s(x) on a 64-bit word, FIPS 180-4 (3.2)."""
    return ((x >> s) | (x << (64 - s))) & MASK64


def lf_sigma0(x: int) -> int:
    """Σ0(x), FIPS 180-4 (4.10)."""
    return lf_S(x, 28) ^ lf_S(x, 34) ^ lf_S(x, 39)


def lf_sigma1(x: int) -> int:
    """Σ1(x), FIPS 180-4 (4.11)."""
    return lf_S(x, 14) ^ lf_S(x, 18) ^ lf_S(x, 41)


def lf_delta0(x: int) -> int:
    """σ0(x), FIPS 180-4 (4.12)."""
    return lf_S(x, 1) ^ lf_S(x, 8) ^ lf_R(x, 7)


def lf_delta1(x: int) -> int:
    """σ1(x), FIPS 180-4 (4.13)."""
    return lf_S(x, 19) ^ lf_S(x, 61) ^ lf_R(x, 6)


def load_words(block: memoryview) -> Tuple[int, ...]:
    """The 16 big-endian 64-bit words of one 128-byte block."""
    return struct.unpack(">16Q", block)


def message_schedule(block: memoryview) -> List[int]:
    """W[0..79], FIPS 180-4 6.4.2 step 1."""
    w = list(load_words(block))
    for t in range(16, 80):
        w.append((lf_delta1(w[t - 2]) + w[t - 7] + lf_delta0(w[t - 15]) + w[t - 16]) & MASK64)
    return w


def round_step(working: State, k: int, w: int) -> State:
    """One of the 80 rounds, FIPS 180-4 6.4.2 step 3."""
    a, b, c, d, e, f, g, h = working
    t1 = (h + lf_sigma1(e) + lf_ch(e, f, g) + k + w) & MASK64
    t2 = (lf_sigma0(a) + lf_maj(a, b, c)) & MASK64
    return ((t1 + t2) & MASK64, a, b, c, (d + t1) & MASK64, e, f, g)


def compress_block(state: State, block: memoryview) -> State:
    """Process one 128-byte block."""
    working = state
    for k, w in zip(SHA512_K, message_schedule(block)):
        working = round_step(working, k, w)
    return tuple((s + v) & MASK64 for s, v in zip(state, working))


def compress(state: State, data: memoryview) -> State:
    """Process ``data``, a whole number of 128-byte blocks, from ``state``."""
    for offset in range(0, len(data), 128):
        state = compress_block(state, data[offset : offset + 128])
    return state
