"""The study from end to end: the conductor, the report, the docs, stability, callgrind's parser.

One real run of the study on this interpreter with a tiny budget goes through
every step to the report; the rest runs on synthetic runs with exact times.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any, Dict

import bench_package
import pytest

bench_package.load()

from bench import callgrind, report, stability, study  # noqa: E402
from bench.cases import Case  # noqa: E402


def test_a_quick_study_on_this_interpreter_reaches_the_report(tmp_path: Path) -> None:
    argv = [
        "--python", f"here={sys.executable}", "--mode", "quick", "--variants", "helpers,native",
        "--algorithms", "md5", "--lengths", "64,1024", "--modes", "digest,getAndDigest,block",
        "--budget", "1", "--results", str(tmp_path), "--envs", str(tmp_path / "envs"),
    ]  # fmt: skip
    assert study.main(argv) == 0
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
    assert len(runs[0]["values"]) == len(runs[0]["rounds"]) >= 1


def test_the_conductor_stops_on_a_worker_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = 'import sys; sys.stdin.readline(); print(\'{"error": "WrongDigest: md5"}\')'

    def command(python: str, module: str, *args: str, results: Path) -> Any:
        return [sys.executable, "-c", reply], None, tmp_path

    monkeypatch.setattr(study, "module_command", command)
    with open(tmp_path / "log", "w") as log:
        w = study.Worker("here", sys.executable, tmp_path, log)
        with pytest.raises(study.StudyError, match="WrongDigest"):
            w.ask({"op": "prepare", "cases": []})
        w.close()


def test_the_plan_gives_cheap_groups_more_rounds(tmp_path: Path) -> None:
    settings = study.SETTINGS["default"]
    listing = {"interpreter": {"implementation": "CPython"}, "cases": []}
    run = study.Study(
        [study.Interpreter("x", "python", listing)], settings, tmp_path, tmp_path, sys.stdout
    )
    cheap, dear = ("digest", "md5", 64, 1), ("digest", "md5", 16384, 1)
    run.round_seconds = {cheap: 0.05, dear: 2.0}
    run.prepare_seconds = {cheap: 0.1, dear: 2.0}
    run.started -= 5  # the first pass took five seconds
    run.plan()
    assert settings.min_rounds <= run.rounds[dear] < run.rounds[cheap] <= settings.max_rounds
    later = (settings.passes - 1) * sum(run.rounds[k] * c for k, c in run.round_seconds.items())
    assert later <= settings.budget


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
                            for p in range(2)
                        ]
                        name = Case(mode, alg, variant, length).name
                        values[label][name] = {"loops": 1, "runs": runs}
    record = {
        "mode": "default",
        "settings": {"passes": 2, "clock": "cpu", "slow_limit": 0.1},
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
    assert "agree within 10% (target at least 90%: missed)" in out
    assert "agree within 20% (target at least 97%: met)" in out


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
    found = [
        callgrind.count("here", sys.executable, ["hashlib"], ["md5"], tmp_path)[0] for _ in range(2)
    ]
    first, second = (f[("hashlib", "md5")]["instructions_per_byte"] for f in found)
    assert 2 < first == second < 100  # MD5: a handful of instructions per byte
