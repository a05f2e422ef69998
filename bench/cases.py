"""The benchmark cases, modelled on OpenJDK's MessageDigests JMH benchmark.

For every variant (the registry's, plus ``hashlib`` as the reference row and,
optionally, PyPy's own pure-Python ``_md5``/``_sha256`` as ``pypy-lib``), every
algorithm and message length (byte i of the message is i & 0xff):

``digest``
    update and digest on a reused object. Python's hash objects cannot be reset
    (JMH's ``MessageDigest.digest`` resets), so each operation is
    ``h = fresh.copy(); h.update(data); h.digest()`` where ``fresh`` is an empty
    object made once: ``copy()`` of an empty object is the cheapest honest reset.
``getAndDigest``
    construct, update, digest: ``h = constructor(); h.update(data); h.digest()``.
``block``
    the block function alone, ``compress(iv, memoryview(data))`` over the whole
    message, for variants that have one: the coding style without the shell.

Each case becomes a pyperf time function ``f(loops) -> seconds`` (pyperf's
``bench_time_func`` protocol). The loop of every case is compiled separately,
as ``timeit`` does, so that PyPy's JIT traces each case on its own. This module
runs under every interpreter of the study, CPython 3.10-3.13 and PyPy 3.9.
"""

from __future__ import annotations

import fnmatch
import hashlib
import platform
import sys
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

import pypy_lib

MODES = ("digest", "getAndDigest", "block")
ALGORITHMS = ("md5", "sha256")
LENGTHS = (64, 1024, 16384, 1048576)
#: The reference rows that are not registry variants.
HASHLIB = "hashlib"
PYPY_LIB = "pypy-lib"

TimeFunc = Callable[[int], float]


class Case(NamedTuple):
    """One benchmark: a mode, an algorithm, a variant and a message length."""

    mode: str
    algorithm: str
    variant: str
    length: int

    @property
    def name(self) -> str:
        """The pyperf benchmark name, the same under every interpreter."""
        return f"{self.mode}/{self.algorithm}/{self.variant}/{self.length}"

    @classmethod
    def parse(cls, name: str) -> Case:
        mode, algorithm, variant, length = name.split("/")
        return cls(mode, algorithm, variant, int(length))


