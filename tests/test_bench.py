"""The benchmark study's logic on tiny synthetic data: cases, planning, merging, report, README.

No timing is judged here; the few timers that run do so for microseconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

pyperf = pytest.importorskip("pyperf")

import cases  # noqa: E402
import readme_results  # noqa: E402
import report  # noqa: E402
import stability  # noqa: E402
import study  # noqa: E402
import worker  # noqa: E402


def test_case_names_round_trip() -> None:
    case = cases.Case("getAndDigest", "sha256", "helpers-mypyc", 1024)
    assert case.name == "getAndDigest/sha256/helpers-mypyc/1024"
    assert cases.Case.parse(case.name) == case


def test_jdk_pattern() -> None:
    data = cases.jdk_pattern(600)
    assert len(data) == 600
    assert all(b == i & 0xFF for i, b in enumerate(data))


def test_selection_keeps_registry_order_and_adds_references() -> None:
    chosen = cases.select_variants(["helpers*", "streamlined"])
    assert chosen[-1] == cases.HASHLIB
    assert "helpers" in chosen and "streamlined" in chosen
    assert cases.select_variants([], pypy_lib=True)[-1] == cases.PYPY_LIB
    with pytest.raises(ValueError):
        cases.select_variants(["no-such-variant"])


def test_cases_skip_what_a_variant_lacks() -> None:
    loaded = cases.load_target("streamlined-words")
    sha_only = cases.Target(
        "sha-only",
        loaded.kind,
        "a variant with no MD5",
        algorithms=["sha224", "sha256"],
        constructors={a: c for a, c in loaded.constructors.items() if a != "md5"},
        compress={"sha256": loaded.compress["sha256"]},
    )
    targets = [sha_only, cases.load_target("hashlib")]
    names = {c.name for c in cases.enumerate_cases(targets, ["md5", "sha256"], [64, 1 << 20])}
    assert "digest/sha256/sha-only/64" in names
    assert "digest/md5/sha-only/64" not in names  # sha256 only
    assert "block/sha256/hashlib/64" not in names  # no block function
    assert "block/sha256/sha-only/1048576" not in names  # block only up to 16 KiB
    assert "getAndDigest/md5/hashlib/1048576" in names


@pytest.mark.parametrize("mode", cases.MODES)
def test_timers_do_the_work(mode: str) -> None:
    target = cases.load_target("streamlined")
    case = cases.Case(mode, "md5", "streamlined", 128)
    timer = cases.make_timer(case, target, cases.jdk_pattern(128))
    assert timer(2) >= 0


def test_worker_measures_a_plan(tmp_path: Path) -> None:
    plan = {
        "label": "test",
        "min_time": 0.0005,
        "slow": 1.0,
        "budget": 0.001,
        "max_values": 2,
        "pypy_warm": [0.001, 0.01],
        "cases": [{"name": f"{m}/md5/hashlib/64"} for m in ("digest", "getAndDigest")],
    }
    with open(tmp_path / "log", "w") as log:
        suite, feedback = worker.run_plan(plan, out=log)
    assert sorted(suite.get_benchmark_names()) == [
        "digest/md5/hashlib/64",
        "getAndDigest/md5/hashlib/64",
    ]
    bench = suite.get_benchmark("digest/md5/hashlib/64")
    assert bench.get_metadata()["variant"] == "hashlib"
    assert feedback["cases"]["digest/md5/hashlib/64"]["loops"] >= 1


# --- synthetic runs --------------------------------------------------------------------

#: Seconds per operation of each (variant, algorithm) per byte, and per interpreter.
SPEED = {"helpers": 4e-6, "streamlined": 1e-6, "helpers-mypyc": 4e-7, "hashlib": 1e-9}
INTERPRETER_FACTOR = {"3.10": 1.0, "3.12": 0.5}


def _runs(label: str, name: str, seconds: float, count: int = 3) -> Any:
    metadata = {"name": name, "loops": 1, "unit": "second"}
    values = [seconds * (1 + 0.01 * i) for i in range(count)]
    return pyperf.Benchmark([pyperf.Run(values, metadata=metadata, collect_metadata=False)])


def _variant_info(name: str) -> Dict[str, Any]:
    kind = {"hashlib": "reference", "helpers-mypyc": "compiled"}.get(name, "interpreted")
    return {
        "kind": kind,
        "description": name,
        "source": "helpers" if name == "helpers-mypyc" else None,
        "algorithms": ["md5", "sha256"],
        "details": "",
        "unavailable": None,
        "block": [] if name == "hashlib" else ["md5", "sha256"],
    }


def make_run(folder: Path, scale: float = 1.0) -> Path:
    """A study folder as study.py leaves it, with exact synthetic times."""
    folder.mkdir(parents=True)
    (folder / "raw").mkdir()
    interpreters = {}
    for label, factor in INTERPRETER_FACTOR.items():
        benchmarks: List[Any] = []
        for variant, per_byte in SPEED.items():
            for alg in ("md5", "sha256"):
                for length in (64, 16384):
                    for mode in ("digest", "getAndDigest", "block"):
                        if mode == "block" and variant == "hashlib":
                            continue
                        seconds = per_byte * length * factor * scale
                        name = f"{mode}/{alg}/{variant}/{length}"
                        benchmarks.append(_runs(label, name, seconds))
        # Two worker files per interpreter, as two passes leave them.
        half = len(benchmarks) // 2
        pyperf.BenchmarkSuite(benchmarks[:half]).dump(
            str(folder / "raw" / f"{label}-pass1-64.json")
        )
        pyperf.BenchmarkSuite(benchmarks).dump(str(folder / "raw" / f"{label}-pass2-64.json"))
        interpreters[label] = {
            "implementation": "CPython",
            "version": label + ".0",
            "label": label,
            "python": "python",
            "variants": {v: _variant_info(v) for v in SPEED},
            "file": f"{label}.json",
        }
    study.merge(folder, list(INTERPRETER_FACTOR))
    info = {
        "mode": "quick",
        "settings": {"passes": 2, "clock": "cpu"},
        "cpu": "Test CPU, 2 cores",
        "started": "2026-01-02 03:04:05",
        "wall_seconds": 60.0,
        "measure_seconds": 50.0,
        "interpreters": interpreters,
    }
    (folder / "study.json").write_text(json.dumps(info))
    return folder


def test_merge_adds_the_runs_of_every_pass(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run")
    suite = pyperf.BenchmarkSuite.load(str(folder / "3.10.json"))
    runs = {b.get_name(): b.get_nrun() for b in suite.get_benchmarks()}
    assert sorted(set(runs.values())) == [1, 2]  # half of them in both passes


def test_ratio_tables_have_the_study_answers(tmp_path: Path) -> None:
    results = report.Results.load(make_run(tmp_path / "run"))
    tables = {t.key: t for t in report.ratio_tables(results)}
    style = tables["style"]
    row = next(values for labels, values in style.rows if labels == ["interpreted", "3.10", "md5"])
    assert row[style.columns.index("digest 16 KiB")] == pytest.approx(4.0)
    compiled = tables["compiled"]
    labels, values = compiled.rows[0]
    assert labels[:2] == ["helpers-mypyc", "helpers"]
    assert values[0] == pytest.approx(10.0)
    hashlib = tables["hashlib-16384"]
    helpers = next(v for labels, v in hashlib.rows if labels == ["helpers", "md5"])
    assert helpers[0] == pytest.approx(4000.0)
    across = tables["interpreters-16384"]
    assert across.columns == ["3.12 vs 3.10"]
    assert all(v[0] == pytest.approx(2.0) for _, v in across.rows)


def test_jmh_table_shape(tmp_path: Path) -> None:
    results = report.Results.load(make_run(tmp_path / "run"))
    text = report.jmh_table(results, "3.10")
    header, first = text.splitlines()[:2]
    assert header.split()[:4] == ["Benchmark", "(algorithm)", "(variant)", "(length)"]
    assert "Units" in header and "MB/s" in header
    assert first.startswith("MessageDigests.digest") and "thrpt" in first and "ops/ms" in first


def test_report_files_and_compare_to(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run")
    assert report.main([str(folder), "--no-plots"]) == 0
    assert (folder / "report.md").read_text().startswith("# Interpreter-overhead study")
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["ratios"] and summary["results"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyperf",
            "compare_to",
            str(folder / "3.10.json"),
            str(folder / "3.12.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "digest/md5/helpers/64" in done.stdout


def test_stability_of_two_runs(tmp_path: Path) -> None:
    first = make_run(tmp_path / "a")
    second = make_run(tmp_path / "b", scale=1.5)  # everything slower alike: ratios unchanged
    for folder in (first, second):
        report.main([str(folder), "--no-plots"])
    devs = stability.deviations(stability.ratios(first), stability.ratios(second))
    assert devs and max(d for *_, d in devs) < 1e-9


def test_readme_section(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run")
    report.main([str(folder), "--no-plots"])
    text = readme_results.section(folder, None, None, None)
    assert text.startswith(readme_results.START) and text.endswith(readme_results.END)
    assert "Test CPU" in text and "2026-01-02" in text
    readme = "# x\n\nintro\n\n## Results so far\n\nold\n"
    once = readme_results.replace_section(readme, text)
    assert once.index(readme_results.START) < once.index("## Results so far")
    assert readme_results.replace_section(once, text) == once


def test_planning_fits_the_budget() -> None:
    settings = study.SETTINGS["default"]
    feedback = {
        "fast": {"value_time": 0.01, "warm_time": 0.0, "loops": 64},
        "slow": {"value_time": 5.0, "warm_time": 0.0, "loops": 1},
    }

    def cost(allowance: float) -> float:
        return study.plan_cost(feedback, False, allowance, settings)

    allowance = study.fit_allowance(2.0, [cost], settings)
    assert cost(allowance) <= 2.0
    every, values, _ = study.per_pass(feedback["slow"], allowance, settings, False)
    assert every > 1 and values == 1  # the slow case: whole values, in fewer passes
    every, values, _ = study.per_pass(feedback["fast"], 1.0, settings, False)
    assert every == 1 and values == settings.max_values
    pypy = {"value_time": 0.01, "warm_time": 1.0, "loops": 64}  # a long JIT warm-up
    assert study.per_pass(pypy, 0.5, settings, True)[0] == 3


def test_ratios_between_variants_pair_values_taken_together() -> None:
    # The machine was fast for a's first two values and b's first one: medians
    # would compare different machine states, pairs compare like with like.
    a = report.Stats(
        "3.11", "digest", "md5", "a", 64, (1.0, 1.0, 2.0), 1, by_pass=((0, (1.0, 1.0, 2.0)),)
    )
    b = report.Stats(
        "3.11", "digest", "md5", "b", 64, (2.0, 4.0, 4.0), 1, by_pass=((0, (2.0, 4.0, 4.0)),)
    )
    assert report.paired(a, b) == [0.5, 0.25, 0.5]
    assert report._over(a, b) == pytest.approx(0.5)
    assert report._over(a, b, pair=False) == pytest.approx(0.25)
