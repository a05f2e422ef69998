"""The example vectors of RFC 1321 (MD5) and FIPS 180-4 / NIST's examples (SHA-224, SHA-256)."""

from __future__ import annotations

import pytest

from conftest import Constructor

MILLION_A = b"a" * 1_000_000
ABC448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

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
}


def test_standard_vectors(constructor: Constructor, algorithm: str) -> None:
    """The short vectors in one call each (the long one: below)."""
    for message, expected in VECTORS[algorithm]:
        if message is not MILLION_A:
            assert constructor(message).hexdigest() == expected, len(message)


def test_million_a_in_chunks(constructor: Constructor, algorithm: str) -> None:
    """The long vector, fed in uneven pieces that straddle block edges, then the rest at once."""
    h = constructor()
    fed = 0
    for size in [1, 63, 65, 1000, 4095, 4097, 123_456]:
        h.update(MILLION_A[fed : fed + size])
        fed += size
    h.update(memoryview(MILLION_A)[fed:])
    expected = dict((m, d) for m, d in VECTORS[algorithm] if m is MILLION_A)[MILLION_A]
    assert h.hexdigest() == expected


@pytest.mark.parametrize("algorithm_name", sorted(VECTORS))
def test_vectors_agree_with_hashlib(algorithm_name: str) -> None:
    """The expected values above are the standards' (a typo here would hide nothing)."""
    import hashlib

    for message, expected in VECTORS[algorithm_name]:
        assert hashlib.new(algorithm_name, message).hexdigest() == expected