def jdk_pattern(length: int) -> bytes:
    """The JDK digest benchmarks' message: byte i is i & 0xff."""
    return (bytes(range(256)) * (length // 256 + 1))[:length]


def interpreter_label() -> str:
    """The study's name for the running interpreter: "3.11", "pypy3.9"."""
    major, minor = sys.version_info[:2]
    prefix = "pypy" if sys.implementation.name == "pypy" else ""
    return f"{prefix}{major}.{minor}"


def interpreter_info() -> Dict[str, str]:
    """What the report says about the running interpreter."""
    info = {
        "label": interpreter_label(),
        "implementation": platform.python_implementation(),
        "version": platform.python_version(),
        "executable": sys.executable,
    }
    if sys.implementation.name == "pypy":
        pypy = sys.pypy_version_info  # type: ignore[attr-defined]
        info["pypy_version"] = ".".join(str(part) for part in pypy[:3])
    return info


class Target:
    """What one variant offers here: constructors, block functions, or why it is missing."""

    def __init__(
        self,
        name: str,
        kind: str,
        description: str,
        source: Optional[str] = None,
        algorithms: Sequence[str] = (),
        constructors: Optional[Dict[str, Callable[..., Any]]] = None,
        compress: Optional[Dict[str, Callable[..., Any]]] = None,
        details: str = "",
        unavailable: Optional[str] = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.description = description
        self.source = source
        self.algorithms = tuple(algorithms)
        self.constructors = constructors or {}
        self.compress = compress or {}
        self.details = details
        self.unavailable = unavailable

    def info(self) -> Dict[str, Any]:
        return {
            "kind": self.kind,
            "description": self.description,
            "source": self.source,
            "algorithms": list(self.algorithms),
            "details": self.details,
            "unavailable": self.unavailable,
            "block": sorted(self.compress),
        }


def registered_names() -> List[str]:
    """Every registered variant, in the registry's order."""
    from variants import registry  # here, so the driver can use Case without the package

    return [v.name for v in registry.VARIANTS]


def load_target(name: str) -> Target:
    """The variant (or reference row) called ``name``, loaded if it can be."""
    if name == HASHLIB:
        ctors = {alg: getattr(hashlib, alg) for alg in ALGORITHMS}
        impl = platform.python_implementation()
        return Target(name, "reference", f"{impl}'s hashlib (OpenSSL)", None, ALGORITHMS, ctors)
    if name == PYPY_LIB:
        description = "PyPy's own pure-Python _md5/_sha256 (helper style)"
        folder = pypy_lib.find()
        if folder is None:
            missing = "PyPy's _md5.py/_sha256.py not found (apt-get install pypy3-lib)"
            return Target(name, "reference", description, None, ALGORITHMS, unavailable=missing)
        ctors = pypy_lib.constructors(folder)
        return Target(name, "reference", f"{description}, {folder}", None, ALGORITHMS, ctors)
    from variants import registry

    entry = registry.variant(name)
    algorithms = [alg for alg in ALGORITHMS if alg in entry.algorithms]
    problem = registry.status(name)
    if problem is not None:
        return Target(
            name, entry.kind, entry.description, entry.source, algorithms, unavailable=problem
        )
    loaded = registry.load(name)
    compress = {alg: loaded.compress[alg] for alg in algorithms if alg in loaded.compress}
    ctors = {alg: loaded.constructors[alg] for alg in algorithms}
    return Target(
        name,
        entry.kind,
        entry.description,
        entry.source,
        algorithms,
        ctors,
        compress,
        loaded.details,
    )


def select_variants(patterns: Sequence[str], pypy_lib: bool = False) -> List[str]:
    """The variant names matching ``patterns`` (names or globs; empty: all), hashlib always.

    The order is the registry's, then ``hashlib``, then ``pypy-lib`` if asked
    for (by ``pypy_lib`` or by naming it).
    """
    known = registered_names()
    if patterns:
        unknown = [
            p for p in patterns if p not in (HASHLIB, PYPY_LIB) and not fnmatch.filter(known, p)
        ]
        if unknown:
            raise ValueError(f"no variant matches {unknown}; known: {', '.join(known)}")
        chosen = [n for n in known if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    else:
        chosen = list(known)
    chosen.append(HASHLIB)
    if pypy_lib or PYPY_LIB in patterns:
        chosen.append(PYPY_LIB)
    return chosen


def enumerate_cases(
    targets: Sequence[Target],
    algorithms: Sequence[str],
    lengths: Sequence[int],
    modes: Sequence[str] = MODES,
    block_lengths: Optional[Sequence[int]] = None,
) -> List[Case]:
    """Every case to run, by length, then algorithm, then mode, then variant.

    ``block_lengths`` limits the block-only benchmark (default: every length up
    to 16 KiB; at longer lengths the block function alone only repeats 16 KiB's
    work without any per-call cost to isolate).
    """
    if block_lengths is None:
        block_lengths = [n for n in lengths if n <= 16384]
    cases = []
    for length in lengths:
        if length % 64:
            raise ValueError(f"length {length} is not a whole number of 64-byte blocks")
        for algorithm in algorithms:
            for mode in modes:
                if mode == "block" and length not in block_lengths:
                    continue
                for target in targets:
                    if target.unavailable or algorithm not in target.algorithms:
                        continue
                    if mode == "block" and algorithm not in target.compress:
                        continue
                    cases.append(Case(mode, algorithm, target.name, length))
    return cases


_TEMPLATE = """
def time_func(loops, _clock=_clock, _range=range):
    {setup}
    start = _clock()
    for _ in _range(loops):
        {body}
    return _clock() - start
"""

#: (setup, body) of each mode's loop; the setup makes everything the body uses a local.
_BODIES = {
    "digest": ("copy, msg = fresh.copy, data", "h = copy(); h.update(msg); h.digest()"),
    "getAndDigest": ("new, msg = constructor, data", "h = new(); h.update(msg); h.digest()"),
    "block": ("fn, state, blocks = compress, iv, view", "fn(state, blocks)"),
}


#: The clocks a time function can read: the process's CPU time (the default:
#: on a shared machine, time spent running other processes does not count) or
#: wall-clock time (pyperf's own choice, for a quiet machine).
CLOCKS: Dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def make_timer(case: Case, target: Target, data: bytes, clock: str = "cpu") -> TimeFunc:
    """The pyperf time function of ``case``: seconds taken by ``loops`` operations."""
    setup, body = _BODIES[case.mode]
    namespace: Dict[str, Any] = {"_clock": CLOCKS[clock], "data": data}
    if case.mode == "block":
        from variants._tables import MD5_IV, SHA256_IV

        namespace.update(
            compress=target.compress[case.algorithm],
            iv={"md5": MD5_IV, "sha256": SHA256_IV}[case.algorithm],
            view=memoryview(data),
        )
    else:
        constructor = target.constructors[case.algorithm]
        namespace.update(constructor=constructor, fresh=constructor())
    source = _TEMPLATE.format(setup=setup, body=body)
    exec(compile(source, f"<bench {case.name}>", "exec"), namespace)
    timer: TimeFunc = namespace["time_func"]
    return timer
