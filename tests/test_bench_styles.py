"""``python -m bench styles FILE``: a user's own coding styles, measured as the study measures.

The convention's errors, the check of every style against the baseline, the worker without the
``variants`` package, and tiny files measured end to end under two modes in seconds (a file
outside the repository, a style that differs and one that raises, a mode that cannot import
the file). No timed assertions: only what was measured, said and written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any, List

import bench_package
import pytest

bench_package.load()

from bench import __main__ as entry  # noqa: E402
from bench import store  # noqa: E402
from bench.catalog import modes, styles  # noqa: E402
from bench.catalog.styles_study import compiler_of, label_of  # noqa: E402
from bench.conduct import launch, twins  # noqa: E402
from bench.conduct.options import Options  # noqa: E402
from bench.profile import marks, style_instructions  # noqa: E402
from bench.report import pages  # noqa: E402

GOOD = '''
"""Doubling a list: a loop with append against a comprehension."""
TITLE = "append or a comprehension"
SIZES = (4, 32)


def inputs(size):
    return (list(range(size)),)


def loop(xs):
    """a loop with append"""
    out = []
    for x in xs:
        out.append(2 * x)
    return out


def comprehension(xs):
    return [2 * x for x in xs]
'''


def write(folder: Path, text: str, name: str = "mine.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def good(folder: Path, extra: str = "", styles_line: str = "(loop, comprehension)") -> Path:
    return write(folder, GOOD + extra + f"\nSTYLES = {styles_line}\n")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x = 1\n", ["SIZES is missing", "inputs is missing", "STYLES is missing"]),
        (GOOD + "STYLES = (loop,)\n", ["two or more functions"]),
        (GOOD.replace("SIZES = (4, 32)", "SIZES = (4, 'many')") + "STYLES = (loop, loop)\n",
         ["SIZES must be a non-empty tuple of ints", "two functions named loop"]),
        (GOOD.replace("def inputs", "inputs = 3\ndef _inputs") + "STYLES = (loop, 'x')\n",
         ["inputs must be a function", "these are not: 'x'"]),
        (GOOD + "STYLES = (loop, comprehension)\nTITLE = 5\n", ["TITLE must be a string"]),
    ],
)  # fmt: skip
def test_a_file_off_the_convention_gets_one_error_naming_what_is_wrong(
    tmp_path: Path, text: str, said: List[str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(styles.ConventionError) as caught:
        styles.load(path)
    for words in said:
        assert words in str(caught.value)
    # the command says it once and measures nothing
    argv = ["styles", str(path), "--python", f"a={sys.executable}", "--results", str(tmp_path)]
    assert entry.main(argv) == 2
    out = capsys.readouterr().out
    assert out.count("does not follow the styles convention") == 1 and said[0] in out
    assert not (tmp_path / "styles").exists()


def test_a_missing_file_and_inputs_that_are_not_a_tuple_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(styles.ConventionError, match="no such file"):
        styles.load(tmp_path / "nothing.py")
    with pytest.raises(styles.ConventionError, match="a folder; give the styles file in it"):
        styles.load(tmp_path)
    found = styles.load(good(tmp_path).parent / "mine.py")

    def not_a_tuple(n: int) -> Any:  # what a user's file may well do
        return [n]

    bad = styles.StylesFile(found.path, found.title, found.sizes, not_a_tuple, found.styles)
    said = "inputs(4) must return a tuple of arguments, not [4]"
    assert styles.check(bad, "comprehension", 4) == said  # in a worker: every style, why
    # the command says it once, before measuring
    path = write(
        tmp_path,
        GOOD.replace("return (list(range(size)),)", "return [size]")
        + "STYLES = (loop, comprehension)\n",
    )
    argv = ["styles", str(path), "--python", f"a={sys.executable}", "--results", str(tmp_path)]
    assert entry.main(argv) == 2 and not (tmp_path / "styles").exists()
    assert capsys.readouterr().out == f"bench styles: {path}: {said}\n"


@pytest.mark.parametrize(
    ("extra", "said"),
    [(["--budget", "-1"], "argument --budget: '-1': give seconds above 0"),
     (["--budget", "nan"], "argument --budget: 'nan': give seconds above 0"),
     (["--promise", "-0.1"], "argument --promise: '-0.1': give a half-width of 0 or more"),
     (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
     (["--results", "FILE"], "no results folder can be made there (Not a directory: "),
     ([], "the styles file is missing (or --list-modes)")],
    ids=["budget-negative", "budget-nan", "promise-negative", "format", "results-a-file",
         "no-file"],
)  # fmt: skip
def test_a_bad_command_line_is_one_line_saying_what_to_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: List[str], said: str
) -> None:
    path = good(tmp_path)
    given = [str(path) if x == "FILE" else x for x in extra]
    argv = ["styles", *([str(path)] if extra else []), "--python", f"a={sys.executable}",
            "--results", str(tmp_path / "results"), *given]  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        entry.main(argv)
    out = capsys.readouterr()
    code = stop.value.code
    text = out.out + out.err + (code if isinstance(code, str) else "")
    assert code not in (0, None) and said in text
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in text
    assert not (tmp_path / "results" / "styles").is_dir() or not any(
        (tmp_path / "results" / "styles").iterdir()
    )


def test_every_style_is_checked_against_the_baseline_at_every_size(tmp_path: Path) -> None:
    extra = """
