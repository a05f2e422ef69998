"""The study from end to end: the conductor, the report, the docs, stability, callgrind's parser.

One real run of the study on this interpreter with a tiny budget goes through
every step to the report; the rest runs on synthetic runs with exact times.
"""

from __future__ import annotations

import io
import json
import math
import random
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Tuple

import bench_package
import pytest

bench_package.load()

from bench import __main__ as entry  # noqa: E402
from bench import store  # noqa: E402
from bench.catalog import modes  # noqa: E402
from bench.catalog.cases import Case  # noqa: E402
from bench.catalog.columns import Column, Listing  # noqa: E402
from bench.catalog.hash_study import HashStudy  # noqa: E402
from bench.catalog.targets import Twin, VariantInfo  # noqa: E402
from bench.conduct import conductor, launch  # noqa: E402
from bench.conduct.options import Options  # noqa: E402
from bench.core import stats  # noqa: E402
from bench.core.protocol import WorkerError  # noqa: E402
from bench.profile import callgrind, count_cache, marks  # noqa: E402
from bench.report import answers, publish, stability  # noqa: E402


def test_a_quick_study_on_this_interpreter_reaches_the_report(tmp_path: Path) -> None:
    argv = [
        "quick", "--python", f"here={sys.executable}", "--variants", "helpers,native",
        "--algorithms", "md5", "--lengths", "64,1024", "--benchmarks", "digest,getAndDigest,block",
        "--budget", "1", "--results", str(tmp_path),
    ]  # fmt: skip
    assert entry.main(argv) == 0
    (run,) = (tmp_path / "bench").iterdir()
    summary = json.loads((run / "summary.json").read_text())
    measured = {(c["benchmark"], c["variant"], c["length"]) for c in summary["cases"]}
    assert ("digest", "helpers", 1024) in measured and ("block", "helpers", 64) in measured
    assert ("getAndDigest", "hashlib", 64) in measured
    tables = {t["key"]: t for t in summary["tables"]}
    assert {"hashlib-1024", "hashlib-64", "bridges"} <= set(tables)
    helpers = next(r for r in tables["hashlib-1024"]["rows"] if r["labels"] == ["helpers", "md5"])
    assert helpers["cells"][0]["value"] > 1  # pure Python is slower than hashlib
    assert (run / "report.md").read_text().startswith("# Interpreter-overhead study")
    values = json.loads((run / "values.json").read_text())
    runs = values["here"]["digest/md5/helpers/64"]["runs"]
    assert len(runs) == 2 and len(runs[0]["values"]) == len(runs[0]["rounds"]) >= 1
    record = store.load(run)
    assert 0 <= record.header.steal < 1 and record.header.passes == 2
    assert record.column("here").mode.label == "here"
    helpers = record.measured[("here", "digest/md5/helpers/64")]
    # no streamlined, no headline to answer first: the effort's two whole passes (the budget),
    # cut over its four stretches
    assert set(helpers.stretches.values()) == {0, 2}
    assert record.header.stop["rule"] == "budget" and "unsettled" not in record.header.stop


def test_the_import_folder_links_to_this_checkout_whatever_was_there(tmp_path: Path) -> None:
    # several clones share one results folder (/tmp in tests): a link to another checkout's
    # bench/, or to one that was removed, is replaced
    (tmp_path / ".bench-import").mkdir()
    (tmp_path / ".bench-import" / "bench").symlink_to(tmp_path / "gone")
    folder = launch.import_folder(tmp_path)
    assert (folder / "bench").resolve() == launch.BENCH
    assert sorted(p.name for p in folder.iterdir()) == ["bench"]
    assert launch.import_folder(tmp_path) == folder


