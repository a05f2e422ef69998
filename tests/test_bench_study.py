"""The study from end to end: the conductor, the report, the docs, stability, callgrind's parser.

One real run of the study on this interpreter with a tiny budget goes through
every step to the report; the rest runs on synthetic runs with exact times.
"""

from __future__ import annotations

import argparse
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
from bench import callgrind, columns, interpreters, layout, report, stability, stats, study  # noqa: E402
from bench.cases import Case  # noqa: E402


def test_a_quick_study_on_this_interpreter_reaches_the_report(tmp_path: Path) -> None:
    argv = [
        "quick", "--python", f"here={sys.executable}", "--variants", "helpers,native",
        "--algorithms", "md5", "--lengths", "64,1024", "--benchmarks", "digest,getAndDigest,block",
        "--budget", "1", "--results", str(tmp_path),
    ]  # fmt: skip
    assert entry.main(argv) == 0
    (run,) = (tmp_path / "bench").iterdir()
    summary = json.loads((run / "summary.json").read_text())
    measured = {(c["mode"], c["variant"], c["length"]) for c in summary["cases"]}
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
    record = json.loads((run / "study.json").read_text())
    assert 0 <= record["steal"]["share"] < 1 and record["passes"] == 2
    assert record["interpreters"]["here"]["mode"]["label"] == "here"


def test_the_import_folder_links_to_this_checkout_whatever_was_there(tmp_path: Path) -> None:
    # several clones share one results folder (/tmp in tests): a link to another checkout's
    # bench/, or to one that was removed, is replaced
    (tmp_path / ".bench-import").mkdir()
    (tmp_path / ".bench-import" / "bench").symlink_to(tmp_path / "gone")
    folder = layout.import_folder(tmp_path)
    assert (folder / "bench").resolve() == layout.BENCH
    assert sorted(p.name for p in folder.iterdir()) == ["bench"]
    assert layout.import_folder(tmp_path) == folder


def test_modes_share_their_interpreter_environment(tmp_path: Path) -> None:
    args = argparse.Namespace(python=["3.11=/venv/bin/python"], pythons=None, modes="")
    chosen = columns.columns_of(args)
    labels = [c.label for c in chosen]
    assert labels == [m.label for m in interpreters.modes_of("3.11")]
    assert all(c.python == "/venv/bin/python" for c in chosen)
    portable = next(c for c in chosen if c.mode.variants)
    argv, env, _ = portable.command("worker", "serve", results=tmp_path)
    assert argv[0] == "/venv/bin/python" and argv[-2:] == ["bench.worker", "serve"]
    assert env["VARIANTS_NATIVE_PORTABLE"] == "1"
    assert json.loads(json.dumps(portable.record()))["env"] == {"VARIANTS_NATIVE_PORTABLE": "1"}
    pypy = {"interpreter": {"implementation": "PyPy"}}
    for label, warms in (("pypy8", True), ("pypy8-nojit", False), ("3.14-jit", False)):
        listing = (
            pypy if label.startswith("pypy") else {"interpreter": {"implementation": "CPython"}}
        )
        assert columns.Column(interpreters.mode(label), "/x", listing).jit is warms
    with pytest.raises(SystemExit, match="no environment"):
        columns.columns_of(argparse.Namespace(python=["3.11=/x"], pythons=None, modes="3.12"))


def test_the_conductor_stops_on_a_worker_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = 'import sys; sys.stdin.readline(); print(\'{"error": "WrongDigest: md5"}\')'

    def command(python: str, module: str, *args: str, results: Path) -> Any:
        return [sys.executable, "-c", reply], {}, tmp_path

    monkeypatch.setattr(columns, "module_command", command)
    column = columns.Column(interpreters.Mode("here", "here", {}, (), None, ""), sys.executable)
    with open(tmp_path / "log", "w") as log:
        w = study.Worker(column, tmp_path, log)
        with pytest.raises(study.StudyError, match="WrongDigest"):
            w.ask({"op": "prepare", "cases": []})
        w.close()


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

    def worker(self, column: columns.Column, results: Path, log: Any) -> Any:
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


