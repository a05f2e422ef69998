"""The example vectors of RFC 1321 (MD5) and FIPS 180-4 / NIST's examples (SHA-1, SHA-2)."""

from __future__ import annotations

from typing import Tuple

import pytest

from variants import registry

from conftest import Constructor

MILLION_A = b"a" * 1_000_000
ABC448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#: The two-block example of the SHA-512 core (896 bits).
ABC896 = (
    b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
    b"ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
)

VECTORS = {
    "md5": [  # RFC 1321, appendix A.5
        (b"", "d41d8cd98f00b204e9800998ecf8427e"),
        (b"a", "0cc175b9c0f1b6a831c399e269772661"),
        (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
        (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        (b"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        (
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f",
        ),
        (b"1234567890" * 8, "57edf4a22be3c955ac49da2e2107b67a"),
        (MILLION_A, "7707d6ae4e027c70eea2a935c2296f21"),
    ],
    "sha224": [  # NIST CSRC examples for FIPS 180-4
        (b"abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        (ABC448, "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"),
        (MILLION_A, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"),
        (b"", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"),
    ],
    "sha256": [
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (ABC448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (MILLION_A, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ],
    "sha1": [
        (b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (ABC448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (MILLION_A, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        (b"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ],
    "sha384": [
        (
            b"abc",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
            "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
        ),
        (
            ABC896,
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d2"
            "2fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
        ),
        (
            MILLION_A,
            "9d0e1809716474cb086e834e310a4a1ced149e9c00f24852"
            "7972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
        ),
        (
            b"",
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be0743"
            "4c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
        ),
    ],
    "sha512": [
        (
            b"abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        ),
        (
            ABC896,
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
            "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        ),
        (
            MILLION_A,
            "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
            "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
        ),
        (
            b"",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
            "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
        ),
    ],
    "sha512_224": [
        (b"abc", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"),
        (ABC896, "23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9"),
    ],
    "sha512_256": [
        (b"abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
        (ABC896, "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a"),
    ],
}


def test_standard_vectors(constructor: Constructor, algorithm: str) -> None:
    """The short vectors in one call each (the long one: below)."""
    for message, expected in VECTORS[algorithm]:
        if message is not MILLION_A:
            assert constructor(message).hexdigest() == expected, len(message)


#: The algorithms that differ from SHA-512 only in the initial value and the digest's length
#: (which the short vectors check): in pure Python and its compiled twins, where SHA-512's 64-bit
#: words make the long vector take 3-9 s a variant (CPython 3.11, PyPy 7.3), they take its first
#: CUT bytes instead.
SHA512_DERIVED = ("sha384", "sha512_224", "sha512_256")
CUT = 140_000


def test_million_a_in_chunks(pair: Tuple[str, str], constructor: Constructor) -> None:
    """The long vector, fed in uneven pieces that straddle block edges, then the rest at once
    (NIST gives none for SHA-512/224 and SHA-512/256: hashlib's digest stands in)."""
    import hashlib

    name, algorithm = pair
    message = MILLION_A
    entry = registry.variant(name)
    if algorithm in SHA512_DERIVED and (entry.kind == "interpreted" or entry.source):
        message = MILLION_A[:CUT]
    h = constructor()
    fed = 0
    for size in [1, 63, 65, 1000, 4095, 4097, 123_456]:
        h.update(message[fed : fed + size])
        fed += size
    h.update(memoryview(message)[fed:])
    long = [d for m, d in VECTORS[algorithm] if m is message]
    expected = long[0] if long else hashlib.new(algorithm, message).hexdigest()
    assert h.hexdigest() == expected


@pytest.mark.parametrize("algorithm_name", sorted(VECTORS))
def test_vectors_agree_with_hashlib(algorithm_name: str) -> None:
    """The expected values above are the standards' (a typo here would hide nothing)."""
    import hashlib

    for message, expected in VECTORS[algorithm_name]:
        assert hashlib.new(algorithm_name, message).hexdigest() == expected
