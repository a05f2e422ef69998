"""The one timing core: every timing in bench/ goes through it.

A thing to time is a *time function* ``f(loops) -> seconds`` (pyperf's
``bench_time_func`` protocol): it runs the operation ``loops`` times and
returns the time taken. ``Timed`` wraps one, finds its loops (pyperf's
calibration: doubled until a value lasts ``min_time``), warms it up (under
PyPy until the JIT has settled) and takes values; ``interleave`` takes the
values of several in turn, round by round, so that they share the machine's
moods and can be paired.

Why not pyperf's ``Runner``: it measures one benchmark at a time, all of its
processes and values before the next benchmark starts. The study's ratios are
estimated from values of two benchmarks taken back to back (a shared machine
whose speed changes from one second to the next slows both alike), and even
values of one benchmark under two interpreters, so the values of every
benchmark are interleaved, which the Runner cannot do. The study keeps pyperf's
formats (``Run``, ``Benchmark``, ``BenchmarkSuite`` JSON) and its calibration.

Standard library only; runs under CPython 3.9+ and PyPy.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .machine import PYPY, jit_on

MAX_LOOPS = 2**32
TimeFunc = Callable[[int], float]

#: The clocks a time function can read: the process's CPU time (the study's
#: default: on a shared machine, time spent running other processes does not
#: count), the thread's CPU time, or wall-clock time (pyperf's choice, for a
#: quiet machine).
CLOCKS: Dict[str, Callable[[], float]] = {
    "cpu": time.process_time,
    "thread": time.thread_time,
    "wall": time.perf_counter,
}

#: Under a JIT, warm-up lasts at least the first bound (seconds), at most the
#: second, and in between until the JIT compiled nothing (no loop, bridge or
#: aborted trace) during the last WINDOW values and their median is no longer
#: faster than that of the WINDOW before them by more than DRIFT. The one
#: definition of each (the JDK's worker has the same, a test checks it): every
#: tool that times in one process takes JIT_WARM; the study's efforts name
#: their own bounds (``bench.conduct.effort.EFFORTS``) and send them.
JIT_WARM = (0.3, 2.0)
WINDOW, DRIFT = 5, 0.05
#: PyPy's JIT starts tracing a loop after 1,039 of its iterations and a function after
#: 1,619 calls (its defaults), so before that its values are flat and it compiles nothing:
#: the settled state above, in the interpreter. A warm-up that ended there left a process
#: interpreted beside others compiled, 3-125x apart (40 of the 364 groups of PyPy's JIT modes
#: in two default runs, most of the slow processes after a few hundred calls; a fresh process
#: compiled the streamlined SHA-256 of 64 B after 1,180-1,305 calls). Under PyPy the warm-up
#: therefore runs the code at least this many times over its blocks (``min_calls``: the
#: worker divides it by the blocks an operation hashes). CPython's JIT modes get no minimum:
#: none of their groups was split so (0 of 216 a run), and their code is not far faster.
PYPY_JIT_BLOCKS = 16384
#: A styles file's function (``bench.catalog.styles``) has no blocks to count: its warm-up
#: under PyPy's JIT calls it at least this many times, twice the 1,619 calls after which
#: PyPy traces a function (the timed loop's own trace comes due after 1,039 of them).
PYPY_JIT_CALLS = 4096

_TEMPLATE = """
def time_func(loops, _clock=_clock, _range=range):
    {setup}
    start = _clock()
    for _ in _range(loops):
        {body}
    return _clock() - start
"""


def loop_timer(
    setup: str, body: str, namespace: Dict[str, Any], clock: str = "cpu", name: str = "loop"
) -> TimeFunc:
    """A time function whose loop is compiled on its own, as ``timeit`` does.

    ``setup`` runs once per call (make locals of what ``body`` uses); ``body``
    is one operation. Compiling each loop separately lets PyPy's JIT trace
    each on its own.
    """
    scope = dict(namespace, _clock=CLOCKS[clock])
    exec(compile(_TEMPLATE.format(setup=setup, body=body), f"<bench {name}>", "exec"), scope)
    timer: TimeFunc = scope["time_func"]
    return timer


def call_timer(fn: Callable[[], object], clock: str = "cpu", name: str = "call") -> TimeFunc:
    """A time function calling ``fn()`` once per operation."""
    return loop_timer("call = fn", "call()", {"fn": fn}, clock, name)


class Jit:
    """PyPy's JIT activity: loops and bridges compiled, traces aborted (0 elsewhere)."""

    events = 0
    _watching = False

    @classmethod
    def watch(cls) -> None:
        if not PYPY or cls._watching:
            return
        import pypyjit  # type: ignore[import-not-found]

        def count(*args: object) -> None:
            cls.events += 1

        pypyjit.set_compile_hook(count)
        pypyjit.set_abort_hook(count)
        cls._watching = True