def synthetic_study(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> study.Study:
    machine = Machine(seed)
    monkeypatch.setattr(study, "Worker", machine.worker)
    names = [
        Case(mode, "md5", variant, length).name
        for mode in ("digest", "getAndDigest")
        for length in (64, 1024)
        for variant in TRUE
    ]
    info = {"implementation": "CPython"}
    kinds = {v: {"kind": "interpreted" if v in ("helpers", "streamlined") else "C"} for v in TRUE}
    modes = [
        columns.Column(
            interpreters.Mode(x, x, {}, (), None, ""),
            "python",
            {"interpreter": info, "cases": names, "variants": kinds},
        )
        for x in ("a", "b")
    ]
    settings = replace(study.SETTINGS["default"], budget=40.0, slow_limit=None)
    folder = tmp_path / f"run{seed}"
    folder.mkdir()
    run = study.Study(modes, settings, folder, tmp_path, io.StringIO())
    run.run()
    return run


def estimates(run: study.Study) -> Dict[Tuple[str, str, str, str], stats.Estimate]:
    found = {}
    for members in run.members.values():
        for a, b in columns.pairs(members, run.columns):
            values = [
                {
                    (r["pass"], i): v
                    for r in run.data[m[0]][m[1]].runs
                    for i, v in enumerate(r["values"])
                }
                for m in (a, b)
            ]
            estimate = stats.ratio(values[0], values[1])
            assert estimate is not None
            found[(a[0], a[1], b[0], b[1])] = estimate
    return found


def test_two_noisy_studies_agree_within_their_intervals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = (estimates(synthetic_study(tmp_path, seed, monkeypatch)) for seed in (1, 2))
    assert first.keys() == second.keys() and len(first) == 48
    inside = stability.coverage(first, second)
    assert 0.85 <= inside <= 1.0  # honest 95% rerun intervals hold about 95% of a rerun
    settled = [k for k in first if first[k].settled and second[k].settled]
    quiet = [k for k in first if "helpers/1024" not in k[1] + k[3]]  # helpers' spread
    assert set(quiet) <= set(settled) and len(settled) >= 0.6 * len(first)
    assert all(abs(second[k].value / first[k].value - 1) <= 0.1 for k in settled)

    def true(label: str, name: str) -> float:
        return TRUE[Case.parse(name).variant] * (2.0 if label == "b" else 1.0)

    truth = {k: true(k[0], k[1]) / true(k[2], k[3]) for k in first}
    assert all(
        first[k].low <= truth[k] * 1.03 and first[k].high >= truth[k] / 1.03 for k in settled
    )


def test_the_budget_goes_where_the_noise_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = synthetic_study(tmp_path, 3, monkeypatch)
    quiet, noisy = (run.passes[("digest", "md5", n, 1)] for n in (64, 1024))
    assert study.SETTINGS["default"].passes <= quiet < noisy  # helpers spreads at 1 KiB only
    assert run.spent[("digest", "md5", 64, 1)] < run.spent[("digest", "md5", 1024, 1)]


# --- synthetic runs ------------------------------------------------------------------

#: Seconds per byte of each row on 3.10; 3.12 runs everything twice as fast.
SPEED = {
    "streamlined": 1e-6,
    "streamlined-words": 1.5e-6,
    "helpers": 4e-6,
    "helpers-mypyc": 4e-7,
    "native": 1.1e-9,
    "hashlib": 1e-9,
}
FACTOR = {"3.10": 1.0, "3.12": 0.5}


def info(name: str) -> Dict[str, Any]:
    kinds = {"hashlib": "reference", "helpers-mypyc": "compiled", "native": "native"}
    twin = name == "helpers-mypyc"
    return {
        "kind": kinds.get(name, "interpreted"),
        "description": name,
        "algorithms": ["md5", "sha256"],
        "source": "helpers" if twin else None,
        "compiler": "mypyc" if twin else None,
        "annotations": "" if twin else None,
        "details": "",
        "unavailable": None,
        "block": [] if name == "hashlib" else ["md5", "sha256"],
    }


def make_run(folder: Path, scale: float = 1.0, contended: float = 1.0) -> Path:
    """A run's folder as the conductor leaves it, with exact synthetic times.

    Every third round the interpreted rows run ``contended`` times slower.
    """
    folder.mkdir(parents=True)
    values: Dict[str, Dict[str, Any]] = {}
    for label, factor in FACTOR.items():
        values[label] = {}
        for variant, per_byte in SPEED.items():
            for alg in ("md5", "sha256"):
                if variant == "streamlined-words" and alg == "md5":
                    continue
                for length in (64, 16384):
                    for mode in ("digest", "getAndDigest", "block"):
                        if mode == "block" and variant == "hashlib":
                            continue
                        base = per_byte * length * factor * scale
                        slow = contended if info(variant)["kind"] == "interpreted" else 1.0
                        runs = [
                            {
                                "pass": p,
                                "loops": 1,
                                "warmups": [],
                                "settled": True,
                                "rounds": list(range(4)),
                                "values": [base * (slow if r % 3 == 2 else 1.0) for r in range(4)],
                            }
                            for p in range(3)
                        ]
                        name = Case(mode, alg, variant, length).name
                        values[label][name] = {"loops": 1, "runs": runs}
    record = {
        "mode": "default",
        "settings": {"passes": 3, "clock": "cpu", "slow_limit": 0.1},
        "cpu": "Test CPU, 2 cores",
        "started": "2026-01-02 03:04:05",
        "wall_seconds": 60.0,
        "measure_seconds": 50.0,
        "skipped": {},
        "builds": {"3.10": {"generate": 9.5, "extensions": {"a.b": 2.0}, "parallel": 2}},
        "interpreters": {
            label: {
                "implementation": "CPython",
                "version": label + ".0",
                "label": label,
                "variants": {v: info(v) for v in SPEED},
                "batch": {"variant": None, "unavailable": "not available in this build"},
            }
            for label in FACTOR
        },
    }
    (folder / "study.json").write_text(json.dumps(record))
    (folder / "values.json").write_text(json.dumps(values))
    return folder


def test_report_files_and_stability_of_two_runs(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a")
    second = make_run(tmp_path / "b", scale=1.5, contended=1.5)  # slower, and contended
    for folder in (first, second):
        assert report.main([str(folder), "--no-plots"]) == 0
    text = (first / "report.md").read_text()
    assert text.startswith("# Interpreter-overhead study") and "MessageDigests.digest" in text
    assert "not available in this build" in text and "Build times" in text
    devs = stability.deviations(stability.ratios(first), stability.ratios(second))
    assert devs and stability.share_within(devs, 0.01) == 1.0


def test_stability_counts_what_moved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = make_run(tmp_path / "a")
    second = make_run(tmp_path / "b")
    for folder in (first, second):
        report.main([str(folder), "--no-plots"])
    summary = json.loads((second / "summary.json").read_text())
    for r in summary["ratios"][::4]:
        r["value"] *= 1.15  # a quarter of the ratios moved by 15%
    (second / "summary.json").write_text(json.dumps(summary))
    assert stability.main([str(first), str(second), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "settled ratios agree within 10% (target at least 90%: missed)" in out
    assert "settled ratios agree within 20% (target at least 97%: met)" in out
    assert "ratios settled in both runs: 100.0%" in out
    assert "second run inside the first's 95% intervals: 74.8% (target at least 90%: missed)" in out
    # A between-run term as large as the shift holds every moved ratio; none leaves them out.
    assert stability.main([str(first), str(second), "--floor", "0", "--floor", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "with a between-run term of 0.0%: 74.8% of the second run inside" in out
    assert "with a between-run term of 20.0%: 100.0% of the second run inside" in out


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
        for length, total in ((callgrind.SHORT, short), (callgrind.LONG, long)):
            parts.append(
                f"desc: Trigger: Client Request: native|md5|{rep}|{length}\ntotals: {total}"
            )
    parsed = callgrind.parse("\n".join(parts))
    per_byte = parsed[("native", "md5")]["instructions_per_byte"]
    assert per_byte == pytest.approx((4740 - 900) / (callgrind.LONG - callgrind.SHORT))


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.skipif(sys.implementation.name != "cpython", reason="kept short: CPython only")
def test_callgrind_counts_the_same_twice(tmp_path: Path) -> None:
    here = columns.Column(interpreters.Mode("here", "here", {}, (), None, ""), sys.executable)
    found = [callgrind.count(here, ["hashlib"], ["md5"], tmp_path)[0] for _ in range(2)]
    first, second = (f[("hashlib", "md5")]["instructions_per_byte"] for f in found)
    assert 2 < first == second < 100  # MD5: a handful of instructions per byte


def test_callgrind_counts_the_interpreted_modes_without_a_jit() -> None:
    jit = {m.label: callgrind.runs_jit(m) for m in interpreters.MODES}
    assert not jit["pypy8-nojit"] and not jit["pypy3-nojit"]
    assert jit["pypy8"] and jit["pypy3"] and jit["3.14-jit"]


@pytest.mark.skipif(sys.implementation.name != "pypy", reason="PyPy's JIT and its --jit off")
@pytest.mark.parametrize("jit", [True, False])
def test_callgrind_warm_up_leaves_pypys_jit_as_the_mode_started_it(jit: bool) -> None:
    # What count_here does before it counts, in a process started as the mode starts it, then
    # a hot loop: with --jit off nothing may be compiled (a lowered threshold turned it back on).
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench_package; bench_package.load()\n"
        "from bench.callgrind import lower_jit_thresholds\nfrom bench.timing import Jit\n"
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