def test_modes_share_their_interpreter_environment(tmp_path: Path) -> None:
    args = Options(python=("3.11=/venv/bin/python",))
    chosen = launch.columns_of(args)
    labels = [c.label for c in chosen]
    assert labels == [m.label for m in modes.modes_of("3.11")]
    assert all(c.program == "/venv/bin/python" for c in chosen)
    portable = next(c for c in chosen if c.mode.variants)
    argv, env, _ = launch.command(portable, tmp_path)
    assert argv == ["/venv/bin/python", "-m", "bench.conduct.worker"]
    assert env["VARIANTS_NATIVE_PORTABLE"] == "1"
    assert json.loads(json.dumps(portable.mode.as_json()))["env"] == {
        "VARIANTS_NATIVE_PORTABLE": "1"
    }
    jdk = Column(modes.Mode("x", "x", {}, ("-Xint",), None, ""), "/usr/bin/java", classpath="/c")
    quiet = list(modes.JAVA_OPTIONS)
    assert launch.command(jdk, tmp_path)[0] == [
        "/usr/bin/java",
        "-Xint",
        *quiet,
        "-cp",
        "/c",
        "Worker",
    ]
    with pytest.raises(SystemExit, match="no environment"):
        launch.columns_of(Options(python=("3.11=/x",), modes="3.12"))
    # an interpreter the table knows but measures in no mode (3.9) is a plain mode, not dropped
    assert not modes.modes_of("3.9")
    (nine,) = launch.columns_of(Options(python=("3.9=/old/bin/python",)))
    assert (nine.label, nine.mode.interpreter, nine.program) == ("3.9", "3.9", "/old/bin/python")
    assert launch.command(nine, tmp_path)[0] == ["/old/bin/python", "-m", "bench.conduct.worker"]


def test_the_conductor_stops_on_a_worker_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = 'import sys; sys.stdin.readline(); print(\'{"error": "WrongDigest: md5"}\')'

    def command(column: Column, results: Path, before: Any = ()) -> Any:
        return [sys.executable, "-c", reply], {}, tmp_path

    monkeypatch.setattr(launch, "command", command)
    column = Column(modes.Mode("here", "here", {}, (), None, ""), sys.executable)
    with open(tmp_path / "log", "w") as log, launch.worker(column, tmp_path, log) as w:
        with pytest.raises(WorkerError, match="WrongDigest"):
            w.ask({"op": "prepare", "cases": []})
        with pytest.raises(WorkerError, match="died"):
            w.ask({"op": "prepare", "cases": []})


# --- a synthetic noisy machine ------------------------------------------------------

#: Seconds per operation of each row; the interpreted ones are slowed by contention.
TRUE = {"helpers": 4e-3, "streamlined": 1e-3, "native": 1.1e-5, "hashlib": 1e-5}
#: Process-to-process spread (sd of log) of each row: where a process's memory lands;
#: helpers spreads 2% at 1 KiB.
PROCESS = {"helpers": 0.004, "streamlined": 0.004, "native": 0.003, "hashlib": 0.003}


