"""The hashlib object's behaviour: constructor, attributes, errors, copying, threads."""

from __future__ import annotations

import hashlib
import hmac
import pickle

import pytest

from conftest import Constructor, jdk_pattern, run_in_threads

BAD_INPUTS = ["text", None, 42, 4.5, object(), [1, 2], {b"a": 1}]


def hashlib_error(algorithm: str, data: object) -> BaseException:
    try:
        hashlib.new(algorithm, data)  # type: ignore[arg-type]
    except Exception as exc:
        return exc
    raise AssertionError(f"hashlib accepted {data!r}")


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=lambda b: type(b).__name__)
def test_bad_input_errors_match_hashlib(
    constructor: Constructor, algorithm: str, bad: object
) -> None:
    expected = hashlib_error(algorithm, bad)
    with pytest.raises(type(expected)) as constructed:
        constructor(bad)
    assert str(constructed.value) == str(expected)
    h = constructor(b"abc")
    with pytest.raises(type(expected)) as updated:
        h.update(bad)
    assert str(updated.value) == str(expected)
    # a failed update leaves the state untouched
    assert h.digest() == hashlib.new(algorithm, b"abc").digest()


def test_attributes_match_hashlib(constructor: Constructor, algorithm: str) -> None:
    ours, theirs = constructor(), hashlib.new(algorithm)
    for attribute in ("name", "digest_size", "block_size"):
        assert getattr(ours, attribute) == getattr(theirs, attribute)
    for method in ("update", "digest", "hexdigest", "copy"):
        assert callable(getattr(ours, method))
    assert ours.update(b"x") is None  # type: ignore[func-returns-value]
    with pytest.raises(AttributeError):
        ours.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ours.anything = 1  # type: ignore[attr-defined]
    assert algorithm in repr(ours)


def test_constructor_keywords(constructor: Constructor, algorithm: str) -> None:
    expected = hashlib.new(algorithm, b"abc").digest()
    assert constructor(b"abc", usedforsecurity=False).digest() == expected
    assert constructor(data=b"abc").digest() == expected
    # the keyword the running interpreter's hashlib calls its data argument
    theirs = getattr(hashlib, algorithm)(string=b"abc")
    assert constructor(string=b"abc").digest() == theirs.digest()
    with pytest.raises(TypeError):
        constructor(data=b"a", string=b"b")
    with pytest.raises(TypeError):
        constructor(b"abc", True)  # usedforsecurity is keyword-only
    with pytest.raises(TypeError):
        constructor(b"abc", colour="red")


def test_not_picklable_like_hashlib(constructor: Constructor) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(constructor(b"abc"))


def test_concurrent_updates_lose_nothing(constructor: Constructor, algorithm: str) -> None:
    """Updates from many threads are each applied whole, as with hashlib's lock."""
    chunk = jdk_pattern(200)
    threads, rounds = 4, 8
    h = constructor()

    def work() -> None:
        for _ in range(rounds):
            h.update(chunk)

    run_in_threads(work, threads)
    assert h.digest() == hashlib.new(algorithm, chunk * (threads * rounds)).digest()


def test_works_as_hmac_digestmod(constructor: Constructor, algorithm: str) -> None:
    key, msg = b"key" * 30, jdk_pattern(300)  # a key longer than a block is hashed first
    expected = hmac.new(key, msg, algorithm).hexdigest()
    assert hmac.new(key, msg, digestmod=constructor).hexdigest() == expected
    assert hmac.digest(key, msg, constructor) == bytes.fromhex(expected)
