"""The study's parts on small inputs: cases, checks, the timing core, statistics, the worker.

No timing is judged here; the timers that run do so for milliseconds.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import random
import shutil
import statistics
import sys
import types
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List

import bench_package
import pytest

bench_package.load()

from bench.catalog import cases, targets  # noqa: E402
from bench.catalog.cases import Case, Grid, WrongDigest  # noqa: E402
from bench.conduct import worker  # noqa: E402
from bench.core import machine, protocol, stats, timing  # noqa: E402


def test_case_names_round_trip() -> None:
    for case in (
        Case("getAndDigest", "sha256", "helpers-mypyc", 1024),
        Case("batch", "md5", "native", 32, 100_000),
    ):
        assert Case.parse(case.name) == case
    assert Case("batch", "md5", "native", 4096, 256).name == "batch/md5/native/4096x256"
    assert Case("digest", "md5", "native", 64).nbytes == 64


def test_jdk_pattern() -> None:
    data = cases.jdk_pattern(600)
    assert len(data) == 600
    assert all(b == i & 0xFF for i, b in enumerate(data))


def test_selection_keeps_registry_order_and_adds_references() -> None:
    chosen = targets.select(["helpers*", "streamlined"])
    assert chosen[-2:] == [targets.HASHLIB, targets.BUILTIN]
    assert "helpers" in chosen and "streamlined" in chosen
    assert targets.select([], pypy_lib=True)[-1] == targets.PYPY_LIB
    with pytest.raises(ValueError):
        targets.select(["no-such-variant"])


def test_twins_come_from_the_catalog() -> None:
    from variants import _catalog

    twin = _catalog.TWINS[0]
    target = targets.load(twin.name)
    assert target.twin == targets.Twin(twin.source, twin.compiler, twin.annotations)
    assert targets.load(twin.source).twin is None


def test_cases_skip_what_a_row_lacks() -> None:
    rows = [targets.load("streamlined-lanes"), targets.load("hashlib")]
    grid = Grid(lengths=(64, 1024, 16384), get_max=64, block_max=1024)
    names = {c.name for c in cases.enumerate_cases(rows, ["md5", "sha256"], grid)}
    assert "digest/sha256/streamlined-lanes/64" in names
    assert "digest/md5/streamlined-lanes/64" not in names  # SHA-256 only
    assert "block/sha256/hashlib/64" not in names  # no block function
    assert "block/sha256/streamlined-lanes/16384" not in names  # block only up to 1 KiB
    assert "getAndDigest/md5/hashlib/1024" not in names  # getAndDigest only at 64 B
    assert "getAndDigest/md5/hashlib/64" in names
    batch = {n for n in names if n.startswith("batch/")}
    variant, _ = cases.batch_api()
    assert bool(batch) == (variant is not None)


@pytest.mark.parametrize("algorithm", targets.ALGORITHMS)
@pytest.mark.parametrize("variant", ["helpers", "streamlined"])
def test_every_core_is_checked_and_timed_in_both_styles(algorithm: str, variant: str) -> None:
    """SHA-1's and SHA-512's cases as MD5's and SHA-256's: the block check knows 8-byte words
    and 128-byte blocks (a block of SHA-512 shorter than 128 bytes is no case), and a block
    function whose state is off by one bit is caught."""
    target = targets.load(variant)
    grid = Grid(lengths=(64, 1024), get_max=64, block_max=1024)
    names = {c.name for c in cases.enumerate_cases([target], [algorithm], grid, ["block"])}
    size = 128 if algorithm == "sha512" else 64
    assert (f"block/{algorithm}/{variant}/64" in names) == (size == 64)
    assert f"block/{algorithm}/{variant}/1024" in names
    for benchmark in ("digest", "block"):
        case = Case(benchmark, algorithm, variant, 1024)
        cases.check(case, target)
        assert cases.make_timer(case, target)(1) >= 0
    good = target.compress[algorithm]
    off = dict(target.compress, **{algorithm: lambda s, v: (good(s, v)[0] ^ 1, *good(s, v)[1:])})
    with pytest.raises(WrongDigest):
        cases.check(Case("block", algorithm, variant, 1024), replace(target, compress=off))


@pytest.mark.parametrize("benchmark", ["digest", "getAndDigest", "block"])
def test_timers_do_the_work(benchmark: str) -> None:
    target = targets.load("streamlined")
    case = Case(benchmark, "md5", "streamlined", 128)
    cases.check(case, target)
    assert cases.make_timer(case, target)(2) >= 0


def broken(name: str, flip_state: bool = False) -> targets.Target:
    """A row of hashlib's MD5 whose digest (or block function's state) is wrong."""

    class Wrong:
        def __init__(self, data: bytes = b"") -> None:
            self.h = hashlib.md5(data)

        def update(self, data: bytes) -> None:
            self.h.update(data)

        def digest(self) -> bytes:
            return bytes(b ^ 1 for b in self.h.digest())

        def copy(self) -> Wrong:
            twin = Wrong()
            twin.h = self.h.copy()
            return twin

    good = targets.load("helpers").compress["md5"]

    def compress(state: Any, data: Any) -> Any:
        out = good(state, data)
        return (out[0] ^ 1, *out[1:]) if flip_state else out

    return targets.Target(name, "interpreted", "broken", ["md5"], {"md5": Wrong}, {"md5": compress})


def test_a_wrong_digest_is_caught() -> None:
    row = broken("wrong")
    with pytest.raises(WrongDigest):
        cases.check(Case("digest", "md5", "wrong", 64), row)
    cases.check(Case("block", "md5", "wrong", 64), row)  # its block function is right
    with pytest.raises(WrongDigest):
        cases.check(Case("block", "md5", "wrong", 64), broken("wrong", flip_state=True))


def serve(requests: List[Dict[str, Any]], server: worker.Server) -> List[Dict[str, Any]]:
    out = io.StringIO()
    lines = [json.dumps(r) for r in [*requests, {"op": "quit"}]]
    ops = {"list": server.list, "prepare": server.prepare, "value": server.value,
           "hash": server.hash, "call": server.call}  # fmt: skip
    protocol.serve(ops, io.StringIO("\n".join(lines) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


PREPARE = {"op": "prepare", "min_time": 0.0005, "jit_warm": [0.001, 0.01], "clock": "cpu",
           "jit": False}  # fmt: skip


def test_the_worker_prepares_and_measures() -> None:
    names = [f"{m}/md5/hashlib/64" for m in ("digest", "getAndDigest")]
    request = dict(PREPARE, cases=[{"name": n, "loops": None} for n in names])
    prepared, first, second = serve(
        [request, {"op": "value", "case": names[0]}, {"op": "value", "case": names[1]}],
        worker.Server(),
    )
    assert set(prepared["cases"]) == set(names)
    assert all(c["loops"] >= 1 for c in prepared["cases"].values())
    assert first["value"] > 0 and second["value"] > 0


def test_a_worker_with_a_wrong_digest_refuses_to_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    server = worker.Server()
    monkeypatch.setattr(server, "target", lambda name: broken(name))
    request = dict(PREPARE, cases=[{"name": "digest/md5/wrong/64", "loops": None}])
    (answer,) = serve([request], server)
    assert "WrongDigest" in answer["error"]


def test_the_listing_says_what_runs_here() -> None:
    request = {"op": "list", "variants": ["helpers", "native"], "algorithms": ["md5"],
               "benchmarks": ["digest"]}  # fmt: skip
    (listing,) = serve([request], worker.Server())
    assert "digest/md5/hashlib/64" in listing["cases"]
    assert not [c for c in listing["cases"] if not c.startswith("digest/md5/")]
    assert listing["variants"]["helpers"]["kind"] == "interpreted"
    assert listing["runtime"]["implementation"] in ("CPython", "PyPy")


def test_the_worker_hashes_calls_and_survives_errors() -> None:
    message = cases.jdk_pattern(200)
    requests: List[Dict[str, Any]] = [
        {"op": "hash", "variant": "helpers", "algorithm": "sha256", "message": message.hex(),
         "chunks": [63, 1, 70]},
        {"op": "value", "case": "digest/md5/helpers/64"},  # never prepared
        {"op": "nonsense"},
        {"op": "call", "function": "catalog.cases.jdk_pattern", "kwargs": {"length": 3}},
    ]  # fmt: skip
    hashed, unprepared, unknown, called = serve(requests, worker.Server())
    assert hashed == {"digest": hashlib.sha256(message).hexdigest()}
    assert "KeyError" in unprepared["error"] and "no op 'nonsense'" in unknown["error"]
    assert "error" in called  # bytes are not JSON: the error is said, the worker goes on


def test_timing_core_calibrates_and_interleaves() -> None:
    calls: List[int] = []

    def func(loops: int) -> float:
        calls.append(loops)
        return 0.001 * loops  # one operation: a millisecond

    a, b = timing.Timed("a", func), timing.Timed("b", func)
    for t in (a, b):
        t.calibrate(0.004)
    assert a.loops == 4 and a.warmups[-1] == (4, 0.001)
    timing.interleave([a, b], 3)
    assert a.values == [0.001] * 3 and b.values == [0.001] * 3
    assert calls[-6:] == [4] * 6


def test_a_process_with_a_jit_on_waits_for_it_unless_told_its_mode_has_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def warmed(jit: Any) -> int:
        t = timing.Timed("a", lambda loops: 0.001 * loops)
        t.prepare(0.004, jit_warm=(0.0, 0.05), jit=jit)
        return len(t.warmups)

    calibrating = 3  # 1, 2, 4 loops
    monkeypatch.setattr(timing, "jit_on", lambda: False)
    assert warmed(None) == calibrating
    monkeypatch.setattr(timing, "jit_on", lambda: True)  # CPython with PYTHON_JIT=1, PyPy
    assert warmed(None) >= calibrating + 2 * timing.WINDOW
    assert warmed(False) == calibrating  # a mode without a JIT (Mode.jit), whatever runs it


def test_a_jit_that_compiled_nothing_yet_is_given_its_calls() -> None:
    """Flat values and a quiet JIT are settled only after min_calls calls (PyPy's counters)."""

    def warm(min_calls: int) -> int:
        t = timing.Timed("a", lambda loops: 0.001 * loops)
        t.loops = 4
        t.settle(0.004, (0.0, 60.0), min_calls)
        assert t.warmed
        return sum(loops for loops, _ in t.warmups)

    assert warm(0) == 4 * 2 * timing.WINDOW  # as soon as the times have settled
    assert 1000 <= warm(1000) < 1000 + 4 * 2


def test_only_pypys_jit_is_given_calls_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    short, long = Case.parse("digest/md5/helpers/64"), Case.parse("digest/md5/helpers/1048576")
    batch = Case.parse("batch/md5/native/32x4096")
    here = timing.PYPY_JIT_BLOCKS if sys.implementation.name == "pypy" else 0
    assert worker.jit_calls(short, True) == here
    monkeypatch.setattr(sys, "implementation", types.SimpleNamespace(name="pypy"))
    assert worker.jit_calls(short, True) == timing.PYPY_JIT_BLOCKS
    assert worker.jit_calls(long, True) == 1  # its 16,384 blocks in one call
    assert worker.jit_calls(batch, True) == timing.PYPY_JIT_BLOCKS // 2048
    assert worker.jit_calls(short, False) == 0  # PyPy with --jit off


def test_quantile_and_time_of() -> None:
    assert stats.quantile([4.0, 1.0, 3.0, 2.0, 5.0], 0.25) == 2.0
    assert stats.quantile([1.0, 2.0], 0.5) == 1.5
    # a process's time is its fastest value, even when most of its values ran contended
    assert stats.time_of([1.3, 1.0, 1.3, 1.3, 1.3]) == 1.0


def test_a_ratio_keeps_to_the_uncontended_state() -> None:
    # a is interpreted code, b C code: when the machine is contended (every
    # third round here) a slows by 1.4x and b does not. The ratio of the processes'
    # fastest values is the uncontended one, whatever the share of contended rounds.
    def run(contended_every: int) -> stats.Estimate:
        a = {(0, r): 4.0 * (1.4 if r % contended_every == 0 else 1.0) for r in range(30)}
        b = {(0, r): 1.0 for r in range(30)}
        found = stats.ratio(a, b)
        assert found is not None
        return found

    for every in (2, 3, 5):
        estimate = run(every)
        assert estimate.value == pytest.approx(4.0)
        assert estimate.low <= 4.0 <= estimate.high


def test_a_noisy_ratio_has_a_wider_interval() -> None:
    steady = {(0, r): 2.0 for r in range(20)}
    noisy = {(0, r): 2.0 * (1 + 0.3 * ((r * 7) % 20) / 20) for r in range(20)}
    one = {(0, r): 1.0 for r in range(20)}
    tight, wide = stats.ratio(steady, one), stats.ratio(noisy, one)
    assert tight is not None and wide is not None
    # A steady ratio's interval is the between-run term alone: one run cannot see it.
    assert tight.half_width == pytest.approx(stats.RUN_TERM, rel=0.01)
    assert wide.half_width > tight.half_width
    assert stats.ratio({}, one) is None


def test_python_runs_the_timing_core_under_pypy_and_cpython() -> None:
    timed = timing.measure({"sum": lambda: sum(range(100))}, rounds=3, min_time=0.0005)
    assert len(timed["sum"].values) == 3
    assert sys.implementation.name in ("cpython", "pypy")


def test_the_batch_benchmark_runs_once_the_api_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    import variants

    rows = [targets.load(variants.default_variant.name), targets.load("hashlib")]
    grid = Grid(lengths=(64,), batches=((32, 10),))
    if not hasattr(variants, "digest_many"):
        assert not [c for c in cases.enumerate_cases(rows, ["md5"], grid) if c.benchmark == "batch"]
        assert "not available in this build" in cases.batch_api()[1]

        def digest_many(name: str, messages: List[bytes], **options: Any) -> List[bytes]:
            return [hashlib.new(name, m).digest() for m in messages]

        monkeypatch.setattr(variants, "digest_many", digest_many, raising=False)
    batch = [c for c in cases.enumerate_cases(rows, ["md5"], grid) if c.benchmark == "batch"]
    assert {c.variant for c in batch} == {variants.default_variant.name, "hashlib"}
    for case in batch:
        target = next(t for t in rows if t.name == case.variant)
        cases.check(case, target)
        assert cases.make_timer(case, target)(1) >= 0
    monkeypatch.setattr(variants, "digest_many", lambda name, messages: [b""] * len(messages))
    with pytest.raises(WrongDigest):
        cases.check(batch[0] if batch[0].variant != "hashlib" else batch[1], rows[0])


def test_the_interval_has_the_stretches_of_the_run_in_it() -> None:
    # A ratio whose processes vary (2%) and whose stretches of time vary more (3%): intervals
    # from the run itself hold about 95% of a rerun; ignoring the stretches would not.
    rng = random.Random(7)
    stretches, per = 6, 4
    groups = [s for s in range(stretches) for _ in range(per)]

    def one_run() -> List[float]:
        shift = [rng.gauss(0, 0.03) for _ in range(stretches)]
        return [shift[g] + rng.gauss(0, 0.02) for g in groups]

    inside = naive = 0
    for _ in range(300):
        first, second = one_run(), one_run()
        c = stats.components(first, groups)
        half = stats.t975(c.df) * math.sqrt(2 * c.variance)
        mean, again = statistics.fmean(first), statistics.fmean(second)
        inside += abs(again - mean) <= half
        pooled = stats.t975(len(first) - 1) * statistics.stdev(first) * math.sqrt(2 / len(first))
        naive += abs(again - mean) <= pooled
    assert 0.90 <= inside / 300 <= 0.99
    assert naive / 300 < 0.85  # the processes alone miss the stretches


def test_the_model_pools_what_does_not_differ_between_stretches() -> None:
    logs = [0.01 * ((i * 7) % 5) for i in range(12)]
    same = stats.components(logs, [i % 3 for i in range(12)])  # no stretch effect to see
    assert (
        same.between == 0
        and same.df == 11
        and same.variance == pytest.approx(statistics.variance(logs) / 12)
    )
    apart = stats.components([g + 0.001 * i for i, g in enumerate([0, 0, 1, 1, 2, 2])],
                             [0, 0, 1, 1, 2, 2])  # fmt: skip
    assert apart.between > 0 and apart.df == pytest.approx(2, abs=0.1)  # the stretches' S - 1
    assert stats.t975(2.5) == pytest.approx((4.303 + 3.182) / 2)


def test_a_process_that_never_met_the_fast_state_is_pulled_in() -> None:
    logs = [0.0, 0.01, -0.01, 0.005, -0.005, 0.0, 0.3]  # the last: one side slowed throughout
    pulled = stats.winsorized(logs)
    assert pulled[:-1] == logs[:-1] and 0.01 < pulled[-1] < 0.05
    assert stats.winsorized([0.1, 0.1, 0.1, 0.5]) == [0.1, 0.1, 0.1, 0.5]  # no spread to judge by
    e = stats.from_logs(logs, [0, 0, 1, 1, 2, 2, 2], len(logs))
    assert abs(math.log(e.value)) < 0.01  # the figure: the processes that agree
    plain = stats.components(logs, [0, 0, 1, 1, 2, 2, 2])
    assert e.low < math.exp(plain.mean) < e.high  # the interval: every process as it was
    assert e.df <= 2  # three stretches: at most two degrees of freedom


def test_reruns_land_in_the_interval_when_some_processes_are_spoiled() -> None:
    # Processes vary 2%, stretches 0.5%, and one process in ten has a side that never ran
    # in the machine's fast state (+20% to +40%): the winsorized figure moves less from run
    # to run than the plain mean, and a rerun lands in the interval 90% of the time or more.
    rng = random.Random(11)
    groups = [s for s in range(6) for _ in range(3)]

    def one_run() -> List[float]:
        shift = [rng.gauss(0, 0.005) for _ in range(6)]
        spoiled = [rng.uniform(0.2, 0.4) if rng.random() < 0.1 else 0.0 for _ in groups]
        return [shift[g] + rng.gauss(0, 0.02) + x for g, x in zip(groups, spoiled)]

    inside, moved, moved_plain = 0, [], []
    for _ in range(300):
        first, second = one_run(), one_run()
        a, b = (stats.from_logs(x, groups, len(x)) for x in (first, second))
        inside += a.low <= b.value <= a.high
        moved.append(abs(math.log(b.value / a.value)))
        moved_plain.append(abs(statistics.fmean(second) - statistics.fmean(first)))
    assert inside / 300 >= 0.90
    assert statistics.median(moved) < 0.8 * statistics.median(moved_plain)


def test_a_run_outside_git_or_without_it_names_no_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # not a checkout (tmp_path may lie inside one, as under nox: git must not look above it)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert machine.tree(tmp_path) == ""
    if shutil.which("git"):  # (the Debian sid tree has none)
        assert machine.tree(Path(__file__).parent)  # this checkout's commit
    monkeypatch.setenv("PATH", str(tmp_path))  # no git at all: the Debian sid tree
    assert machine.tree(Path(__file__).parent) == ""