class Machine:
    """A noisy machine: each process draws its own speed per case, each value its noise,
    and a quarter of the values of interpreted code run 1.3x slow (the caches are shared)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def worker(self, column: Column, results: Path, log: Any) -> Any:
        rng = self.rng
        factor = 2.0 if column.label == "b" else 1.0

        class Fake:
            def __init__(self) -> None:
                self.speed: Dict[str, float] = {}

            def ask(self, request: Dict[str, Any]) -> Dict[str, Any]:
                if request["op"] == "prepare":
                    out: Dict[str, Any] = {}
                    for entry in request["cases"]:
                        case = Case.parse(entry["name"])
                        spread = 0.02 if case[2:4] == ("helpers", 1024) else PROCESS[case.variant]
                        self.speed[entry["name"]] = math.exp(rng.gauss(0, spread))
                        variant = case.variant
                        seconds = TRUE[variant] * factor
                        out[entry["name"]] = {
                            "loops": entry["loops"] or max(1, int(0.002 / seconds)),
                            "seconds": 0.002, "prepare_seconds": 0.004,
                            "warmups": [], "warmed": True,
                        }  # fmt: skip
                    return {"cases": out}
                name = request["case"]
                variant = Case.parse(name).variant
                slow = 1.3 if variant in ("helpers", "streamlined") and rng.random() < 0.25 else 1
                value = TRUE[variant] * factor * self.speed[name] * slow
                value *= math.exp(rng.gauss(0, 0.01))
                return {"value": value, "wall": 0.002}

            def close(self) -> None:
                self.speed.clear()

        return Fake()


def synthetic_study(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> Tuple[conductor.Conductor, Path]:
    machine = Machine(seed)
    monkeypatch.setattr(launch, "worker", machine.worker)
    names = [
        Case(benchmark, "md5", variant, length).name
        for benchmark in ("digest", "getAndDigest")
        for length in (64, 1024, 16384)
        for variant in TRUE
    ]
    kinds = {"helpers": "interpreted", "streamlined": "interpreted", "native": "native"}
    variants = {v: VariantInfo(v, kinds.get(v, "reference"), v) for v in TRUE}
    listing = Listing({"implementation": "CPython"}, variants, tuple(names))
    columns = [Column(modes.Mode(x, x, {}, (), None, "-Xint"), "python", listing) for x in "ab"]
    settings = replace(conductor.EFFORTS["default"], budget=40.0, slow_limit=None)
    folder = tmp_path / f"run{seed}"
    folder.mkdir()
    run = conductor.Conductor(HashStudy(), columns, settings, folder, tmp_path, io.StringIO())
    outcome = run.run()
    header = store.Header("default", {"clock": "cpu"}, "Test CPU", "", 1.0, 1.0, **{
        k: outcome[k] for k in ("passes", "steal", "plan")})  # fmt: skip
    store.write(folder, header, columns, run.data)
    return run, folder


def test_two_noisy_studies_agree_within_their_intervals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = (
        stability.estimates(
            answers.build(store.load(synthetic_study(tmp_path, seed, monkeypatch)[1]))
        )
        for seed in (1, 2)
    )
    assert first.keys() == second.keys() and len(first) > 30
    inside = stability.coverage(first, second)
    assert 0.85 <= inside <= 1.0  # honest 95% rerun intervals hold about 95% of a rerun
    quiet = [k for k in first if k[0] == "hashlib-64" and k[1][0] == "native"]
    assert quiet and all(abs(second[k].value / first[k].value - 1) <= 0.05 for k in quiet)
    assert all(first[k].low <= 1.1 <= first[k].high for k in quiet)  # native ÷ hashlib: 1.1


def test_the_budget_goes_to_the_readmes_ratios_and_every_group_has_a_pass_a_stretch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, _ = synthetic_study(tmp_path, 3, monkeypatch)
    shown = [m for m in run.readme if m[1] in run.data[m[0]]]
    others = [(label, n) for label, cases in run.data.items() for n in cases
              if (label, n) not in run.readme]  # fmt: skip
    count = {(label, n): len(c.runs) for label, cases in run.data.items() for n, c in cases.items()}
    settings = conductor.EFFORTS["default"]
    assert shown and others
    assert all(count[m] == settings.least for m in others)
    assert min(count[m] for m in shown) > settings.stretches
    for label, cases in run.data.items():
        for name, c in cases.items():
            where = [r.stretch for r in c.runs]
            assert where[0] == 0 and where[-1] == settings.stretches - 1  # over the whole run
            if (label, name) in run.readme:
                assert set(where) == set(range(settings.stretches))


# --- synthetic runs ------------------------------------------------------------------

#: Seconds per byte of each row on 3.10; 3.12 runs everything twice as fast.
SPEED = {
    "streamlined": 1e-6,
    "streamlined-lanes": 1.5e-6,
    "helpers": 4e-6,
    "helpers-mypyc": 4e-7,
    "native": 1.1e-9,
    "hashlib": 1e-9,
}
FACTOR = {"3.10": 1.0, "3.12": 0.5}


def info(name: str) -> VariantInfo:
    kinds = {"hashlib": "reference", "helpers-mypyc": "compiled", "native": "native"}
    twin = Twin("helpers", "mypyc") if name == "helpers-mypyc" else None
    block = () if name == "hashlib" else ("md5", "sha256")
    return VariantInfo(name, kinds.get(name, "interpreted"), name, twin=twin, block=block)


def make_run(folder: Path, scale: float = 1.0, contended: float = 1.0) -> Path:
    """A run's folder as the conductor leaves it, with exact synthetic times.

    Every third round the interpreted rows run ``contended`` times slower.
    """
    folder.mkdir(parents=True)
    data: Dict[str, Dict[str, store.CaseRuns]] = {}
    for label, factor in FACTOR.items():
        data[label] = {}
        for variant, per_byte in SPEED.items():
            for alg in ("md5", "sha256"):
                if variant == "streamlined-lanes" and alg == "md5":
                    continue
                for length in (64, 16384):
                    for benchmark in ("digest", "getAndDigest", "block"):
                        if benchmark == "block" and variant == "hashlib":
                            continue
                        base = per_byte * length * factor * scale
                        slow = contended if info(variant).kind == "interpreted" else 1.0
                        values = [base * (slow if r % 3 == 2 else 1.0) for r in range(4)]
                        runs = [store.Pass(p, 1, [], True, p, list(range(4)), values)
                                for p in range(3)]  # fmt: skip
                        name = Case(benchmark, alg, variant, length).name
                        data[label][name] = store.CaseRuns(1, 0.0, 0.0, runs)
    columns = [
        Column(modes.Mode(label, label, {}, (), None, "-Xint"), "python",
               Listing({"implementation": "CPython", "version": label + ".0"},
                       {v: info(v) for v in SPEED},
                       batch_unavailable="not available in this build"))
        for label in FACTOR
    ]  # fmt: skip
    builds = {"3.10": {"generate": 9.5, "extensions": {"a.b": 2.0}, "parallel": 2}}
    header = store.Header("default", {"clock": "cpu", "slow_limit": 0.1}, "Test CPU, 2 cores",
                          "2026-01-02 03:04:05", 60.0, 50.0, 3, 0.0, builds=builds)  # fmt: skip
    store.write(folder, header, columns, data)
    return folder


def test_report_files_and_stability_of_two_runs(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a")
    second = make_run(tmp_path / "b", scale=1.5, contended=1.5)  # slower, and contended
    for folder in (first, second):
        assert publish.report_main([str(folder), "--no-plots"]) == 0
    text = (first / "report.md").read_text()
    assert text.startswith("# Interpreter-overhead study") and "MessageDigests.digest" in text
    assert "not available in this build" in text and "Build times" in text
    a, b = (stability.estimates(publish.load_report(f)) for f in (first, second))
    moved = stability.changes(a, b)
    assert moved and stability.within(moved, 0.01) == 1.0


def test_stability_counts_what_moved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = make_run(tmp_path / "a")
    second = make_run(tmp_path / "b")
    values = json.loads((second / "values.json").read_text())
    for name, case in values["3.12"].items():  # helpers under 3.12 moved by 15%
        for run in case["runs"]:
            run["values"] = [v * (1.15 if "/helpers/" in name else 1) for v in run["values"]]
    (second / "values.json").write_text(json.dumps(values))
    assert stability.main([str(first), str(first), "--strict"]) == 0
    assert stability.main([str(first), str(second), "--strict"]) == 1
    out = capsys.readouterr().out.split("vs b:")[-1]
    assert "all ratios: the second run inside the first's 95% intervals" in out
    assert ": missed" in out and "Where the variance came from" in out


def test_a_between_run_term_widens_an_interval_in_quadrature() -> None:
    e = stats.Estimate(2.0, 2.0 * math.exp(-0.03), 2.0 * math.exp(0.04), 8, 4)
    same = e.widened(0.0)
    assert same.low == pytest.approx(e.low)
    assert same.high == pytest.approx(e.high)
    wide = e.widened(0.04)
    assert math.log(wide.value / wide.low) == pytest.approx(0.05)
    assert math.log(wide.high / wide.value) == pytest.approx(math.hypot(0.04, 0.04))
    assert (wide.value, wide.n, wide.processes) == (2.0, 8, 4)


def test_callgrind_parser_keeps_the_least_count() -> None:
    parts = []
    for rep, (short, long) in enumerate([(1000, 4840), (900, 4740), (50_000, 4740)]):
        for length, total in ((marks.SHORT, short), (marks.LONG, long)):
            parts.append(
                f"desc: Trigger: Client Request: native|md5|{rep}|{length}\ntotals: {total}"
            )
    parsed = callgrind.parse("\n".join(parts))
    per_byte = parsed[("native", "md5")]["instructions_per_byte"]
    assert per_byte == pytest.approx((4740 - 900) / (marks.LONG - marks.SHORT))


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.skipif(sys.implementation.name != "cpython", reason="kept short: CPython only")
def test_callgrind_counts_the_same_twice(tmp_path: Path) -> None:
    here = Column(modes.Mode("here", "here", {}, (), None, ""), sys.executable)
    found = [callgrind.count(here, ["hashlib"], ["md5"], tmp_path)[0] for _ in range(2)]
    first, second = (f[("hashlib", "md5")]["instructions_per_byte"] for f in found)
    assert 2 < first == second < 100  # MD5: a handful of instructions per byte


def test_callgrind_counts_are_kept_and_reused_under_their_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second run of the same mode, environment and bench sources reuses the counts the
    cache keeps; another mode, or --recount, counts again; a mode without counts keeps none."""
    monkeypatch.setenv("VARIANTS_CACHE", str(tmp_path / "cache"))
    calls = []

    def count(column: Column, *_: Any) -> Tuple[Dict[Any, Any], Any]:
        calls.append(column.label)
        if column.label == "none":
            return {}, "no valgrind here"
        return {("helpers", "md5"): {"instructions_per_byte": 12.5 + len(calls),
                                     "instructions_short_message": 900}}, None  # fmt: skip

    monkeypatch.setattr(callgrind, "count", count)
    a, b, none = (
        Column(modes.Mode(x, x, {}, (), None, ""), sys.executable) for x in ("a", "b", "none")
    )
    first = count_cache.count_kept(a, ["helpers"], ["md5"], tmp_path, reuse=True)
    again = count_cache.count_kept(a, ["helpers"], ["md5"], tmp_path, reuse=True)
    assert first == again and calls == ["a"]
    count_cache.count_kept(b, ["helpers"], ["md5"], tmp_path, reuse=True)
    recounted, _ = count_cache.count_kept(a, ["helpers"], ["md5"], tmp_path, reuse=False)
    assert calls == ["a", "b", "a"] and recounted != first[0]
    assert count_cache.count_kept(none, ["helpers"], ["md5"], tmp_path, reuse=True) == (
        {},
        "no valgrind here",
    )
    count_cache.count_kept(none, ["helpers"], ["md5"], tmp_path, reuse=True)
    assert calls.count("none") == 2
    assert count_cache.counts_key(a, ["helpers"], ["md5"]) != count_cache.counts_key(
        a, ["helpers"], ["sha256"]
    )


