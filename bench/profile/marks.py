"""The part of the instruction counts that runs inside the measured interpreter, under
valgrind (``bench.profile.callgrind`` starts it there): the warm-up, the client-request marks
and the counting of one call per row, algorithm and message.

Each interpreter runs ``count_here`` under ``valgrind --tool=callgrind --instr-atstart=no``: it
warms every case up natively (under PyPy's JIT with lower thresholds, until the JIT is quiet;
with ``--jit off`` it stays off), then counts, for each row and algorithm, one
``constructor(message).digest()`` of a short and of a long message (128 bytes; 512, or 16 KiB
for the rows that run at C speed) between two client requests (``marks_of``: a small C library
the driver compiles from valgrind's ``callgrind.h`` switches the collection on and off and
dumps the count; the instrumentation itself is switched on once, after the warm-up). Each is
counted ``REPEATS`` times; the cyclic GC is off while counting. A styles file's counts
(``bench.profile.style_instructions``) use the same ``warm``, ``marks_of`` and ``collect``.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
from functools import partial
from typing import Callable, List, Sequence, Tuple

from ..catalog import targets
from ..catalog.cases import digest_of, jdk_pattern
from ..core.machine import PYPY
from ..core.timing import Jit

#: Message lengths of the two counts whose difference gives the count per byte:
#: the long one is LONG for rows at pure-Python speed under CPython, LONG_FAST
#: for the others (C, typed Cython, the i64 twin, and everything under PyPy's
#: JIT), so that the difference is always many thousand instructions and a
#: few instructions more or less of per-call work move it by little.
SHORT, LONG, LONG_FAST = 128, 512, 16384
REPEATS = 5
#: Native warm-up calls per message (CPython: its specializing interpreter
#: settles within a few dozen); under a JIT, calls until it is quiet.
WARM_CALLS = 20
JIT_QUIET, JIT_MAX_CALLS = 100, 3000


def lower_jit_thresholds(jit: bool) -> None:
    """Under PyPy with its JIT on (``jit``): trace loops and functions after 50 runs, not
    1000s (a quicker warm-up). With ``--jit off`` nothing: ``off`` is a threshold of -1, and
    setting one turned the JIT back on (the nojit modes were counted with it)."""
    try:
        import pypyjit  # type: ignore[import-not-found]
    except ImportError:
        return
    if jit:
        pypyjit.set_param("threshold=50,function_threshold=50,trace_eagerness=20")


def warm(op: Callable[[bytes], object], messages: Sequence[bytes], jit: bool) -> None:
    """Run ``op`` until the interpreter settles: a few dozen calls, or under PyPy's JIT
    (``jit``) until the JIT is quiet."""
    if not PYPY or not jit:
        for _ in range(WARM_CALLS):
            for m in messages:
                op(m)
        return
    quiet = 0
    for _ in range(JIT_MAX_CALLS):
        before = Jit.events
        for m in messages:
            op(m)
        quiet = quiet + 1 if Jit.events == before else 0
        if quiet >= JIT_QUIET:
            return


def long_message(target: targets.Target) -> int:
    """The long message's length for ``target`` (see LONG_FAST)."""
    if PYPY:
        return LONG_FAST
    python_speed = target.kind == "interpreted" or bool(target.twin and not target.twin.annotations)
    return LONG if python_speed else LONG_FAST


def marks_of(library: str, jit: bool) -> ctypes.CDLL:
    """The client-request library loaded, the JIT watched (its thresholds lowered: ``jit``)."""
    marks = ctypes.CDLL(library)
    marks.bench_stop.argtypes = [ctypes.c_char_p]
    Jit.watch()
    lower_jit_thresholds(jit)
    return marks


#: A count's name, what ``op`` runs, and the messages it runs on (warmed up already).
Op = Tuple[str, Callable[[bytes], object], Sequence[bytes]]


def collect(marks: ctypes.CDLL, ops: Sequence[Op], jit: bool) -> None:
    """Each op warmed once more (what ran since may have evicted or deoptimized it), then
    counted ``REPEATS`` times on each of its messages, each count dumped as
    ``name|repeat|length``, the cyclic GC off; the instrumentation switched on once."""
    for _, op, messages in ops:
        warm(op, messages, jit)
    gc.collect()
    gc.disable()
    marks.bench_instrument()
    for name, op, messages in ops:
        for rep in range(REPEATS):
            for message in messages:
                marks.bench_start()
                op(message)
                marks.bench_stop(f"{name}|{rep}|{len(message)}".encode())
    gc.enable()


def count_here(
    names: Sequence[str], algorithms: Sequence[str], library: str, jit: bool = True
) -> None:
    """Count every row and algorithm (run under valgrind): the dumps carry the names;
    ``jit``: whether the mode runs a JIT (False: PyPy's ``--jit off``, kept off).

    Everything is warmed up first, uninstrumented (fast); then the
    instrumentation is switched on once (switching it flushes valgrind's
    translations, which costs) and each count collects only its own call.
    """
    marks = marks_of(library, jit)
    short = jdk_pattern(SHORT)
    ops: List[Op] = []
    for name in names:
        target = targets.load(name)
        if target.unavailable:
            continue
        long = jdk_pattern(long_message(target))
        for alg in algorithms:
            if alg not in target.constructors:
                continue
            op: Callable[[bytes], object] = partial(digest_of, target.constructors[alg])
            if op(short) != hashlib.new(alg, short).digest():
                raise AssertionError(f"{name} {alg} hashes wrongly")
            warm(op, (short, long), jit)
            ops.append((f"{name}|{alg}", op, (short, long)))
    collect(marks, ops, jit)