def off_by_one(xs):
    return [2 * x for x in xs[:16]]  # right at 4, wrong at 32


def raises(xs):
    raise ValueError("not today")
"""
    found = styles.load(good(tmp_path, extra, "(loop, comprehension, off_by_one, raises)"))
    assert found.names == ("loop", "comprehension", "off_by_one", "raises")
    assert found.baseline == "loop" and found.title == "append or a comprehension"
    assert found.describe("loop") == "a loop with append" and found.describe("raises") == ""
    wrong = styles.failures(found)
    assert set(wrong) == {"off_by_one", "raises"}
    # where they differ, not two reprs cut before it
    assert wrong["off_by_one"] == (
        "at size 32 it returns a list that differs from the baseline's: length 16, the "
        "baseline's 32; equal over the first 16"
    )
    assert wrong["raises"] == "at size 4 it raises ValueError: not today"
    assert styles.check(found, "comprehension", 32) is None
    # the timer calls the style on arguments made once
    timer = styles.make_timer(found, found.case("comprehension", 32).case)
    assert timer(10) >= 0


def test_a_baseline_that_raises_fails_every_style(tmp_path: Path) -> None:
    text = GOOD.replace("out = []", "out = None")
    path = write(tmp_path, text + "STYLES = (loop, comprehension)")
    wrong = styles.failures(styles.load(path))
    assert set(wrong) == {"loop", "comprehension"}
    assert "the baseline loop raises at size 4: AttributeError" in wrong["comprehension"]


def test_the_worker_lists_and_times_a_file_without_the_variants_package(tmp_path: Path) -> None:
    path = good(tmp_path)
    script = f"""
import sys
sys.modules["variants"] = None  # any import of it fails
from bench.conduct import worker
server = worker.Server()
listed = server.list({{"styles": {str(path)!r}}})
assert listed["cases"] == ["styles/mine/loop/4", "styles/mine/comprehension/4",
                           "styles/mine/loop/32", "styles/mine/comprehension/32"], listed
fresh = worker.Server()  # a pass's fresh worker: prepare alone, the file named
got = fresh.prepare({{"styles": {str(path)!r}, "cases": [{{"name": "styles/mine/loop/32"}}],
                      "min_time": 0.0001, "jit": False}})
