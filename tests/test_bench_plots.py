"""Every figure of the report, drawn from a small stored run (``tests/data/bench-run``).

The stored run is a real ``nox -s bench`` run cut down by ``shrink`` (its digest cases of a
few rows at 64 B and 16 KiB, three passes of four values each), small enough to keep in the
tree. The headline picture (helpers ÷ streamlined per mode, grouped by kind, against the JDK's
4-5x) and the others: a legend for every line, outside the data, hashlib and the builtin
told apart, the effort named so. matplotlib draws them here without a display (Agg).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import bench_package
import pytest

bench_package.load()

pytest.importorskip("matplotlib", reason="the figures need matplotlib (nox -s bench has it)")

import numpy  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

from bench import store  # noqa: E402
from bench.report import answers, pages, plots  # noqa: E402

RUN = Path(__file__).parent / "data" / "bench-run"
#: What ``shrink`` keeps of a run: rows, lengths, passes, values a pass.
ROWS = ("helpers", "streamlined", "helpers-mypyc", "native", "hashlib", "builtin", "MessageDigest")
LENGTHS, PASSES, VALUES = ("64", "16384"), 3, 4


def shrink(source: Path, target: Path) -> None:
    """``source``'s run cut down to what the figures need, written into ``target``."""
    values = json.loads((source / "values.json").read_text())
    kept: Dict[str, Dict[str, Any]] = {}
    for mode, cases in values.items():
        kept[mode] = {}
        for name, case in cases.items():
            bench, _, variant, length = name.split("/")[:4]
            if bench == "digest" and variant in ROWS and length in LENGTHS:
                runs = [{**r, "rounds": r["rounds"][:VALUES], "values": r["values"][:VALUES]}
                        for r in case["runs"][:PASSES]]  # fmt: skip
                kept[mode][name] = {**case, "runs": runs}
    target.mkdir(parents=True, exist_ok=True)
    (target / "values.json").write_text(json.dumps(kept))
    shutil.copyfile(source / "study.json", target / "study.json")


@pytest.fixture(scope="module")
def report() -> answers.Report:
    return answers.build(store.load(RUN))


def texts(fig: Figure) -> List[str]:
    return [t.get_text() for t in fig.findobj(Text)]


def legend_box(fig: Figure) -> Bbox:
    fig.canvas.draw()
    (legend,) = fig.legends
    return legend.get_window_extent()


def test_every_figure_is_drawn_and_written(report: answers.Report, tmp_path: Path) -> None:
    paths = plots.draw_all(report, tmp_path)
    names = [p.name for p in paths]
    modes = report.run.layout.columns  # a folded mode (-portable) draws in its CPython's
    assert names[0] == pages.HEADLINE
    assert set(names) == {pages.HEADLINE, "speedup.png", *(f"throughput-{m}.png" for m in modes)}
    assert all(p.read_bytes().startswith(b"\x89PNG") and p.stat().st_size > 10_000 for p in paths)


def test_the_headline_has_a_row_a_mode_grouped_by_kind(report: answers.Report) -> None:
    rows = plots.style_rows(report)
    kinds = [k for k, _, _ in rows]
    order = [k[0] for k in plots.KINDS]
    assert kinds == sorted(kinds, key=order.index)  # grouped, in the kinds' order
    styles = report.table("styles")
    assert styles is not None
    measured = {row.labels[0] for row in styles.rows}
    assert {m for _, m, _ in rows} == measured  # every mode of the styles table, once
    assert all(set(cells) == {"md5", "sha256"} for _, _, cells in rows)  # two marks a row
    assert plots.kind_of(report.run, "jdk17-xint") == "JDK -Xint"
    assert plots.kind_of(report.run, "jdk17-zero") == "JDK Zero"
    assert plots.kind_of(report.run, "jdk17-c1") == "JDK compilers"
    assert plots.kind_of(report.run, "pypy3") == "PyPy, JIT on"
    assert plots.kind_of(report.run, "pypy3-nojit") == "PyPy, JIT off"
    assert plots.kind_of(report.run, "3.11") == "CPython, no JIT"


def test_the_headline_marks_each_cpu_and_keeps_its_footer_apart(report: answers.Report) -> None:
    long = "Intel Xeon Platinum 8480+ 6/143 (Sapphire Rapids, a long name to crowd the legend)"
    fig = plots.styles([report, report], ["AMD EPYC 25/1 (Zen 3)", long])
    assert fig is not None
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["MD5", "SHA-256"]  # a panel an algorithm
    for ax in axes:
        assert ax.get_xscale() == "log"
        low, high = ax.get_xlim()
        assert low <= 0.9 and high >= 8
        at = [numpy.asarray(line.get_xdata(), dtype=float).tolist() for line in ax.get_lines()]
        assert [1.0, 1.0] in at  # the line at 1, "no cost"
        bands = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_width() > 0]
        assert any(abs(p.get_x() - 4) < 1e-9 and abs(p.get_x() + p.get_width() - 5) < 1e-9
                   for p in bands)  # fmt: skip
        # each machine its own mark, both colours (Python, the JVM) drawn
        marks = {line.get_marker() for line in ax.get_lines()}
        assert {plots.MACHINE_MARKS[0], plots.MACHINE_MARKS[1]} <= marks
        colours = {line.get_color() for line in ax.get_lines() if line.get_marker() in marks
                   and line.get_marker() != "None"}  # fmt: skip
        assert {plots.PYTHON, plots.JVM} <= colours
    words = " ".join(texts(fig))
    assert "8256523" in words and "no cost" in words and "2 CPUs" in words
    assert f"effort {report.run.header.effort}" in words
    title = fig.get_suptitle().replace("\n", " ")
    assert title.startswith(plots.headline_title(plots.style_rows(report)))
    assert title.startswith("Helper functions cost CPython")
    (legend,) = fig.legends
    shown = {t.get_text() for t in legend.get_texts()}
    assert {"Python", "the JVM", "AMD EPYC 25/1 (Zen 3)", long} <= shown
    box = legend_box(fig)
    footer = next(t for t in fig.texts if "effort" in t.get_text())
    assert not box.overlaps(footer.get_window_extent())  # legend_box drew the figure
    assert not any(box.overlaps(ax.get_window_extent()) for ax in axes)


def test_throughput_legends_every_line_outside_the_data(report: answers.Report) -> None:
    fig = plots.throughput(report.run, "3.11")
    drawn = {line.get_label() for ax in fig.axes for line in ax.get_lines()}
    (legend,) = fig.legends
    shown = {t.get_text() for t in legend.get_texts()}
    assert drawn == shown and {"hashlib", "native"} <= shown
    box = legend_box(fig)
    assert not any(box.overlaps(ax.get_window_extent()) for ax in fig.axes)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    if "builtin" in lines:
        assert lines["builtin"].get_color() != lines["hashlib"].get_color()
    assert lines["hashlib"].get_color() == plots.REFERENCES["hashlib"][0]
    assert f"effort {report.run.header.effort}" in " ".join(texts(fig))


def test_speedup_legend_outside_the_bars(report: answers.Report) -> None:
    fig = plots.speedup(report.run)
    assert fig is not None
    box = legend_box(fig)
    assert not any(box.overlaps(ax.get_window_extent()) for ax in fig.axes if ax.get_visible())


def test_the_stored_run_is_small_and_shrinks_to_itself(tmp_path: Path) -> None:
    shrink(RUN, tmp_path)
    again = json.loads((tmp_path / "values.json").read_text())
    assert again == json.loads((RUN / "values.json").read_text())
    assert (RUN / "values.json").stat().st_size < 400_000
