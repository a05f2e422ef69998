"""The hashlib object's behaviour: constructor, attributes, errors, copying, threads."""

from __future__ import annotations

import hashlib
import hmac
import pickle
import threading
import warnings
from typing import Dict, List, Tuple

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
    # the keyword the running interpreter's hashlib calls its data argument (3.15 deprecates
    # it); SHA-512/224 and SHA-512/256 have no constructor there: SHA-512's stands in
    their_constructor = getattr(hashlib, algorithm, hashlib.sha512)
    with warnings.catch_warnings(record=True) as their_warnings:
        warnings.simplefilter("always")
        their_constructor(string=b"abc")
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        ours = constructor(string=b"abc")
    assert ours.digest() == expected
    assert [(w.category, str(w.message), w.filename) for w in our_warnings] == [
        (w.category, str(w.message), w.filename) for w in their_warnings
    ]
    with pytest.raises(TypeError):
        constructor(data=b"a", string=b"b")
    with pytest.raises(TypeError):
        constructor(b"abc", True)  # usedforsecurity is keyword-only
    with pytest.raises(TypeError):
        constructor(b"abc", colour="red")


def test_not_picklable_like_hashlib(constructor: Constructor) -> None:
    with pytest.raises(TypeError):
        pickle.dumps(constructor(b"abc"))


def test_methods_take_what_hashlibs_take(constructor: Constructor, algorithm: str) -> None:
    """update() takes exactly one positional argument; digest(), hexdigest(), copy() none."""
    ours, theirs = constructor(b"abc"), hashlib.new(algorithm, b"abc")
    calls: List[Tuple[str, Tuple[object, ...], Dict[str, object]]] = [
        ("update", (), {"data": b"x"}),
        ("update", (), {}),
        ("update", (b"x", b"y"), {}),
        ("digest", (b"x",), {}),
        ("hexdigest", (b"x",), {}),
        ("copy", (b"x",), {}),
        ("digest", (), {"length": 1}),
    ]
    for method, args, kwargs in calls:
        with pytest.raises(TypeError):
            getattr(theirs, method)(*args, **kwargs)  # the shape being copied
        with pytest.raises(TypeError):
            getattr(ours, method)(*args, **kwargs)
    assert ours.digest() == theirs.digest()  # nothing was hashed by a refused call


def test_updates_from_threads_started_together_are_applied_whole(
    constructor: Constructor, algorithm: str
) -> None:
    """Four threads released by one barrier make many small updates to one object.

    Every chunk is the same, so every order of whole updates gives the same
    message: a lost, repeated or torn update changes the digest.
    """
    chunk = jdk_pattern(23)  # not a divisor of the block: updates straddle blocks
    threads, rounds = 4, 150
    h = constructor()
    barrier = threading.Barrier(threads)

    def work() -> None:
        barrier.wait()
        for _ in range(rounds):
            h.update(chunk)

    run_in_threads(work, threads)
    assert h.digest() == hashlib.new(algorithm, chunk * (threads * rounds)).digest()


def test_copies_and_digests_while_threads_update(constructor: Constructor, algorithm: str) -> None:
    """Copies and digests taken during concurrent updates see whole updates only."""
    chunk = jdk_pattern(100)
    threads, rounds = 3, 40
    h = constructor()
    barrier = threading.Barrier(threads + 1)
    whole = {hashlib.new(algorithm, chunk * k).digest() for k in range(threads * rounds + 1)}
    seen: List[bytes] = []
    done, looked = threading.Event(), threading.Event()

    def update() -> None:
        barrier.wait()
        for i in range(rounds):
            h.update(chunk)
            if i == rounds // 2:
                looked.wait()  # the observer has seen the object at least once midway

    def observe() -> None:
        barrier.wait()
        while not done.is_set():
            seen.append(h.digest())
            seen.append(h.copy().digest())
            looked.set()

    observer = threading.Thread(target=observe)
    observer.start()
    run_in_threads(update, threads)
    done.set()
    observer.join()
    assert h.digest() == hashlib.new(algorithm, chunk * (threads * rounds)).digest()
    assert seen and set(seen) <= whole


def test_works_as_hmac_digestmod(constructor: Constructor, algorithm: str) -> None:
    key, msg = b"key" * 30, jdk_pattern(300)  # a key longer than a block is hashed first
    expected = hmac.new(key, msg, algorithm).hexdigest()
    assert hmac.new(key, msg, digestmod=constructor).hexdigest() == expected
    assert hmac.digest(key, msg, constructor) == bytes.fromhex(expected)