assert got["cases"]["styles/mine/loop/32"]["loops"] >= 1
assert fresh.value({{"case": "styles/mine/loop/32"}})["value"] > 0
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=launch.import_folder(tmp_path),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_a_file_outside_the_repository_is_measured_under_two_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "neighbour.py").write_text("FACTOR = 2\n")  # imported from the file's folder
    extra = """
from neighbour import FACTOR


def differs(xs):
    return [FACTOR * x + 1 for x in xs]


def raises(xs):
    return {}["missing"]
"""
    path = good(outside, extra, "(loop, comprehension, differs, raises)")
    argv = ["styles", str(path), "--python", f"a={sys.executable}", "--python",
            f"b={sys.executable}", "--effort", "quick", "--budget", "2", "--results",
            str(tmp_path / "results"), "--no-plots"]  # fmt: skip
    assert entry.main(argv) == 0
    out = capsys.readouterr().out
    said = (
        "differs under a, b (at size 4 it returns [1, 3, 5, 7], the baseline [0, 2, 4, 6] "
        "(first differs at index 0: 1, the baseline 0))"
    )
    assert said in out
    assert "raises under a, b (at size 4 it raises KeyError: 'missing')" in out
    (folder,) = (tmp_path / "results" / "styles").iterdir()
    run = store.load(folder)
    measured = {(m, c.variant, c.length) for (m, _), c in
                ((k, v.case) for k, v in run.measured.items())}  # fmt: skip
    assert measured == {(m, v, n) for m in "ab" for v in ("loop", "comprehension") for n in (4, 32)}
    assert run.header.study == "styles"
    assert run.header.record["title"] == "append or a comprehension"
    assert run.header.record["styles"] == ["loop", "comprehension", "differs", "raises"]
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["schema"] == "stylebench-summary" and summary["version"] == 1
    assert summary["file"]["styles"] == ["loop", "comprehension", "differs", "raises"]
    ratios = {(r["style"], r["size"], r["mode"]) for r in summary["ratios"]}
    assert ratios == {("comprehension", n, m) for n in (4, 32) for m in "ab"}
    assert summary["run"]["clock"] == "cpu" and set(summary["modes"]) == {"a", "b"}
    report = (folder / "report.md").read_text()
    assert report.startswith("# append or a comprehension")
    # the study's Python modes play the JDK's (its -Xint, its Server); a user's file's do not
    played = [replace(c, mode=replace(c.mode, jdk=modes.INTERPRETED)) for c in run.columns]
    assert "JDK" not in "\n".join(pages.modes_lines(replace(run, columns=tuple(played))))
    hashes = replace(run.header, study="bench", record={})
    study = replace(run, columns=tuple(played), header=hashes)
    assert "As the JDK's **-Xint**" in "\n".join(pages.modes_lines(study))
    assert "**Each style against loop**" in report and "`comprehension` against `loop`" in report
    assert not (folder / "styles.png").exists()
    # bytecode and calls per call, under each interpreter (its first mode): a loop of 32
    # appends makes 32 calls into C, the comprehension none but the list's
    assert "**Bytecode instructions executed per call**" in report
    counts = json.loads((folder / "bytecode.json").read_text())["interpreters"]
    assert set(counts) == {"a", "b"}
    rows = {(r["style"], r["size"]): r for r in counts["a"]["rows"]}
    assert set(rows) == {(s, n) for s in ("loop", "comprehension") for n in (4, 32)}
    assert rows[("loop", 32)]["c_calls"] >= 32 > rows[("comprehension", 32)]["c_calls"]
    assert rows[("loop", 32)]["bytecode"] > rows[("loop", 4)]["bytecode"] > 0
    # stability reads styles runs: a run against itself moves nothing
    assert entry.main(["stability", str(folder), str(folder)]) == 0
    compared = capsys.readouterr().out
    assert "ratios in common" in compared and "verdicts that changed class: 0 of 4" in compared
    # machine instructions per call under callgrind, each style ÷ the baseline, where valgrind is
    if shutil.which("valgrind") is None:
        assert "no instruction counts under a: valgrind is not installed" in out
        return
    found = summary["instructions"]
    assert {r["mode"] for r in found} == {"a", "b"}
    by = {(r["style"], r["size"]): r for r in found if r["mode"] == "a"}
    assert set(by) == {(s, n) for s in ("loop", "comprehension") for n in (4, 32)}
    assert by[("loop", 32)]["instructions"] > by[("loop", 4)]["instructions"] > 0
    assert by[("loop", 4)]["ratio"] == 1.0 and by[("comprehension", 32)]["ratio"] > 0
    if sys.implementation.name == "cpython":  # PyPy's tracing makes its own counts
        assert by[("comprehension", 32)]["ratio"] < 1
    assert "**Instructions, each style ÷ loop**" in report
    assert "100.0% of the counts equal within 0.5%" in compared


def test_a_mode_that_cannot_import_the_file_is_named_and_the_others_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "bin" / "other-python"
    other.parent.mkdir()
    other.symlink_to(sys.executable)
    guard = "import sys\nif sys.executable.endswith('other-python'):\n    import no_such_module\n"
    path = write(tmp_path, guard + GOOD + "STYLES = (loop, comprehension)\n")
    argv = [
        "styles",
        str(path),
        "--python",
        f"a={sys.executable}",
        "--python",
        f"b={other}",
        "--effort",
        "quick",
        "--budget",
        "1",
        "--results",
        str(tmp_path / "results"),
    ]
    assert entry.main(argv) == 0
    out = capsys.readouterr().out
    said = "b: the file cannot run here: ModuleNotFoundError: No module named 'no_such_module'"
    assert said in out
    (folder,) = (tmp_path / "results" / "styles").iterdir()
    run = store.load(folder)
    assert {m for m, _ in run.measured} == {"a"}
    assert run.header.record["cannot_run"] == {"b": said[3:]}
    assert "Modes that cannot run the file: " + said in (folder / "report.md").read_text()
    pytest.importorskip("matplotlib")
    assert (folder / "styles.png").stat().st_size > 1000