@pytest.mark.skipif(sys.implementation.name != "pypy", reason="PyPy's JIT and its --jit off")
@pytest.mark.parametrize("jit", [True, False])
def test_callgrind_warm_up_leaves_pypys_jit_as_the_mode_started_it(jit: bool) -> None:
    # What count_here does before it counts, in a process started as the mode starts it, then
    # a hot loop: with --jit off nothing may be compiled (a lowered threshold turned it back on).
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench_package; bench_package.load()\n"
        "from bench.profile.marks import lower_jit_thresholds\n"
        "from bench.core.timing import Jit\n"
        "Jit.watch(); lower_jit_thresholds(sys.argv[2] == 'on')\n"
        "def hot(n):\n    s = 0\n    for i in range(n): s += i * i\n    return s\n"
        "hot(200000); print(Jit.events)"
    )
    options = [] if jit else ["--jit", "off"]
    tests = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, *options, "-c", code, tests, "on" if jit else "off"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert (int(done.stdout) > 0) == jit


# --- the stopping rule ----------------------------------------------------------------


class Clocked(conductor.Conductor):
    """A conductor on a fake clock and fake workers: a pass costs ``SECOND`` a case, and each
    process's time of a case is its true time times exp(N(0, spread))."""

    SECOND = 1.0

    def __init__(self, spread: float, settings: conductor.Settings, tmp_path: Path) -> None:
        self.clock, self.spread, self.rng = 0.0, spread, random.Random(7)
        names = [Case(b, "md5", v, n).name for b in ("digest", "getAndDigest")
                 for n in (64, 1024, 16384) for v in TRUE]  # fmt: skip
        kinds = {"helpers": "interpreted", "streamlined": "interpreted", "native": "native"}
        variants = {v: VariantInfo(v, kinds.get(v, "reference"), v) for v in TRUE}
        listing = Listing({"implementation": "CPython"}, variants, tuple(names))
        columns = [Column(modes.Mode(x, x, {}, (), None, "-Xint"), "python", listing) for x in "ab"]
        super().__init__(
            HashStudy(), columns, settings, tmp_path, tmp_path, io.StringIO(), lambda: self.clock
        )

    def one_pass(self, p: int, todo: Dict[Any, Any]) -> None:
        started = self.clock
        for key, members in todo.items():
            for label, name in members:
                truth = TRUE[Case.parse(name).variant]
                value = truth * math.exp(self.rng.gauss(0, self.spread))
                found = self.data[label].setdefault(name, store.CaseRuns(1, truth))
                found.runs.append(store.Pass(p, 1, [], True, self.stretch(p), [0], [value]))
                self.cost[key][(label, name)] = self.SECOND
                self.clock += self.SECOND
        self.took.append(self.clock - started)
        self.steal.append(0.0)
        self.done.append(p)


