"""The report on synthetic runs: modes as columns, folded modes, unsettled cells, verdicts, trust.

Each run is built here as the conductor writes it (study.json, values.json and a
bytecode run's bytecode.json), with exact times, so every ratio is known.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import bench_package
import pytest

bench_package.load()

from bench import answers, docs, report, results  # noqa: E402
from bench.cases import Case  # noqa: E402
from bench.table import Cell, RatioTable  # noqa: E402

#: Seconds per byte of each row under the first mode.
SPEED = {
    "helpers": 8e-6,
    "streamlined": 2e-6,
    "helpers-mypyc": 1e-6,
    "native": 1e-9,
    "hashlib": 1.2e-9,
}
#: (mode, interpreter, env, args, variants, jdk, implementation).
MODES: Tuple[Tuple[str, str, Dict[str, str], List[str], Optional[str], str, str], ...] = (
    ("3.14", "3.14", {}, [], None, "-Xint", "CPython"),
    ("3.14-jit", "3.14", {"PYTHON_JIT": "1"}, [], None, "Server (JIT)", "CPython"),
    (
        "3.14-portable",
        "3.14",
        {"VARIANTS_NATIVE_PORTABLE": "1"},
        [],
        "native*",
        "intrinsics off",
        "CPython",
    ),
    ("pypy8", "pypy8", {}, [], None, "Server (JIT)", "PyPy"),
    ("pypy8-nojit", "pypy8", {}, ["--jit", "off"], None, "-Xint", "PyPy"),
)
#: How much faster than under 3.14 each mode runs a row (streamlined, helpers, others).
FASTER = {
    "3.14": (1.0, 1.0, 1.0),
    "3.14-jit": (2.0, 7.6, 1.0),  # helpers ÷ streamlined: 4 -> 1.05 (like the compilers)
    "3.14-portable": (1.0, 1.0, 1.0),  # but native at half speed: its portable kernels
    "pypy8": (20.0, 160.0, 1.0),  # 4 -> 0.5: reversed
    "pypy8-nojit": (2.0, 4.0, 1.0),  # 4 -> 2: in between
}
LENGTHS = (64, 1024, 16384)
#: A noisy case's time in each of the three processes (passes).
MOVES = (1.0, 1.6, 0.8)


def info(name: str) -> Dict[str, Any]:
    kinds = {"hashlib": "reference", "helpers-mypyc": "compiled", "native": "native"}
    twin = name == "helpers-mypyc"
    return {
        "kind": kinds.get(name, "interpreted"),
        "description": f"the {name} row",
        "source": "helpers" if twin else None,
        "compiler": "mypyc" if twin else None,
        "annotations": "" if twin else None,
        "details": "",
        "unavailable": None,
    }


def seconds(mode: str, variant: str) -> float:
    streamlined, helpers, other = FASTER[mode]
    by = {"streamlined": streamlined, "helpers": helpers}.get(variant, other)
    if mode.endswith("-portable") and variant == "native":
        by = 0.5
    return SPEED[variant] / by


def make_run(
    folder: Path, noisy: Tuple[str, ...] = (), old_format: bool = False, steal: float = 0.004
) -> Path:
    """A run's folder, exact times; helpers under the modes in ``noisy`` move from process to
    process (pass to pass) by up to 1.6x."""
    folder.mkdir(parents=True)
    labels = [MODES[0]] if old_format else list(MODES)
    values: Dict[str, Dict[str, Any]] = {}
    for label, _, _, _, only, _, _ in labels:
        values[label] = {}
        for variant in SPEED:
            if only and not (variant.startswith("native") or variant == "hashlib"):
                continue
            for alg in ("md5", "sha256"):
                for n in LENGTHS:
                    for bench in ("digest", "getAndDigest"):
                        base = seconds(label, variant) * n
                        noise = label in noisy and variant == "helpers"
                        runs = [
                            {
                                "pass": p,
                                "rounds": list(range(6)),
                                "values": [base * (MOVES[p] if noise else 1.0)] * 6,
                            }
                            for p in range(len(MOVES))
                        ]
                        values[label][Case(bench, alg, variant, n).name] = {"runs": runs}
    listing = {}
    for label, interp, env, args, only, jdk, impl in labels:
        entry: Dict[str, Any] = {
            "implementation": impl,
            "version": "3.14.0" if impl == "CPython" else "3.11.11",
            "variants": {v: info(v) for v in SPEED},
            "batch": {"variant": None, "unavailable": "not available in this build"},
        }
        if impl == "PyPy":
            entry["pypy_version"] = "8.0.1"
        if not old_format:
            entry["mode"] = {
                "interpreter": interp,
                "env": env,
                "args": args,
                "variants": only,
                "jdk": jdk,
            }
        listing[label] = entry
    study = {
        "mode": "default",
        "passes": 3,
        "settings": {"passes": 3, "clock": "cpu", "slow_limit": 0.1},
        "cpu": "Test CPU, 2 cores",
        "started": "2026-01-02 03:04:05",
        "wall_seconds": 60.0,
        "measure_seconds": 50.0,
        "steal": {"share": steal},
        "skipped": {},
        "builds": {},
        "interpreters": listing,
    }
    (folder / "study.json").write_text(json.dumps(study))
    (folder / "values.json").write_text(json.dumps(values))
    return folder


def make_bytecode(folder: Path) -> Path:
    """A bytecode run: helpers run 3.2x the machine instructions of streamlined, every mode."""
    folder.mkdir(parents=True)
    rows = [
        {
            "interpreter": label,
            "variant": v,
            "algorithm": alg,
            "instructions_per_byte": {"helpers": 3200.0, "streamlined": 1000.0}.get(v, 10.0),
            "bytecode_per_block": 900.0 if v == "helpers" else 300.0,
        }
        for label, *_ in MODES
        for v in SPEED
        for alg in ("md5", "sha256")
    ]
    data = {
        "date": "2026-01-02",
        "interpreters": {m[0]: {"callgrind": None} for m in MODES},
        "rows": rows,
    }
    (folder / "bytecode.json").write_text(json.dumps(data))
    (folder / "bytecode.md").write_text("# Bytecode and machine instructions\n\n| a |\n| - |\n")
    return folder


def build(tmp: Path, **how: Any) -> answers.Report:
    bytecode = make_bytecode(tmp / "bytecode")
    return answers.build(results.load(make_run(tmp / "run", **how), bytecode))


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> answers.Report:
    """The report of a run without noise (built once: the bootstrap takes a while)."""
    return build(tmp_path_factory.mktemp("calm"))


def at(t: Optional[RatioTable], labels: List[str], column: str) -> Cell:
    assert t is not None
    found = answers.cell_at(t, labels, column)
    assert found is not None, (labels, column)
    return found


def test_modes_are_the_columns_and_portable_folds_into_its_cpython(calm: answers.Report) -> None:
    r = calm
    run = r.run
    assert run.columns == ["3.14", "3.14-jit", "pypy8", "pypy8-nojit"]
    assert run.mode("3.14-jit").jit and not run.mode("pypy8-nojit").jit and run.mode("pypy8").jit
    assert run.folded(run.mode("3.14-portable")) == "3.14"
    hashlib = r.table("hashlib-16384")
    assert hashlib is not None and hashlib.columns == tuple(run.columns)
    portable = at(hashlib, ["native (portable kernels)", "md5"], "3.14")
    assert portable.value == pytest.approx(1 / 1.2 / 0.5)  # half of native's speed
    assert at(hashlib, ["native", "md5"], "3.14").value == pytest.approx(1 / 1.2)
    row = next(x for x in hashlib.rows if x.labels[0] == "native (portable kernels)")
    assert row.cells[1:] == (None, None, None)  # only under its own CPython


def test_fastest_pure_python_is_a_row_that_names_its_pick(calm: answers.Report) -> None:
    r = calm
    style = r.table("style")
    assert style is not None
    fastest = next(x for x in style.rows if x.labels[1] == report.FASTEST)
    assert fastest.note == "streamlined (3.14, 3.14-jit, pypy8-nojit); helpers (pypy8)"
    assert at(
        style, ["interpreted", "streamlined", "md5", "digest 16 KiB"], "3.14"
    ).value == pytest.approx(4.0)
    compiled = r.table("compiled")
    assert at(
        compiled, ["helpers-mypyc", "helpers", "sha256", "digest 1 KiB"], "3.14"
    ).value == pytest.approx(8.0)


def test_the_seeds_table_and_its_verdicts(calm: answers.Report) -> None:
    r = calm
    seeds = r.table("seeds")
    assert seeds is not None
    assert seeds.header == ("algorithm", "mode", "JDK counterpart")
    assert seeds.columns[:3] == ("64 B helpers", "64 B streamlined", "64 B ratio")
    row = next(x for x in seeds.rows if x.labels == ("md5", "3.14", "-Xint"))
    helpers_ops = row.cells[seeds.columns.index("16 KiB helpers")]
    assert helpers_ops is not None and helpers_ops.value == pytest.approx(1e-3 / (8e-6 * 16384))
    assert at(seeds, ["md5", "3.14"], "16 KiB ratio").value == pytest.approx(4.0)
    assert at(seeds, ["md5", "3.14"], "instructions").value == pytest.approx(3.2)
    style = "\n".join(r.style)
    assert "**Like the JDK's `-Xint`**" in style and "3.14 md5 4x (time)" in style
    assert "3.14-jit md5 1.05x (time)" in next(x for x in r.style if "compilers" in x)
    assert "pypy8 md5 0.5x (time)" in next(x for x in r.style if "Reversed" in x)
    assert "pypy8-nojit md5 2x (time)" in next(x for x in r.style if "In between" in x)
    jit = "\n".join(r.jit)
    assert "**3.14-jit against 3.14** (md5, 16 KiB): faster by helpers 7.6x (time)" in jit
    assert (
        "streamlined 2x (time); it buys back more for helpers: helpers ÷ streamlined goes " in jit
    )
    assert "goes from 4x (time) to 1.05x (time)." in jit
    assert "**pypy8 against pypy8-nojit**" in jit


def test_twins_against_the_jit(calm: answers.Report) -> None:
    r = calm
    t = r.table("twins-jit")
    assert t is not None and t.columns == ("3.14-jit (3.14)",)  # CPython's JIT only
    # helpers under the JIT: 8e-6 / 7.6 per byte; its mypyc twin: 1e-6.
    assert at(
        t, ["helpers-mypyc", "helpers", "md5", "16 KiB"], "3.14-jit (3.14)"
    ).value == pytest.approx(8 / 7.6)
    assert at(
        t, ["the JIT itself", "helpers", "md5", "16 KiB"], "3.14-jit (3.14)"
    ).value == pytest.approx(7.6)


def test_an_unsettled_ratio_is_marked_and_its_verdict_rests_on_instructions(tmp_path: Path) -> None:
    r = build(tmp_path, noisy=("pypy8-nojit",))
    cell = at(r.table("seeds"), ["sha256", "pypy8-nojit"], "16 KiB ratio")
    assert not cell.settled and cell.instructions == pytest.approx(3.2)
    assert "†" in cell.text() and "[3.2 instr.]" in cell.text()
    verdict = next(x for x in r.style if "pypy8-nojit sha256" in x)
    assert "pypy8-nojit sha256 3.2x (instructions; the time ratio" in verdict
    assert "did not settle" in verdict
    against_c = at(r.table("hashlib-16384"), ["helpers", "sha256"], "pypy8-nojit")
    assert not against_c.settled and math.isnan(against_c.instructions)  # Python against C
    settled = at(r.table("seeds"), ["sha256", "pypy8"], "16 KiB ratio")
    assert settled.settled and "†" not in settled.text()


def test_the_trust_line(calm: answers.Report, tmp_path: Path) -> None:
    assert calm.trust.settled == 1.0 and calm.trust.half_width == 0.0
    assert not calm.trust.noisy and calm.trust.warning() == ""
    noisy = build(
        tmp_path / "noisy", noisy=("3.14", "3.14-jit", "pypy8", "pypy8-nojit"), steal=0.031
    )
    assert noisy.trust.noisy and noisy.trust.settled < answers.SETTLED_TARGET
    warning = noisy.trust.warning()
    assert warning.startswith("**Warning: this machine was too noisy")
    assert "3.1% of the CPU's time was stolen" in warning
    page = docs.page(noisy)
    assert page[0] == warning  # the first line of the page
    assert any(
        "How far to trust it" in line and "steal time during the run: 3.1%" in line for line in page
    )


def test_a_run_of_the_old_format_reads_as_one_mode_per_interpreter(tmp_path: Path) -> None:
    run = results.load(make_run(tmp_path / "run", old_format=True))
    assert run.columns == ["3.14"] and run.mode("3.14").interpreter == "3.14"
    assert run.mode("3.14").jdk == "-Xint" and not run.mode("3.14").jit  # bench.interpreters
    r = answers.build(run)
    assert "(time)" in "\n".join(r.style) and r.jit == ()
    assert r.table("twins-jit") is None and r.table("modes-16384") is None


def test_report_files_and_docs_sections(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run")
    bytecode = make_bytecode(tmp_path / "bytecode")
    assert report.main([str(folder), "--no-plots", "--bytecode", str(bytecode)]) == 0
    text = (folder / "report.md").read_text()
    assert text.startswith("# Interpreter-overhead study: results")
    assert "The seeds' question per mode" in text and "| md5       | 3.14        | -Xint" in text
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["trust"]["settled"] == 1.0 and summary["ratios"]
    tables = {r["table"] for r in summary["ratios"]}
    assert tables >= {"style", "hashlib-16384", "bridges"} and "seeds" not in tables  # no twice
    r = docs.load_report(folder, bytecode)
    readme = docs.readme_section(r)
    assert readme.startswith(docs.START) and readme.endswith(docs.END)
    assert "Like the JDK's `-Xint`" in readme and "native (portable kernels)" in readme
    full = docs.study_section(r, None, bytecode, [])
    assert "**Bytecode and machine instructions** (`nox -s bytecode`, run bytecode)" in full
    assert "3.14-portable" in full
    once = docs.replace_section("# x\n\nintro\n", readme)
    assert docs.replace_section(once, readme) == once