def test_instruction_counts_are_read_less_the_empty_call_and_divided_by_the_baseline(
    tmp_path: Path,
) -> None:
    def dump(name: str, rep: int, total: int) -> str:
        return f"desc: Trigger: Client Request: {name}|{rep}|0\ntotals: {total}\n"

    text = "".join([dump("|empty|", 0, 110), dump("|empty|", 1, 100),
                    dump("loop|4", 0, 1100), dump("loop|4", 1, 1000),
                    dump("comprehension|4", 0, 600), dump("comprehension|4", 1, 700)])  # fmt: skip
    rows = style_instructions.rows_of(text)
    assert rows == [{"style": "loop", "size": 4, "instructions": 900},
                    {"style": "comprehension", "size": 4, "instructions": 500}]  # fmt: skip
    # at a FRESH size, the empty call that makes the inputs is taken off instead
    fresh = text + dump("|empty|8", 0, 400) + dump("loop|8", 0, 1400)
    assert style_instructions.rows_of(fresh)[2] == {
        "style": "loop",
        "size": 8,
        "instructions": 1000,
    }
    store.write_record(tmp_path / style_instructions.INSTRUCTIONS,
                       {"modes": {"a": {"rows": rows}, "b": {"why": "no valgrind"}}})  # fmt: skip
    found = style_instructions.ratios(tmp_path, "loop")
    assert list(found) == ["a"] and found["a"][1]["ratio"] == pytest.approx(500 / 900)
    table = "\n".join(style_instructions.lines(tmp_path, "loop"))
    assert "| comprehension | 4    | 0.556 |" in table and "| loop          | 4    | 900 |" in table
    assert marks.REPEATS > 1  # the least of several counts is the one kept


def test_the_twins_compilers_are_those_the_study_builds_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the build's own setuptools is the one pyproject asks for; an older one lacks its hooks
    pytest.importorskip("setuptools", minversion="77")
    monkeypatch.syspath_prepend(str(bench_package.ROOT))
    monkeypatch.setenv("VARIANTS_BUILD", "study")
    from build_support import backend, settings

    if not (settings.cpython() and settings.mypyc_builds()):
        pytest.skip("the study's build asks for mypy on CPython 3.10+ with a GIL")
    asked = backend._requirements(None)  # what the study's build adds to setuptools'
    assert twins.CYTHON in asked and twins.MYPY in asked
    assert twins.CYTHON in twins.TOOLS and any(t.startswith(twins.MYPY) for t in twins.TOOLS)
    assert compiler_of("3.14-jit+mypyc") == "mypyc" and compiler_of("3.14") is None
    with pytest.raises(ValueError, match="unknown compiler nuitka"):
        twins.chosen("mypyc,nuitka")


#: The interpreter of the study that runs the tests, where it is one (the twins are its own).
HERE = f"{sys.version_info[0]}.{sys.version_info[1]}"


STUDY_CPYTHON = sys.implementation.name == "cpython" and HERE in {m.label for m in modes.MODES}


@pytest.mark.skipif(
    not STUDY_CPYTHON or modes.find(HERE)[0] is None,
    reason="the twins are built for a study CPython's mode",
)
def test_the_twins_of_a_file_are_built_checked_and_measured_and_a_failed_build_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a style right interpreted and wrong compiled (its own type changes); module-level code
    # that mypy rejects (mypyc's build fails, Cython's does not)
    extra = """
def by_kind(xs):
    return [2 * x for x in xs] if type(by_kind).__name__ == "function" else []


WRONG: int = "a string"
"""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    path = good(outside, extra, "(loop, comprehension, by_kind)")
    results = tmp_path / "results"
    argv = ["styles", str(path), "--modes", HERE, "--compile", "mypyc,cython", "--effort",
            "quick", "--budget", "1", "--results", str(results), "--no-plots",
            "--no-count"]  # fmt: skip
    assert entry.main(argv) == 0
    out = capsys.readouterr().out
    cython = label_of(HERE, "cython")
    said = "it returns [], the baseline [0, 2, 4, 6] (length 0, the baseline's 4)"
    assert f"by_kind under {cython} (at size 4 {said})" in out
    (folder,) = (results / "styles").iterdir()
    run = store.load(folder)
    measured = {(m, c.variant) for (m, _), c in ((k, v.case) for k, v in run.measured.items())}
    styles_ = {"loop", "comprehension"}
    assert measured == {(m, v) for m in (HERE, cython) for v in (*styles_, "by_kind")} - {
        (cython, "by_kind")}  # fmt: skip
    found = run.header.record
    twin = Path(found["twins"][cython])
    assert twin.suffix == ".so" and outside not in twin.parents  # built outside the user's tree
    why = found["not_built"][label_of(HERE, "mypyc")]
    assert why.startswith("mypyc failed: ") and "Incompatible types in assignment" in why
    report = (folder / "report.md").read_text()
    assert "Compiled twins that did not build: " in report and cython in report
    # the same file is not compiled twice
    assert twins.build(HERE, "cython", path, lambda _: None) == (twin, "")


