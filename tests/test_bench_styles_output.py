"""``python -m bench styles``: what a user's function needs and output other tools read.

Real runs through the pipeline, under the running interpreter only, with a budget of a second
and no counts (a test's run; no timed assertion): EQUAL, fresh inputs and a style that changes
its inputs, the clock, summary.json against its committed JSON Schema, the ratios as CSV,
``styles compare``, and the report's mark where a time and its instructions disagree.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any, List, Mapping

import bench_package
import pytest

bench_package.load()

from bench import __main__ as entry  # noqa: E402
from bench import store  # noqa: E402
from bench.profile import style_instructions  # noqa: E402
from bench.report import styles as report  # noqa: E402
from bench.report import styles_compare, styles_summary  # noqa: E402

SCHEMA = bench_package.ROOT / "docs" / "styles-summary.schema.json"


def page_of(folder: Path) -> str:
    """A run's report.md with its lines joined: the page wraps its prose, and where a line
    breaks depends on how long the run's paths are (CI's are longer)."""
    return " ".join((folder / "report.md").read_text().split())


SORTS = """
SIZES = (8, 64)


def inputs(size):
    return (list(range(size, 0, -1)),)


def copied(xs):
    return sorted(xs)


def in_place(xs):
    xs.sort()
    return xs


STYLES = (copied, in_place)
"""

FLOATS = """
import math
SIZES = (8, 64)


def inputs(size):
    return ([0.1 * i for i in range(size)], [0.3 * i for i in range(size)])