def stopping(spread: float, tmp_path: Path, budget: float) -> Tuple[Clocked, Dict[str, Any]]:
    settings = replace(conductor.EFFORTS["default"], budget=budget, slow_limit=None)
    run = Clocked(spread, settings, tmp_path)
    return run, run.run()


def test_the_conductor_stops_once_the_readmes_ratios_are_precise(tmp_path: Path) -> None:
    run, outcome = stopping(0.01, tmp_path, 2000.0)
    settings, stop = run.settings, outcome["stop"]
    assert settings.target is not None and 0.03 < settings.target < 0.05  # 5% less RUN_TERM
    assert stop["rule"] == "precision" and stop["half_width"] <= settings.target
    assert outcome["passes"] < outcome["plan"]["passes"] and outcome["measure_seconds"] < 2000
    # not before a process in every stretch, and under the target at `confirm` looks in a row
    assert stop["passes"] == settings.first_stop + settings.confirm - 1
    assert settings.first_stop >= settings.stretches and settings.confirm == 2
    # a whole pass still owed came between the two looks, the rest after the stop
    whole = [run.whole(p) for p in run.done[1:]]
    assert whole[settings.first_stop - 1] and all(whole[stop["passes"] - 1 :])
    assert sum(whole) == settings.least - 1
    others = [c for label, cases in run.data.items() for n, c in cases.items()
              if (label, n) not in run.readme]  # fmt: skip
    assert others and all(len(c.runs) == settings.least for c in others)
    for label, name in run.readme:
        where = [r.stretch for r in run.data[label][name].runs]
        assert set(where) == set(range(settings.stretches)) and where == sorted(where)
    header = store.Header("default", {}, "CPU", "", 1.0, 1.0, 1, 0.0, stop=stop)
    assert header.stopped.startswith(f"stopped after {stop['passes']} passes")
    assert "precise enough" in header.stopped