class Timed:
    """One thing to time: its time function, loops, warm-ups and values.

    A value is seconds per operation, over ``loops`` operations.
    """

    def __init__(self, name: str, func: TimeFunc, loops: int = 0) -> None:
        self.name = name
        self.func = func
        self.loops = loops
        self.warmups: List[Tuple[int, float]] = []
        self.values: List[float] = []
        #: Wall-clock seconds spent in the time function, values and warm-ups.
        self.elapsed = 0.0
        #: Wall-clock seconds of the last call (what planning needs: CPU time
        #: is less than wall time on a busy machine).
        self.last_wall = 0.0
        self.last_jit_events = 0
        #: Under a JIT: whether warm-up ended with the JIT quiet.
        self.warmed = True

    def call(self, loops: int) -> float:
        """Run the time function once: seconds per operation."""
        before = Jit.events
        started = time.perf_counter()
        raw = self.func(loops)
        self.last_wall = time.perf_counter() - started
        self.elapsed += self.last_wall
        self.last_jit_events = Jit.events - before
        return raw / loops

    def value(self) -> float:
        """Take one value at ``loops``; it is kept and returned."""
        value = self.call(self.loops)
        self.values.append(value)
        return value

    def calibrate(self, min_time: float) -> None:
        """Double the loops until one value lasts ``min_time`` (pyperf's calibration).

        The last calibration value, at the loops found, is the warm-up.
        """
        loops = 1
        while True:
            value = self.call(loops)
            self.warmups.append((loops, value))
            if value * loops >= min_time or loops * 2 > MAX_LOOPS:
                break
            loops *= 2
        self.loops = loops

    def warm_up(self, count: int = 1) -> None:
        """``count`` values at the current loops, kept as warm-ups."""
        for _ in range(count):
            self.warmups.append((self.loops, self.call(self.loops)))

    def settle(
        self, min_time: float, bounds: Sequence[float] = JIT_WARM, min_calls: int = 0
    ) -> None:
        """Warm up under a JIT: values until their times have settled (see JIT_WARM), after
        at least ``min_calls`` calls of the operation (see PYPY_JIT_BLOCKS)."""
        shortest, longest = bounds
        started = self.elapsed
        history: List[float] = []
        quiet = 0  # values in a row during which the JIT did nothing
        calls = 0
        while True:
            value = self.call(self.loops)
            self.warmups.append((self.loops, value))
            history.append(value)
            calls += self.loops
            quiet = 0 if self.last_jit_events else quiet + 1
            if value * self.loops < min_time / 2 and self.loops * 2 <= MAX_LOOPS:
                self.loops *= 2  # the JIT made it faster than calibrated for
            spent = self.elapsed - started
            early = spent < shortest or calls < min_calls
            if early or len(history) < 2 * WINDOW or quiet < WINDOW:
                if spent >= longest:
                    self.warmed = False
                    return
                continue
            last, before = history[-WINDOW:], history[-2 * WINDOW : -WINDOW]
            if statistics.median(last) >= statistics.median(before) * (1 - DRIFT):
                return
            if spent >= longest:
                self.warmed = False
                return

    def prepare(
        self,
        min_time: float,
        jit_warm: Sequence[float] = JIT_WARM,
        loops: Optional[int] = None,
        jit: Optional[bool] = None,
        min_calls: int = 0,
    ) -> None:
        """Calibrate (or take ``loops`` as known) and warm up, as fits the interpreter.

        With known loops, one warm-up value; under a JIT (``jit``: the mode's
        ``Mode.jit``; None: whether this process has one, ``machine.jit_on``),
        values until it settles, ``min_calls`` calls at least.
        """
        jit = jit_on() if jit is None else jit
        if loops:
            self.loops = loops
            if not jit:
                self.warm_up(1)
        else:
            self.calibrate(min_time)
        if jit:
            self.settle(min_time, jit_warm, min_calls)


def interleave(timed: Sequence[Timed], rounds: int) -> None:
    """``rounds`` values of each, one after the other in turn."""
    for _ in range(rounds):
        for t in timed:
            t.value()


def measure(
    candidates: Mapping[str, Callable[[], object]],
    rounds: int = 15,
    min_time: float = 0.005,
    clock: str = "thread",
    jit_warm: Sequence[float] = JIT_WARM,
    jit: Optional[bool] = None,
) -> Dict[str, Timed]:
    """Each zero-argument callable timed, values interleaved round by round.

    For the quick comparisons (``compare``, ``bytecode``): one process,
    medians or paired ratios of the values. A fast
    candidate runs many times per value (the loops), as pyperf does: on this
    machine the first call into C after a stretch of other work pays tens of
    microseconds of cold caches, which would swamp a single short call.
    """
    Jit.watch()
    timed = [Timed(name, call_timer(fn, clock, name)) for name, fn in candidates.items()]
    for t in timed:
        t.prepare(min_time, jit_warm=jit_warm, jit=jit)
    interleave(timed, rounds)
    return {t.name: t for t in timed}


@dataclass(frozen=True)
class Pair:
    """A quick check (``bench.check``): the baseline against the candidate, and the least
    speed wanted (the baseline's time over the candidate's)."""

    label: str
    baseline: Callable[[], object]
    candidate: Callable[[], object]
    at_least: Optional[float] = None
    clock: str = "thread"
    note: str = ""
    #: Operations per value (0: calibrated); a whole process runs once per value.
    loops: int = 0
    #: Items (rows, messages) per operation: the table shows the time of one.
    items: int = 1


def both(
    label: str,
    fn: Callable[..., object],
    base: Any,
    cand: Any,
    *args: Any,
    least: Optional[float] = None,
    clock: str = "thread",
    loops: int = 0,
) -> Pair:
    """``fn(base, *args)`` against ``fn(cand, *args)``."""
    return Pair(label, partial(fn, base, *args), partial(fn, cand, *args), least, clock,
                loops=loops)  # fmt: skip
