"""The study's benchmarks, modelled on OpenJDK's MessageDigests JMH benchmark, and their timers.

For every target (``targets``), algorithm and message length (byte i of the
message is i & 0xff):

``digest``
    update and digest on a reused object. Python's hash objects cannot be reset
    (JMH's ``MessageDigest.digest`` resets), so each operation is
    ``h = fresh.copy(); h.update(data); h.digest()`` where ``fresh`` is an empty
    object made once: ``copy()`` of an empty object is the cheapest honest reset.
``getAndDigest``
    construct, update, digest: ``h = constructor(); h.update(data); h.digest()``;
    at 64 bytes, the per-call cost of each bridge into C.
``block``
    the block function alone, ``compress(iv, memoryview(data))`` over the whole
    message, for targets that have one: the coding style without the shell.
``batch``
    ``number`` messages of ``length`` bytes at once: the drop-in's
    ``variants.digest_many(name, messages)`` against the hashlib loop
    ``[md5(m).digest() for m in messages]`` (the ``hashlib`` row).

Each case becomes a time function (``timing.loop_timer``); ``check`` first
makes sure the case's code computes the right digest.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
)

from ..core.timing import TimeFunc, loop_timer
from .targets import HASHLIB, Target

#: JMH's MessageDigests benchmarks (the JDK's worker runs these: bench/jdk/Case.java).
JMH = ("digest", "getAndDigest")
BENCHMARKS = (*JMH, "block", "batch")
#: The benchmark of a styles file's cases (``bench.catalog.styles``): a user's own functions.
STYLES = "styles"
LENGTHS = (64, 1024, 16384, 1048576)
#: (message length, messages) of the batch benchmark.
BATCHES = ((4096, 256), (32, 10_000))


class Case(NamedTuple):
    """One case: a benchmark, an algorithm, a target, a message length (and how many, batch)."""

    benchmark: str
    algorithm: str
    variant: str
    length: int
    number: int = 1

    @property
    def name(self) -> str:
        """The benchmark's name, the same under every interpreter (pyperf's too)."""
        size = f"{self.length}x{self.number}" if self.benchmark == "batch" else str(self.length)
        return f"{self.benchmark}/{self.algorithm}/{self.variant}/{size}"

    @property
    def group(self) -> Tuple[str, str, int, int]:
        """The cases measured together, values interleaved: same benchmark, algorithm, size."""
        return (self.benchmark, self.algorithm, self.length, self.number)

    @property
    def nbytes(self) -> int:
        """Bytes hashed by one operation."""
        return self.length * self.number

    @classmethod
    def parse(cls, name: str) -> Case:
        benchmark, algorithm, variant, size = name.split("/")
        length, _, number = size.partition("x")
        return cls(benchmark, algorithm, variant, int(length), int(number or 1))


@dataclass(frozen=True)
class Grid:
    """Which lengths each benchmark runs at."""

    lengths: Tuple[int, ...] = LENGTHS
    #: getAndDigest and block run at the lengths up to these (their point is
    #: the per-call and per-block cost; at longer lengths they repeat digest).
    get_max: int = 1024
    block_max: int = 1024
    batches: Tuple[Tuple[int, int], ...] = BATCHES

    def as_json(self) -> Dict[str, Any]:
        batches = [list(b) for b in self.batches]
        return {"lengths": list(self.lengths), "get_max": self.get_max,
                "block_max": self.block_max, "batches": batches}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Grid:
        batches = tuple((int(n), int(k)) for n, k in data.get("batches", BATCHES))
        return cls(tuple(data.get("lengths", LENGTHS)), int(data.get("get_max", 1024)),
                   int(data.get("block_max", 1024)), batches)  # fmt: skip


def jdk_pattern(length: int) -> bytes:
    """The JDK digest benchmarks' message: byte i is i & 0xff."""
    return (bytes(range(256)) * (length // 256 + 1))[:length]


def block_size(algorithm: str) -> int:
    """The bytes of one block of ``algorithm``'s core (64; SHA-512's 128)."""
    from variants._shell import ALGORITHMS

    return ALGORITHMS[algorithm].block_size


def batch_api() -> Tuple[Optional[str], str]:
    """(the drop-in's variant, "") if this build has ``variants.digest_many``, else (None, why)."""
    import variants

    if not hasattr(variants, "digest_many"):
        return None, "not available in this build (variants.digest_many is missing)"
    return variants.default_variant.name, ""


def enumerate_cases(
    targets: Sequence[Target],
    algorithms: Sequence[str],
    grid: Grid,
    benchmarks: Sequence[str] = BENCHMARKS,
) -> List[Case]:
    """Every case to run, by benchmark, then length, then algorithm, then target."""
    batch_variant, _ = batch_api() if "batch" in benchmarks else (None, "")
    cases = []
    for benchmark in benchmarks:
        if benchmark == "batch":
            sizes = list(grid.batches) if batch_variant else []
        else:
            top = {"getAndDigest": grid.get_max, "block": grid.block_max}.get(benchmark)
            sizes = [(n, 1) for n in grid.lengths if top is None or n <= top]
        for length, number in sizes:
            if length % 64 and benchmark == "block":
                continue
            for algorithm in algorithms:
                if benchmark == "block" and length % block_size(algorithm):
                    continue
                for target in targets:
                    if target.unavailable or algorithm not in target.algorithms:
                        continue
                    if benchmark == "block" and algorithm not in target.compress:
                        continue
                    if benchmark == "batch" and target.name not in (batch_variant, HASHLIB):
                        continue
                    cases.append(Case(benchmark, algorithm, target.name, length, number))
    return cases


def messages(length: int, number: int) -> List[bytes]:
    """A batch's messages: ``number`` distinct ones of ``length`` bytes (of the JDK pattern)."""
    base = jdk_pattern(length + 256)
    return [base[i % 256 : i % 256 + length] for i in range(number)]


def digest_of(constructor: Callable[..., Any], message: bytes) -> bytes:
    """One message's digest by a hashlib-like constructor: the profilers' one operation."""
    digest: bytes = constructor(message).digest()
    return digest


def make_timer(case: Case, target: Target, clock: str = "cpu") -> TimeFunc:
    """The time function of ``case``: seconds taken by ``loops`` operations."""
    namespace: Dict[str, Any] = {}
    if case.benchmark == "batch":
        namespace["messages"] = messages(case.length, case.number)
        if target.name == HASHLIB:
            namespace["constructor"] = target.constructors[case.algorithm]
            setup, body = "new, msgs = constructor, messages", "[new(m).digest() for m in msgs]"
        else:
            import variants

            namespace.update(many=variants.digest_many, algorithm=case.algorithm)
            setup, body = "run, name, msgs = many, algorithm, messages", "run(name, msgs)"
    elif case.benchmark == "block":
        from variants._shell import ALGORITHMS

        data = jdk_pattern(case.length)
        namespace.update(
            compress=target.compress[case.algorithm],
            iv=ALGORITHMS[case.algorithm].iv,
            view=memoryview(data),
        )
        setup, body = "fn, state, blocks = compress, iv, view", "fn(state, blocks)"
    else:
        constructor = target.constructors[case.algorithm]
        namespace.update(
            constructor=constructor, fresh=constructor(), data=jdk_pattern(case.length)
        )
        if case.benchmark == "digest":
            setup, body = "copy, msg = fresh.copy, data", "h = copy(); h.update(msg); h.digest()"
        else:
            setup, body = "new, msg = constructor, data", "h = new(); h.update(msg); h.digest()"
    return loop_timer(setup, body, namespace, clock, case.name)


class WrongDigest(AssertionError):
    """A case's code computes a wrong digest: nothing of it may be measured."""


def check(case: Case, target: Target) -> None:
    """Make sure the code ``case`` times computes the right digest (WrongDigest if not)."""
    expected = hashlib.new(case.algorithm)
    if case.benchmark == "batch":
        sample = messages(case.length, 3)
        if target.name == HASHLIB:
            got = [target.constructors[case.algorithm](m).digest() for m in sample]
        else:
            import variants

            got = variants.digest_many(case.algorithm, sample)
        want = [hashlib.new(case.algorithm, m).digest() for m in sample]
        if list(got) != want:
            raise WrongDigest(f"{case.name}: digest_many returns wrong digests")
        return
    if case.benchmark == "block":
        # One padded block of a short message: the state after it is the digest.
        from variants._shell import ALGORITHMS

        spec = ALGORITHMS[case.algorithm]
        message = jdk_pattern(40)
        order: Literal["little", "big"] = "little" if spec.byteorder == "little" else "big"
        field = spec.block_size // 8  # the length field: 8 bytes of a 64-byte block, 16 of 128
        word = spec.block_size // 16  # 4-byte words; SHA-512's 8
        bits = (len(message) * 8).to_bytes(field, order)
        block = message + b"\x80" + bytes(spec.block_size - field - 1 - len(message)) + bits
        state = target.compress[case.algorithm](spec.iv, memoryview(block))
        got_digest = b"".join(int(w).to_bytes(word, order) for w in state)
        expected.update(message)
        if got_digest != expected.digest():
            raise WrongDigest(f"{case.name}: the block function computes a wrong state")
        return
    probe = jdk_pattern(200)  # three blocks and a partial one
    expected.update(probe)
    h = target.constructors[case.algorithm]()
    h.update(probe[:70])
    h.update(probe[70:])
    if h.digest() != expected.digest():
        raise WrongDigest(f"{case.name}: {target.name} hashes {len(probe)} bytes wrongly")
