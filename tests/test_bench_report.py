"""The report on synthetic runs: modes as columns, folded modes, unsettled cells, verdicts, trust.

Each run is built here as the conductor writes it (study.json, values.json and a
bytecode run's bytecode.json), with exact times, so every ratio is known.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import bench_package
import pytest

bench_package.load()

from bench import store  # noqa: E402
from bench.catalog import comparisons  # noqa: E402
from bench.catalog.cases import Case  # noqa: E402
from bench.catalog.columns import Column, Listing  # noqa: E402
from bench.catalog.modes import Mode  # noqa: E402
from bench.catalog.targets import VariantInfo  # noqa: E402
from bench.core import stats  # noqa: E402
from bench.report import answers, machines, pages, publish, stability  # noqa: E402
from bench.report import readme as sections  # noqa: E402
from bench.report.figures import Ratio, Shown  # noqa: E402

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
    "jdk17-xint": (1.25, 0.3125, 1.0),  # make_run(jdk=True): 3.14's nearest JDK mode; 16x
    "jdk17": (50.0, 200.0, 1.0),  # 4 -> 1: like the compilers
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


#: Two JDK modes (``make_run(jdk=True)``), helpers and streamlined only.
JDK_MODES: Tuple[Tuple[str, str, Dict[str, str], List[str], Optional[str], str, str], ...] = (
    ("jdk17-xint", "jdk17", {}, ["-Xint"], "helpers,streamlined", "-Xint", "OpenJDK"),
    ("jdk17", "jdk17", {}, [], "helpers,streamlined", "Server", "OpenJDK"),
)


def make_run(
    folder: Path, noisy: Tuple[str, ...] = (), steal: float = 0.004, jdk: bool = False
) -> Path:
    """A run's folder, exact times; helpers under the modes in ``noisy`` move from process to
    process (pass to pass) by up to 1.6x; with ``jdk``, two JDK modes too."""
    folder.mkdir(parents=True)
    data: Dict[str, Dict[str, store.CaseRuns]] = {}
    columns = []
    for label, interp, env, args, only, jdk_role, impl in MODES + (JDK_MODES if jdk else ()):
        data[label] = {}
        for variant in SPEED:
            if impl == "OpenJDK":
                if variant not in str(only).split(","):
                    continue
            elif only and not (variant.startswith("native") or variant == "hashlib"):
                continue
            for alg in ("md5", "sha256"):
                for n in LENGTHS:
                    for bench in ("digest", "getAndDigest"):
                        base = seconds(label, variant) * n
                        noise = label in noisy and variant == "helpers"
                        runs = [store.Pass(p, 1, [], True, p, list(range(6)),
                                           [base * (MOVES[p] if noise else 1.0)] * 6)
                                for p in range(len(MOVES))]  # fmt: skip
                        data[label][Case(bench, alg, variant, n).name] = store.CaseRuns(
                            1, 0, 0, runs
                        )
        version = "3.14.0" if impl == "CPython" else "3.11.11"
        runtime: Dict[str, Any] = {"implementation": impl, "version": version}
        if impl == "PyPy":
            runtime["pypy_version"] = "8.0.1"
        jit = "JIT" in jdk_role or jdk_role == "Server"
        mode = Mode.from_json({"label": label, "interpreter": interp, "env": env, "args": args,
                               "variants": only, "jdk": jdk_role, "jit": jit})  # fmt: skip
        variants = {v: VariantInfo.from_json(v, info(v)) for v in SPEED}
        listing = Listing(runtime, variants, batch_unavailable="not available in this build")
        columns.append(Column(mode, "python", listing))
    settings = {"passes": 3, "clock": "cpu", "slow_limit": 0.1}
    header = store.Header(
        "default", settings, "Test CPU", "2026-01-02 03:04:05", 60.0, 50.0, 3, steal
    )
    store.write(folder, header, columns, data)
    return folder


def make_bytecode(folder: Path) -> Path:
    """A bytecode run: helpers run 3.2x the machine instructions of streamlined, every mode."""
    folder.mkdir(parents=True)
    rows = [
        {
            "mode": label,
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
    return answers.build(store.load(make_run(tmp / "run", **how), bytecode))


@pytest.fixture(scope="module")
def calm(tmp_path_factory: pytest.TempPathFactory) -> answers.Report:
    """The report of a run without noise (built once: the bootstrap takes a while)."""
    return build(tmp_path_factory.mktemp("calm"))


def at(t: Optional[Shown], labels: List[str], column: str) -> Ratio:
    assert t is not None
    found = t.at(tuple(labels), column)
    assert found is not None, (labels, column)
    return found


def test_modes_are_the_columns_and_portable_folds_into_its_cpython(calm: answers.Report) -> None:
    r = calm
    lay = r.run.layout
    assert lay.columns == ["3.14", "3.14-jit", "pypy8", "pypy8-nojit"]
    assert lay.folded("3.14-portable") == "3.14"
    hashlib = r.table("hashlib-16384")
    assert hashlib is not None and hashlib.columns == tuple(lay.columns)
    portable = at(hashlib, ["native (portable kernels)", "md5"], "3.14")
    assert portable.value == pytest.approx(1 / 1.2 / 0.5)  # half of native's speed
    assert at(hashlib, ["native", "md5"], "3.14").value == pytest.approx(1 / 1.2)
    row = next(x for x in hashlib.rows if x.labels[0] == "native (portable kernels)")
    assert row.cells[1:] == (None, None, None)  # only under its own CPython


def test_fastest_pure_python_is_a_row_that_names_its_pick(calm: answers.Report) -> None:
    style = calm.table("style")
    assert style is not None
    fastest = next(x for x in style.rows if x.labels[1] == comparisons.FASTEST)
    assert fastest.note == "streamlined (3.14, 3.14-jit, pypy8-nojit); helpers (pypy8)"
    inlined = at(style, ["inlined", "streamlined", "md5", "digest 16 KiB"], "3.14")
    assert inlined.value == pytest.approx(4.0)
    compiled = calm.table("compiled")
    twin = at(compiled, ["helpers-mypyc", "helpers", "sha256", "digest 1 KiB"], "3.14")
    assert twin.value == pytest.approx(8.0)


def test_the_seeds_question_per_mode_and_its_verdicts(calm: answers.Report) -> None:
    styles = calm.table("styles")
    assert styles is not None and styles.spec.readme
    assert styles.spec.header == ("mode",)
    assert styles.columns == ("MD5", "MD5 instr.", "SHA-256", "SHA-256 instr.")  # no JDK here
    assert at(styles, ["3.14"], "MD5").value == pytest.approx(4.0)
    assert at(styles, ["3.14"], "SHA-256 instr.").value == pytest.approx(3.2)
    words = {(v.mode, v.algorithm): v.word() for v in calm.verdicts}
    # time says -Xint, instructions (3.2x) in between: the verdict says both
    assert words[("3.14", "md5")] == "like -Xint (instr.: in between)"
    assert words[("3.14-jit", "md5")].startswith("like the compilers")
    assert words[("pypy8", "md5")].startswith("reversed")
    assert words[("pypy8-nojit", "md5")] == "in between"
    seeds = calm.table("seeds")  # docs/study.md's: ops/ms from the same estimate as the ratio
    assert seeds is not None
    row = next(x for x in seeds.rows if x.labels == ("md5", "3.14", "-Xint"))
    helpers, fast = (
        row.cells[seeds.columns.index(f"16 KiB {w}")] for w in ("helpers", "streamlined")
    )
    assert helpers is not None and fast is not None
    assert helpers.value == pytest.approx(1e-3 / (8e-6 * 16384))
    assert fast.value / helpers.value == pytest.approx(
        at(seeds, ["md5", "3.14"], "16 KiB ratio").value
    )


def test_a_verdict_whose_interval_spans_two_classes_names_both(tmp_path: Path) -> None:
    r = build(tmp_path, noisy=("pypy8-nojit",))
    cell = at(r.table("styles"), ["pypy8-nojit"], "MD5")
    assert cell.low < answers.ALIKE < cell.high or cell.low < answers.XINT < cell.high
    verdict = next(v for v in r.verdicts if (v.mode, v.algorithm) == ("pypy8-nojit", "md5"))
    low, high = verdict.classes
    assert low < high and verdict.word().startswith(
        f"{answers.CLASSES[low]} or {answers.CLASSES[high]}"
    )
    section = sections.readme_section(machines.Across.one(r))
    assert "†" not in (tmp_path / "x").as_posix() + section


def test_what_compiling_and_the_jits_buy(calm: answers.Report) -> None:
    buys = calm.table("buys")
    assert buys is not None and buys.spec.readme
    assert buys.columns == ("3.14", "pypy8-nojit")  # the modes with their JIT off
    assert at(buys, ["helpers-mypyc", "helpers", "md5"], "3.14").value == pytest.approx(8.0)
    assert at(buys, ["native", "streamlined", "sha256"], "3.14").value == pytest.approx(2000.0)
    assert at(buys, ["the JIT", "helpers", "md5"], "3.14").value == pytest.approx(7.6)
    assert at(buys, ["the JIT", "streamlined", "md5"], "pypy8-nojit").value == pytest.approx(10.0)
    said = calm.findings
    assert len(said) <= 5
    assert list(said) == [
        "Without a JIT, helper functions run 4.0x slower under CPython, 2.0x slower under PyPy.",
        "With one, they run 1.1x slower under CPython, 2.0x faster under PyPy.",
        "mypyc makes the helper style 2.0-8.0x faster; native C 1000-2000x faster than "
        "streamlined.",
        "A JIT on the same source: CPython's 2.0-7.6x faster, PyPy's 10-40x faster.",
    ]


def test_a_change_inside_the_noise_is_not_called_a_gain(tmp_path: Path) -> None:
    """The JITs' line says "faster" without a word of doubt only where every interval
    excludes 1."""
    r = build(tmp_path, noisy=("3.14",))
    buys = r.table("buys")
    assert buys is not None
    jit = [c for row in buys.rows if row.labels[0] == "the JIT" for c in
           (row.cells[buys.columns.index("3.14")],) if c]  # fmt: skip
    line = next(x for x in r.findings if x.startswith("A JIT"))
    inside = sum(1 for f in jit if not f.estimate.excludes(1.0))
    plain = "CPython's" in line and "CPython's changes nothing" not in line
    assert (plain and "intervals hold 1" not in line) == (inside == 0)
    if inside:
        assert f"{inside} of {len(jit)} intervals hold 1" in line or "nothing measurable" in line


def test_twins_against_the_jit(calm: answers.Report) -> None:
    t = calm.table("twins-jit")
    assert t is not None and t.columns == ("3.14-jit (3.14)",)  # CPython's JIT only
    # helpers under the JIT: 8e-6 / 7.6 per byte; its mypyc twin: 1e-6.
    twin = at(t, ["helpers-mypyc", "helpers", "md5", "16 KiB"], "3.14-jit (3.14)")
    assert twin.value == pytest.approx(8 / 7.6)
    itself = at(t, ["the JIT itself", "helpers", "md5", "16 KiB"], "3.14-jit (3.14)")
    assert itself.value == pytest.approx(7.6)


def test_the_trust_line_and_a_rerun(calm: answers.Report, tmp_path: Path) -> None:
    # exact times: every interval is the between-run term alone
    assert calm.trust.readme_half_width == pytest.approx(stats.RUN_TERM, rel=0.01)
    assert calm.trust.readme_ratios > 0
    line = pages.trust_line(calm)
    assert "no rerun on this machine kept yet" in line and "Test CPU" in line
    noisy = build(tmp_path / "noisy", noisy=("3.14", "pypy8-nojit"))
    again = replace(calm, rerun=stability.rerun(calm, noisy))
    line = pages.trust_line(again)
    assert "a second run (run) fell " in line and "verdicts changed" in line
    assert again.rerun is not None and again.rerun.readme_inside < 1


def test_cases_not_warmed_up_are_named_once_with_their_modes_and_lengths(
    calm: answers.Report,
) -> None:
    cold = {("pypy8", "digest/md5/helpers/64"), ("pypy8", "digest/md5/streamlined/64")}
    cold |= {("pypy8", "digest/md5/streamlined/16384"), ("pypy8", "digest/md5/streamlined/1024")}
    cold |= {("3.14-jit", "digest/md5/helpers/64"), ("3.14-jit", "digest/sha256/native/64")}
    cold |= {("3.14-jit", "digest/sha256/native/16384")}  # one case's lengths together, in order
    assert all(m in calm.run.measured for m in cold)
    measured = {m: replace(x, warmed=m not in cold) for m, x in calm.run.measured.items()}
    lines = pages.modes_lines(replace(calm.run, measured=measured))
    line = next(x for x in lines if x.startswith("Not warmed up"))
    said = line.split(": ", 1)[1].rstrip(".").split("; ")
    assert sorted(said) == [
        "digest/md5/helpers/64 under 3.14-jit, pypy8",
        "digest/md5/streamlined/{64,1024,16384} under pypy8",
        "digest/sha256/native/{64,16384} under 3.14-jit",
    ]
    assert not any(x.startswith("Not warmed up") for x in pages.modes_lines(calm.run))


def test_the_modes_are_said_by_the_jdk_mode_each_plays_a_portable_one_s_rows_once(
    calm: answers.Report,
) -> None:
    line = pages.modes_lines(calm.run)[0]
    groups = dict(g.split("**: ", 1) for g in line.split("As the JDK's **")[1:])
    assert "3.14 = " in groups["-Xint"] and "pypy8-nojit = " in groups["-Xint"]
    assert "3.14-jit = " in groups["Server (JIT)"] and "pypy8 = " in groups["Server (JIT)"]
    assert "3.14-portable = " in groups["intrinsics off"]
    assert "as the JDK's" not in line and "rows under 3.14" not in line
    assert line.endswith("A -portable mode's rows are under its interpreter's mode.")


def test_a_run_reads_back_as_it_was_written(tmp_path: Path) -> None:
    run = store.load(make_run(tmp_path / "run"))
    assert [c.label for c in run.columns] == [m[0] for m in MODES]
    assert run.column("3.14-jit").mode == Mode.from_json(run.column("3.14-jit").mode.as_json())
    assert run.column("pypy8").listing.runtime["pypy_version"] == "8.0.1"
    helpers = run.measured[("3.14", "digest/md5/helpers/64")]
    assert helpers.stretches == {0: 0, 1: 1, 2: 2} and len(helpers.values) == 18
    assert run.header.steal == 0.004 and run.counts == {}


def test_report_files_and_docs_sections(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "run")
    bytecode = make_bytecode(tmp_path / "bytecode")
    assert publish.report_main([str(folder), "--no-plots", "--bytecode", str(bytecode)]) == 0
    text = (folder / "report.md").read_text()
    assert text.startswith("# Interpreter-overhead study: results")
    assert "What the coding style costs per mode" in text and "| 3.14        | -Xint" in text
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["verdicts"] and summary["trust"]["readme_ratios"] > 0
    r = publish.load_report(folder, bytecode)
    readme = sections.readme_section(machines.Across.one(r))
    assert readme.startswith(pages.START) and readme.endswith(pages.END)
    body = readme.splitlines()[1:-1]
    assert len(body) <= sections.RESULTS_LINES and "†" not in readme and "settle" not in readme
    assert sections.prose_length(body) <= sections.RESULTS_PROSE
    # the styles table and what compiling buys back, one baseline each (twins; typed and C)
    assert sum(1 for line in body if line.startswith("| --")) == 3
    rows = [line for line in body if line.startswith("| ") and "--" not in line
            and not line.startswith(("| mode", "| build"))]  # fmt: skip
    figures = [c.strip() for line in rows for c in line.strip("|").split("|")[1:3] if "x" in c]
    words = ("slower", "faster", "no difference", "more", "fewer")  # instructions: more, fewer
    assert figures and all(sum(w in c for w in words) == 1 for c in figures), figures
    assert "](docs/study.md#glossary)" in readme and "openjdk/jdk/pull/1283" in readme
    full = pages.study_section(r, [])
    assert "3.14-portable" in full and full.startswith(pages.START)
    assert all(len(line) <= 120 for line in full.splitlines() if not line.startswith("|"))
    counted = pages.bytecode_section("bytecode", (bytecode / "bytecode.md").read_text())
    assert "**Bytecode and machine instructions** (`nox -s bytecode`, run bytecode)" in counted
    once = publish.splice("# x\n\nintro\n", readme, pages.START, pages.END)
    assert publish.splice(once, readme, pages.START, pages.END) == once


def test_each_python_mode_s_jdk_counterpart_is_the_nearest_in_speed(tmp_path: Path) -> None:
    r = build(tmp_path, jdk=True)
    styles = r.table("styles")
    assert styles is not None and styles.columns[0] == "JDK counterpart"
    near = at(styles, ["3.14"], "JDK counterpart")
    # 3.14's streamlined runs at 1/1.25 of jdk17-xint's speed, 1/50 of Server's: -Xint is nearest
    assert near.took == "jdk17-xint" and near.value == pytest.approx(0.8)
    assert at(styles, ["pypy8"], "JDK counterpart").took == "jdk17"  # 20x: nearer 50x than 1.25x
    assert styles.at(("jdk17-xint",), "JDK counterpart") is None  # a JDK mode has none
    words = {(v.mode, v.algorithm): v.word() for v in r.verdicts}
    assert words[("jdk17-xint", "md5")] == "like -Xint"  # (16x; no count of it here)
    assert words[("jdk17", "md5")].startswith("like the compilers")
    said = next(x for x in r.findings if x.startswith("CPython 3.14 runs"))
    assert said == (
        "CPython 3.14 runs streamlined MD5 1.2x slower than its nearest JDK mode, jdk17-xint; "
        "helpers make MD5 3.14 4.0x slower, jdk17-xint 16x slower."
    )
    line = pages.styles_lines(r)[2]
    assert "streamlined 1.25x slower (1.21-1.29) than jdk17-xint" in line
    # a rerun that took another counterpart does not compare the two
    keys = stability.estimates(r, readme=True)
    assert ("styles", ("3.14",), "JDK counterpart jdk17-xint") in keys


def test_memory_sizes_each_variant_by_its_speed() -> None:
    from bench.profile import memory

    slow = memory.lengths(0.2, 0.4, 64 << 20)  # 64 KiB in 0.2 s: two chunks in 0.4 s
    assert slow["stream"] == 128 << 10 and slow["stream-short"] == 64 << 10
    assert slow["one-call"] == 128 << 10 and slow["one-call-short"] == 8 << 10
    fast = memory.lengths(1e-5, 0.4, 64 << 20)
    assert fast["stream"] == 64 << 20 and fast["one-call"] == 1 << 20  # at most the caps
    assert memory.lengths(5.0, 0.4, 64 << 20)["stream"] == 64 << 10  # at least one chunk
    assert all(n % 64 == 0 for n in slow.values())


def memory_run(per_block: Dict[str, float]) -> Dict[str, Any]:
    """A memory run's record: each variant's traced one-call cases 16 KiB and 4 KiB."""
    results = []
    for variant, n in per_block.items():
        for case, length in (("objects", 16384), ("objects-short", 4096)):
            allocations = 40 + n * length / 64
            results.append({"variant": variant, "algorithm": "md5", "case": case,
                            "length": length, "peak": 800, "allocations": allocations})  # fmt: skip
        for case, length in (("stream", 1 << 20), ("stream-short", 64 << 10)):
            results.append({"variant": variant, "algorithm": "md5", "case": case,
                            "length": length, "peak": 900, "allocations": 2})  # fmt: skip
    info = {"interpreter": {"implementation": "CPython", "version": "3.11.7"}, "cpu": "Test CPU",
            "date": "2026-01-02", "seconds": 100.0, "stream_bytes": 64 << 20,
            "case_seconds": 0.4}  # fmt: skip
    return {"info": info, "results": results}


def test_memory_counts_allocations_per_block_and_says_so() -> None:
    from bench.profile import memory

    data = memory_run({"helpers": 2500.0, "streamlined": 1500.0, "native": 0.0})
    per = memory.objects_per_block(data)
    assert per[("helpers", "md5")] == pytest.approx(2500.0)  # the fixed 40 cancel out
    assert per[("native", "md5")] == 0.0
    said = sections.memory_sentence(data)
    assert "the helper style 2500 allocations for MD5, streamlined 1500 for MD5" in said
    assert "no variant's peak grows with the input" in said
    table = pages.memory_section(data)
    assert "### Memory" in table and "| helpers " in table and "2500" in table


def test_the_two_styles_are_read_from_their_sources() -> None:
    code = sections.styles_code_section(bench_package.ROOT)
    helpers = (bench_package.ROOT / "variants" / "helpers" / "md5.py").read_text()
    assert "def step(" in code and "0xD76AA478" in code and '"""' not in code
    assert (
        "    return (b + rotate_left((a + func(b, c, d) + x + t) & MASK32, s)) & MASK32" in helpers
    )
    assert code.count("```python") == 2


def test_the_readme_s_column_figures_from_a_peers_run() -> None:
    """A column against the hashlib loop and DuckDB: the glance sentence and the small table."""
    rows = 1000
    per_row = {"digest_column/hex": 10e-9, "hashlib/hex": 400e-9, "duckdb/hex": 100e-9}
    cases = [{"column": shape, "algorithm": alg,
              "candidates": {k: {"values": [t * rows * f for f in (1.0, 1.01, 1.02)]}
                             for k, t in per_row.items()}}
             for shape in ("32 B", "1-64 B") for alg in ("md5", "sha256")]  # fmt: skip
    run = {"threads": 1, "rows": rows, "cases": cases}
    data = {"machine": {"date": "2026-01-02"},
            "classes": [{"name": "AVX2 and SHA-NI", "forced": "", "runs": [run]}]}  # fmt: skip
    glance = sections.columns_glance(data)
    assert glance is not None
    assert "in C 40x as fast as a hashlib loop and 10x as fast as DuckDB's `md5`" in glance
    assert "(SHA-256: 40x and 10x; one thread" in glance
    table = sections.columns_table(data)
    assert table is not None and "| 32 B   | MD5" in table and "40x faster" in table
    assert sections.columns_glance(None) is None and sections.columns_table(None) is None