def test_one_look_under_the_target_does_not_stop_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = replace(conductor.EFFORTS["default"], budget=2000.0, slow_limit=None)
    run = Clocked(0.01, settings, tmp_path)
    assert settings.target is not None
    low, high = settings.target * 0.9, settings.target * 1.1
    widths = iter([low, high, low, high, low, low] + [low] * 50)  # from the first look on
    monkeypatch.setattr(run, "precision", lambda: next(widths))
    outcome = run.run()
    assert outcome["stop"]["rule"] == "precision"
    assert outcome["stop"]["passes"] == settings.first_stop + 5  # the sixth look, the second low


def test_the_conductor_takes_its_budget_when_the_ratios_stay_wide(tmp_path: Path) -> None:
    run, outcome = stopping(0.3, tmp_path, 300.0)
    stop = outcome["stop"]
    assert stop["rule"] == "budget" and stop["half_width"] > run.settings.target
    assert outcome["passes"] < run.settings.max_passes
    assert 300 - 2 * max(run.took) <= outcome["measure_seconds"] <= 300
    assert "the budget spent" in store.Header("d", {}, "", "", 1, 1, 1, 0, stop=stop).stopped


class Started(Clocked):
    """A conductor whose first pass costs three times what each pass after it does (its
    processes' start and calibration), as a first pass of the study does."""

    def one_pass(self, p: int, todo: Dict[Any, Any]) -> None:
        self.SECOND = 3.0 if p == 0 else 1.0
        super().one_pass(p, todo)


def test_the_readme_s_cases_take_the_budget_the_first_pass_made_look_spent(tmp_path: Path) -> None:
    probe = Started(0.01, replace(conductor.EFFORTS["default"], slow_limit=None), tmp_path)
    cases = sum(len(ms) for ms in probe.members.values())
    # From pass 0's costs the plan has no pass of the README's cases alone: its least passes
    # look like the whole budget; each pass after the first costs a third of what it said.
    budget = 3 * cases * probe.settings.least + 1
    settings = replace(conductor.EFFORTS["default"], budget=budget, slow_limit=None)
    (tmp_path / "run").mkdir()
    run = Started(0.01, settings, tmp_path / "run")
    outcome = run.run()
    assert outcome["plan"]["passes"] > settings.least  # passes added after the plan
    stop = outcome["stop"]
    assert stop["rule"] == "precision" and outcome["measure_seconds"] <= budget
    for label, name in run.readme:
        assert {r.stretch for r in run.data[label][name].runs} == set(range(settings.stretches))


