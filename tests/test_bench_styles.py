"""``python -m bench styles FILE``: a user's own coding styles, measured as the study measures.

The convention's errors, the check of every style against the baseline, the worker without the
``variants`` package, and tiny files measured end to end under two modes in seconds (a file
outside the repository, a style that differs and one that raises, a mode that cannot import
the file). No timed assertions: only what was measured, said and written.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List

import bench_package
import pytest

bench_package.load()

from bench.catalog import styles  # noqa: E402

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
    tmp_path: Path, text: str, said: List[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(styles.ConventionError) as caught:
        styles.load(path)
    for words in said:
        assert words in str(caught.value)


def test_a_missing_file_and_inputs_that_are_not_a_tuple_are_said(tmp_path: Path) -> None:
    with pytest.raises(styles.ConventionError, match="no such file"):
        styles.load(tmp_path / "nothing.py")
    found = styles.load(good(tmp_path).parent / "mine.py")
    bad = styles.StylesFile(found.path, found.title, found.sizes, lambda n: [n], found.styles)
    with pytest.raises(styles.ConventionError, match=r"inputs\(4\) must return a tuple"):
        styles.check(bad, "comprehension", 4)


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
    assert wrong["off_by_one"].startswith("at size 32 it returns [0, 2, 4,")
    assert "..." in wrong["off_by_one"] and len(wrong["off_by_one"]) < 220
    assert wrong["raises"] == "at size 4 it raises ValueError: not today"
    assert styles.check(found, "comprehension", 32) is None
    # the timer calls the style on arguments made once
    timer = styles.make_timer(found, found.case("comprehension", 32))
    assert timer(10) >= 0


def test_a_baseline_that_raises_fails_every_style(tmp_path: Path) -> None:
    text = GOOD.replace("out = []", "out = None")
    path = write(tmp_path, text + "STYLES = (loop, comprehension)")
    wrong = styles.failures(styles.load(path))
    assert set(wrong) == {"loop", "comprehension"}
    assert "the baseline loop raises at size 4: AttributeError" in wrong["comprehension"]