def products(xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += x * y
    return [total]


def fsum(xs, ys):
    return [math.fsum(x * y for x, y in zip(xs, ys))]


STYLES = (products, fsum)
"""


def run(folder: Path, text: str, *extra: str, name: str = "mine.py") -> tuple[int, Path | None]:
    """The styles file ``text`` measured for a second under this interpreter (mode ``a``):
    the exit status and the run's folder (None: none)."""
    path = folder / name
    path.write_text(textwrap.dedent(text))
    results = Path(tempfile.mkdtemp(prefix="results-", dir=folder))  # a run's own
    argv = ["styles", str(path), "--python", f"a={sys.executable}", "--effort", "quick",
            "--budget", "1", "--results", str(results), "--no-plots", "--no-count",
            *extra]  # fmt: skip
    status = entry.main(argv)
    made = sorted((results / "styles").iterdir()) if (results / "styles").exists() else []
    return status, (made[-1] if made else None)


def test_equal_decides_in_every_mode_and_without_it_the_difference_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, folder = run(tmp_path, FLOATS)
    out = capsys.readouterr().out
    assert status == 1 and folder is not None  # one style: nothing to time against
    said = out.split("a: fsum unavailable: ", 1)[1].splitlines()[0]
    assert said.startswith("at size 64 it returns [2560.32], the baseline [2560.32000")
    assert "first differs at index 0" in said and "the largest relative difference" in said
    assert said.endswith("define EQUAL(result, baseline) -> bool in the file")
    close = (
        "\ndef EQUAL(result, baseline):\n"
        "    return all(math.isclose(a, b) for a, b in zip(result, baseline))\n"
    )
    status, folder = run(tmp_path, FLOATS + close)
    assert status == 0 and folder is not None
    measured = {
        c.variant for (_, _), c in ((k, v.case) for k, v in store.load(folder).measured.items())
    }
    assert measured == {"products", "fsum"}
    assert json.loads((folder / "summary.json").read_text())["file"]["equal"] == "EQUAL"
    assert "Results compared by the file's `EQUAL`." in page_of(folder)


def test_a_style_that_changes_its_inputs_is_named_and_fresh_inputs_let_it_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = run(tmp_path, SORTS)
    out = capsys.readouterr().out
    assert status == 1
    assert (
        "a: in_place unavailable: at size 8 it changes its inputs (argument 1 of inputs(8))" in out
    )
    assert "FRESH = True" in out
    status, folder = run(tmp_path, SORTS + "FRESH = True\n")
    assert status == 0 and folder is not None
    summary = json.loads((folder / "summary.json").read_text())
    assert {(r["style"], r["size"]) for r in summary["ratios"]} == {
        ("in_place", 8),
        ("in_place", 64),
    }
    assert summary["file"]["fresh"] == [8, 64] and summary["file"]["equal"] == "=="
    assert "Fresh inputs for every call at size 8, 64." in page_of(folder)


def test_the_wall_clock_is_taken_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    argv = ("--clock", "wall", "--format", "json")
    status, folder = run(tmp_path, SORTS + "FRESH = (8, 64)\n", *argv)
    assert status == 0 and folder is not None
    assert store.load(folder).header.clock == "wall"
    printed = json.loads(capsys.readouterr().out)  # --format json: the summary alone on stdout
    assert printed == json.loads((folder / "summary.json").read_text())
    assert printed["run"]["clock"] == "wall"
    assert ", wall-clock time, " in page_of(folder)
    status, folder = run(tmp_path, SORTS + "FRESH = True\n")
    assert folder is not None and ", CPU time, " in page_of(folder)


def validate(value: Any, schema: Mapping[str, Any], where: str = "$") -> List[str]:
    """What in ``value`` breaks ``schema``: the JSON Schema keywords the summary's schema
    uses (type, const, enum, required, properties, additionalProperties, items, minimum,
    exclusiveMinimum), standard library only."""
    types = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    wrong: List[str] = []
    if "const" in schema and value != schema["const"]:
        wrong.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        wrong.append(f"{where}: {value!r} not one of {schema['enum']}")
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]

        def fits(t: str) -> bool:
            if t == "integer":
                return isinstance(value, int) and not isinstance(value, bool)
            if t == "number":
                return isinstance(value, (int, float)) and not isinstance(value, bool)
            return isinstance(value, types[t])

        if not any(fits(t) for t in allowed):
            return [*wrong, f"{where}: {value!r} is not {allowed}"]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            wrong.append(f"{where}: {value} < {schema['minimum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            wrong.append(f"{where}: {value} <= {schema['exclusiveMinimum']}")
    if isinstance(value, dict):
        wrong += [f"{where}: {k} is missing" for k in schema.get("required", ()) if k not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            if k in props:
                wrong += validate(v, props[k], f"{where}.{k}")
            elif extra is False:
                wrong.append(f"{where}: {k} is not in the schema")
            elif isinstance(extra, dict):
                wrong += validate(v, extra, f"{where}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            wrong += validate(v, schema["items"], f"{where}[{i}]")
    return wrong


def test_a_real_summary_follows_its_committed_schema_and_the_csv_holds_its_ratios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads(SCHEMA.read_text())
    assert schema["properties"]["version"]["const"] == styles_summary.VERSION
    assert schema["properties"]["schema"]["const"] == styles_summary.SCHEMA
    status, folder = run(tmp_path, SORTS + "FRESH = True\n", "--format", "csv")
    assert status == 0 and folder is not None
    summary = json.loads((folder / "summary.json").read_text())
    assert validate(summary, schema) == []
    # the validator sees what breaks it (it can fail)
    broken = {**summary, "ratios": [{**summary["ratios"][0], "verdict": "quicker"}]}
    assert validate(broken, schema) == [
        "$.ratios[0].verdict: 'quicker' not one of ['slower', 'faster', 'no difference']"
    ]
    assert validate({**summary, "algorithm": "md5"}, schema) == []  # (the top level is open)
    assert validate({**summary, "file": {**summary["file"], "jdk": ""}}, schema) == [
        "$.file: jdk is not in the schema"
    ]
    try:
        import jsonschema  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        pass
    else:
        jsonschema.validate(summary, schema)
    # its own keys, every number a ratio needs, the interpreter's version and build
    mode = summary["modes"]["a"]
    assert mode["version"] == ".".join(map(str, sys.version_info[:3])) and mode["compiler"] is None
    assert all(r["low"] <= r["ratio"] <= r["high"] for r in summary["ratios"])
    assert {(t["style"], t["size"]) for t in summary["times"]} == {
        (s, n) for s in ("copied", "in_place") for n in (8, 64)
    }
    # --format csv: the ratios alone on stdout, the same as ratios.csv; the progress on stderr
    said = capsys.readouterr()
    written = (folder / "ratios.csv").read_text()
    assert said.out == written and "measured in " in said.err
    rows = list(csv.DictReader(io.StringIO(written)))
    assert [(r["style"], r["size"], r["mode"]) for r in rows] == [
        ("in_place", "8", "a"),
        ("in_place", "64", "a"),
    ]
    for r, x in zip(rows, summary["ratios"]):
        assert math.isclose(float(r["ratio"]), x["ratio"]) and r["verdict"] == x["verdict"]


def scaled(folder: Path, into: Path, style: str, factor: float) -> Path:
    """A copy of the run in ``folder`` whose ``style``'s values are ``factor`` times theirs."""
    shutil.copytree(folder, into)
    values = store.read_record(into / "values.json")
    for cases in values.values():
        for name, data in cases.items():
            if name.split("/")[2] == style:
                for r in data["runs"]:
                    r["values"] = [v * factor for v in r["values"]]
    store.write_record(into / "values.json", values)
    return into


def test_compare_says_each_ratios_change_and_whether_it_moved_beyond_both_intervals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, a = run(tmp_path, SORTS + "FRESH = True\n")
    assert status == 0 and a is not None
    capsys.readouterr()
    assert entry.main(["styles", "compare", str(a), str(a)]) == 0
    out = capsys.readouterr().out
    assert "0 of 2 ratios in common moved beyond both intervals; verdicts changed: 0 of 2" in out
    # the edit made in_place a thousand times slower: every ratio moves beyond both intervals
    # (a factor far past any interval a one-second run can have: a 3x move did not clear the
    # ±255% of a run beside a busy core)
    b = scaled(a, tmp_path / "after", "in_place", 1000.0)
    assert entry.main(["styles", "compare", str(a), str(b), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["moved"] for r in rows] == ["True", "True"]
    assert all(math.isclose(float(r["change"]), 999.0) for r in rows)
    assert entry.main(["styles", "compare", str(a), str(b)]) == 0
    assert "2 of 2 ratios in common moved beyond both intervals" in capsys.readouterr().out
    assert entry.main(["styles", "compare", str(a), str(b), "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert [(r["style"], r["size"], r["moved"]) for r in said["ratios"]] == [
        ("in_place", 8, True), ("in_place", 64, True)]  # fmt: skip
    # a small move stays inside the intervals
    c = scaled(a, tmp_path / "nudged", "in_place", 1.0 + 1e-9)
    found, _ = styles_compare.compare(styles_compare.summary(a), styles_compare.summary(c))
    assert [r["moved"] for r in found] == [False, False]
    # folders that are not two runs of one file: one line, what to change
    cut = tmp_path / "cut"  # a run cut short: its values never written
    shutil.copytree(a, cut)
    (cut / "values.json").unlink()
    for argv, said in (
        ([str(a), str(tmp_path)], "no run here (no study.json); give a run's folder"),
        ([str(a), str(cut)], f"{cut}: not a whole styles run (FileNotFoundError: "),
        ([str(a)], "the following arguments are required: b"),
    ):
        try:
            status = entry.main(["styles", "compare", *argv])
        except SystemExit as exc:
            status = int(exc.code or 0)
        assert status == 2
        captured = capsys.readouterr()
        assert (
            said in captured.out + captured.err and "Traceback" not in captured.out + captured.err
        )
    status, other = run(
        tmp_path,
        SORTS.replace("STYLES = (copied, in_place)", "STYLES = (in_place, copied)")
        + "FRESH = True\n",
        name="other.py",
    )
    assert other is not None
    assert entry.main(["styles", "compare", str(a), str(other)]) == 2
    assert "different baselines (copied, in_place)" in capsys.readouterr().out


def test_a_time_and_an_instruction_count_that_disagree_are_said_beside_the_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, measured = run(tmp_path, SORTS + "FRESH = True\n")
    assert status == 0 and measured is not None
    # in_place made a thousand times slower than measured: slower beyond its interval at both
    # sizes, however wide a one-second run's interval (10x did not clear ±255% in CI)
    folder = scaled(measured, tmp_path / "slower", "in_place", 1000.0)
    # and counted with half the baseline's instructions (as callgrind would write them)
    rows = []
    for size in (8, 64):
        rows += [{"style": "copied", "size": size, "instructions": 1000},
                 {"style": "in_place", "size": size, "instructions": 500}]  # fmt: skip
    store.write_record(folder / style_instructions.INSTRUCTIONS, {"modes": {"a": {"rows": rows}}})
    assert report.report_main(folder, plots=False) == 0
    summary = json.loads((folder / "summary.json").read_text())
    assert [(r["verdict"], r["instructions_ratio"], r["disagrees"]) for r in summary["ratios"]] == [
        ("slower", 0.5, True), ("slower", 0.5, True)]  # fmt: skip
    page = page_of(folder)
    assert page.count("⚠ instr. 0.5x") == 2
    assert "⚠ marks the 2 ratios whose time and machine instructions disagree" in page
    # counts that agree with the time: no mark
    for row in rows:
        row["instructions"] = 1000
    store.write_record(folder / style_instructions.INSTRUCTIONS, {"modes": {"a": {"rows": rows}}})
    report.report_main(folder, plots=False)
    assert "⚠" not in page_of(folder)
    assert styles_summary.disagrees("slower", 0.98) and not styles_summary.disagrees(
        "slower", 0.995
    )
    assert styles_summary.disagrees("faster", 1.02) and not styles_summary.disagrees(
        "no difference", 0.5
    )


GOOD = """
SIZES = (4,)


def inputs(size):
    return (list(range(size)),)


def first(xs):
    return sum(xs)


def second(xs):
    return sum(x for x in xs)


STYLES = (first, second)
"""


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("raise RuntimeError('boom')\n" + GOOD, "a: the file cannot run here: RuntimeError: boom"),
        ("import sys\nsys.exit(3)\n" + GOOD, "a: the file cannot run here: SystemExit: 3"),
        ("def broken(:\n" + GOOD, "a: the file cannot run here: SyntaxError: "),
        (GOOD.replace("return (list", "raise KeyError('n')\n    return (list"),
         "the file's inputs(4) raises KeyError: 'n'"),
        (GOOD.replace("def second(xs):", "def second(xs, ys):"),
         "second unavailable: at size 4 it raises TypeError: "),
    ],
    ids=["import-raises", "import-exits", "syntax", "inputs-raises", "arity"],
)  # fmt: skip
def test_a_bad_styles_file_gets_a_line_saying_what_to_change_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    status, folder = run(tmp_path, text)
    out = capsys.readouterr()
    assert status == 1 and folder is not None  # nothing to time: said, and the run's page
    assert said in out.out and "Traceback" not in out.out + out.err


SHUFFLED = """
import random
SIZES = (256,)
FRESH = True


def inputs(size):
    xs = list(range(size))
    random.Random(size).shuffle(xs)
    return (xs,)


def copied(xs):
    return sorted(xs)


def in_place(xs):
    xs.sort()
    return xs


STYLES = (copied, in_place)
"""


@pytest.mark.skipif(
    shutil.which("valgrind") is None or sys.implementation.name != "cpython",
    reason="callgrind counts of CPython's sort",
)
def test_a_fresh_size_is_counted_on_fresh_inputs_too(tmp_path: Path) -> None:
    path = tmp_path / "sorts.py"
    path.write_text(SHUFFLED)
    results = tmp_path / "results"
    argv = ["styles", str(path), "--python", f"a={sys.executable}", "--effort", "quick",
            "--budget", "1", "--results", str(results), "--no-plots"]  # fmt: skip
    assert entry.main(argv) == 0
    (folder,) = (results / "styles").iterdir()
    counts = {
        r["style"]: r for r in json.loads((folder / "summary.json").read_text())["instructions"]
    }
    # sorting a shuffled list in place costs about what sorting a copy does; counted on the
    # list the warm-up had already sorted, it cost 0.155 of it (before fresh inputs were counted)
    assert counts["in_place"]["ratio"] > 0.5