def test_an_effort_without_a_promise_never_stops_early(tmp_path: Path) -> None:
    settings = replace(conductor.EFFORTS["default"], promise=None, budget=400.0, slow_limit=None)
    run = Clocked(0.0, settings, tmp_path)
    outcome = run.run()
    assert settings.target is None and outcome["stop"]["rule"] in ("budget", "passes")
    assert outcome["passes"] > settings.first_stop


def test_a_result_file_says_its_format_and_another_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memory.json"
    store.write_record(path, {"rows": [1, 2]})
    assert json.loads(path.read_text())["format"] == store.FORMAT
    assert store.read_record(path) == {"rows": [1, 2]}
    path.write_text(json.dumps({"rows": []}))  # written before formats were recorded: 1
    assert store.read_record(path) == {"rows": []}
    path.write_text(json.dumps({"format": store.FORMAT + 1, "rows": []}))
    with pytest.raises(store.FormatError, match="measure again"):
        store.read_record(path)
    folder = store.new_folder("peers", tmp_path)
    assert folder.is_dir() and folder.parent == tmp_path / "peers"


def test_runs_started_in_one_second_get_folders_of_their_own_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "stamp", lambda: "20261206-083000")
    made = [store.new_folder("styles", tmp_path) for _ in range(11)]
    assert len(set(made)) == 11 and all(p.is_dir() for p in made)
    assert [p.name for p in made[:3]] == ["20261206-083000", "20261206-083000-2",
                                          "20261206-083000-3"]  # fmt: skip
    for folder in made:  # each a finished run, in the order made: -10 and -11 after -9
        (folder / "summary.json").write_text("{}")
        assert store.newest("styles", "summary.json", tmp_path) == folder
    monkeypatch.setattr(store, "stamp", lambda: "20261206-083001")
    later = store.new_folder("styles", tmp_path)
    (later / "summary.json").write_text("{}")
    assert store.newest("styles", "summary.json", tmp_path) == later


def test_one_cpython_and_a_jdk_without_root_or_the_tree_measure_their_modes_and_name_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, where in (("VARIANTS_DEBIAN_ROOT", "no-tree"), ("PYENV_ROOT", "no-pyenv"),
                        ("VARIANTS_FREETHREADED_CACHE", "no-ft"), ("PATH", "bin")):  # fmt: skip
        monkeypatch.setenv(name, str(tmp_path / where))
    pythons = tmp_path / "pythons.json"
    jdk = {"program": "/jvm/java", "classpath": "/c"}
    pythons.write_text(json.dumps({"3.11": "/venv/bin/python", "jdk17": jdk}))
    args = Options(pythons=pythons)
    here = [c.label for c in launch.columns_of(args)]
    assert here == [m.label for m in modes.MODES if m.interpreter in ("3.11", "jdk17")]
    missing = launch.left_out(args)
    studied = {row.label for row in modes.study_interpreters()}
    assert set(missing) == {m.label for m in modes.MODES
                            if m.interpreter in studied - {"3.11", "jdk17"}}  # fmt: skip
    assert "as root: python3 tools/debian.py ensure sid" in missing["3.14-jit"]
    assert "apt-get install pypy3" in missing["pypy3-nojit"] and "pyenv install" in missing["3.12"]
    line = store.Header("quick", {}, "", "", 1, 1, 1, 0, left_out=missing).left_out_line
    assert line.count("tools/debian.py ensure sid") == 1 and "3.15-jit" in line  # grouped
    assert launch.left_out(Options(pythons=pythons, modes="3.11*")) == {}


def test_the_promise_is_an_option_and_zero_takes_the_whole_budget() -> None:
    default = conductor.settings_of(Options.of(entry.parse(["run"])))
    assert default.promise == 0.05 and default.first_stop == default.stretches
    assert conductor.settings_of(Options.of(entry.parse(["run", "--promise", "0"]))).target is None
    wider = conductor.settings_of(Options.of(entry.parse(["run", "--promise", "0.06"]))).target
    assert wider == pytest.approx(math.sqrt(0.06**2 - stats.RUN_TERM**2))