EXAMPLES = sorted((bench_package.ROOT / "examples" / "styles").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_follows_the_convention_and_agrees_with_its_baseline(path: Path) -> None:
    found = styles.load(path)
    assert len(found.styles) >= 2 and found.title != found.stem
    assert styles.failures(found) == {}
    assert all(found.describe(n) for n in found.names)  # each says what it is


def test_a_styles_run_takes_its_own_budget_unless_one_is_given() -> None:
    """The default effort's styles run measures for 450 s, not the study's 640 s (its wait is
    promised under 10 minutes); --budget still overrides it. Quick's 110 s, not the study's
    220 s (its headline four algorithms' cases, a styles file's its whole file)."""
    from bench.conduct import effort

    def settings(*words: str) -> effort.Settings:
        return effort.settings_of(Options.of(entry.parse(["run", *words])))

    study = settings()
    assert study.budget == 640.0 and not study.settle_modes
    run = Options.of(entry.parse(["run"]))
    styled = effort.settings_of(run, settle_modes=True)
    assert styled.budget == 450.0 and styled.max_passes == 3 * study.max_passes
    assert effort.settings_of(replace(run, budget=300.0), settle_modes=True).budget == 300.0
    quick = replace(run, effort="quick")
    assert effort.settings_of(quick, True).budget == 110.0
    assert effort.settings_of(quick).budget == effort.EFFORTS["quick"].budget == 220.0


FLOATS = """
import math
SIZES = (8, 64)


def inputs(size):
    return ([0.1 * i for i in range(size)], [0.3 * i for i in range(size)])


def products(xs, ys):
    total = 0.0
    for x, y in zip(xs, ys):
        total += x * y
    return [total, *xs]


def fsum(xs, ys):
    return [math.fsum(x * y for x, y in zip(xs, ys)), *xs]


STYLES = (products, fsum)
"""


def test_a_float_that_differs_in_its_last_digits_is_shown_where_and_equal_names_equal(
    tmp_path: Path,
) -> None:
    found = styles.load(write(tmp_path, FLOATS))
    why = styles.failures(found)["fsum"]
    # the first index where they differ, both values, the largest relative difference
    assert why.startswith("at size 64 it returns a list that differs from the baseline's: ")
    assert "first differs at index 0: " in why and "the largest relative difference " in why
    assert "define EQUAL(result, baseline)" in why
    relative = float(why.split("the largest relative difference ")[1].split()[0])
    assert 0 < relative < 1e-12
    # an EQUAL of the file's decides, in every mode's check; one that says no is named
    close = "\ndef EQUAL(a, b):\n    return all(math.isclose(x, y) for x, y in zip(a, b))\n"
    assert styles.failures(styles.load(write(tmp_path, FLOATS + close))) == {}
    never = "\ndef EQUAL(a, b):\n    return False\n"
    said = styles.failures(styles.load(write(tmp_path, FLOATS + never)))["fsum"]
    assert said.startswith("at size 8 EQUAL(result, baseline) says it differs: ")
    raising = "\ndef EQUAL(a, b):\n    raise TypeError('no')\n"
    said = styles.failures(styles.load(write(tmp_path, FLOATS + raising)))["fsum"]
    assert said == "at size 8 the file's EQUAL(result, baseline) raises TypeError: no"
    with pytest.raises(styles.ConventionError, match="EQUAL must be a function"):
        styles.load(write(tmp_path, FLOATS + "EQUAL = 3\n"))


@pytest.mark.parametrize(
    ("body", "said"),
    [("pass", "None (a return missing?)"), ("return 'yes'", "'yes'"),
     ("return [True, False]", "[True, False]")],
    ids=["none", "string", "list"],
)  # fmt: skip
def test_an_equal_that_returns_no_bool_is_named_not_read_as_an_answer(
    tmp_path: Path, body: str, said: str
) -> None:
    found = styles.load(write(tmp_path, FLOATS + f"\ndef EQUAL(a, b):\n    {body}\n"))
    why = styles.failures(found)["fsum"]
    assert why.startswith(f"at size 8 the file's EQUAL(result, baseline) returns {said}, ")
    assert "not True or False: make it return a bool" in why


def test_a_numpy_bool_from_equal_is_an_answer(tmp_path: Path) -> None:
    # a 0-d value of kind "b", as numpy.isclose(a, b).all() returns (numpy.bool_)
    flag = """
class Kind:
    kind = "b"


class Flag:
    dtype, shape = Kind(), ()

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        return self.value


def EQUAL(a, b):
    return Flag(all(math.isclose(x, y) for x, y in zip(a, b)))
"""
    assert styles.failures(styles.load(write(tmp_path, FLOATS + flag))) == {}
    never = flag.replace("Flag(all(", "Flag(not all(")
    said = styles.failures(styles.load(write(tmp_path, FLOATS + never)))["fsum"]
    assert said.startswith("at size 8 EQUAL(result, baseline) says it differs: ")


def test_a_result_that_equal_cannot_compare_asks_for_equal(tmp_path: Path) -> None:
    text = (
        GOOD
        + """
class Ambiguous(list):
    def __eq__(self, other):
        raise ValueError("the truth value of an array is ambiguous")


def wrapped(xs):
    return Ambiguous(2 * x for x in xs)
"""
    )
    found = styles.load(write(tmp_path, text + "STYLES = (loop, wrapped)\n"))
    why = styles.failures(found)["wrapped"]
    assert "cannot be compared with the baseline's by ==" in why and "define EQUAL" in why


SORTS = """
SIZES = (16,)


def inputs(size):
    return (list(range(size, 0, -1)),)


def copied(xs):
    return sorted(xs)


def in_place(xs):
    xs.sort()
    return xs
"""


def test_a_style_that_changes_its_inputs_is_named_unless_they_are_fresh(tmp_path: Path) -> None:
    found = styles.load(write(tmp_path, SORTS + "STYLES = (copied, in_place)\n"))
    why = styles.failures(found)["in_place"]
    assert why.startswith("at size 16 it changes its inputs (argument 1 of inputs(16))")
    assert "FRESH = True" in why
    baseline = styles.failures(
        styles.load(write(tmp_path, SORTS + "STYLES = (in_place, copied)\n"))
    )
    assert set(baseline) == {"in_place", "copied"}
    assert "the baseline in_place changes its inputs at size 16" in baseline["copied"]
    # FRESH: every call its own inputs, made before the clock starts; checked as any style
    for fresh in ("True", "(16,)"):
        found = styles.load(
            write(tmp_path, SORTS + f"STYLES = (copied, in_place)\nFRESH = {fresh}\n")
        )
        assert found.fresh_at(16) and styles.failures(found) == {}
    # an argument whose == is its identity is compared by its pickle: a copy is not a change
    plain = "class Box:\n    def __init__(self, xs):\n        self.xs = xs\n"
    boxed = plain + SORTS.replace(
        "return (list(range(size, 0, -1)),)", "return (Box(list(range(size, 0, -1))),)"
    )
    boxed = boxed.replace("sorted(xs)", "sorted(xs.xs)").replace(
        "xs.sort()\n    return xs", "xs.xs.sort()\n    return xs.xs"
    )
    wrong = styles.failures(styles.load(write(tmp_path, boxed + "STYLES = (copied, in_place)\n")))
    assert list(wrong) == ["in_place"] and "it changes its inputs (argument 1" in wrong["in_place"]
    made: List[int] = []

    def counted(n: int) -> Any:
        made.append(n)
        return (list(range(n, 0, -1)),)

    timer = styles.make_timer(replace(found, inputs=counted), found.case("in_place", 16).case)
    assert timer(50) >= 0 and made == [16] * 50  # a set of arguments per call, all made first
    for bad, said in (("FRESH = 'yes'", "FRESH must be True, False or a tuple of sizes"),
                      ("FRESH = (17,)", "FRESH names sizes not in SIZES: [17]")):  # fmt: skip
        with pytest.raises(styles.ConventionError, match=re.escape(said)):
            styles.load(write(tmp_path, SORTS + f"STYLES = (copied, in_place)\n{bad}\n"))
