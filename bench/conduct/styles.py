"""Measuring a styles file (``python -m bench styles FILE``): its convention checked, the
interpreters found as bare modes, its study (``bench.catalog.styles_study``) for the
conductor.

    python -m bench styles examples/styles/lookups.py --effort quick
    python -m bench styles ~/mine.py --modes '3.1[24]*,pypy*' --results /tmp/results
    python -m bench styles --list-modes   # the interpreters found, from where, and what not

The file follows the convention of ``bench.catalog.styles`` (``SIZES``, ``inputs(size)``,
``STYLES``, the first the baseline, optional ``TITLE``); a file that does not gets one error
naming what is missing or wrong, and nothing is measured (``load``).

bench/ runs on the standard library, and a styles file needs nothing of this project: each
interpreter found (``bench.catalog.discover``: PATH, pyenv, uv, asdf, mise, conda, the built
3.13t, the Debian trees, each through its entry script) runs the worker as it is, no
environment made. Every mode of it that measures every row (not the native variant's
portable-kernel modes, not a JDK) is a column; ``--python LABEL=PATH`` names interpreters
instead (any label; ``3.14-jit=PATH`` its JIT on), and a ``-jit`` mode whose worker says its
JIT is off stops the run before anything is measured. The file's folder is bound inside the
Debian trees (``modes.BINDS_ENV``), so a file anywhere on disk runs there too. The conductor
(``bench.conduct.conductor``) then measures as it measures the study: fresh processes per
pass, warm-up, interleaved rounds, its stopping rule on the file's ratios. ``--compile
mypyc,cython`` adds the file's compiled twins as modes (``bench.conduct.twins``), built by the
interpreter each mode measures. ``bench.__main__`` runs the rest of the pipeline: the counts,
``bench.report.styles``'s report, as for every study. Installed (tools/stylebench.py), results
go to ``results/`` in the working directory (``default_results``).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..catalog import discover, modes, styles
from ..catalog.columns import Column
from ..catalog.styles import StylesFile
from ..catalog.styles_study import StylesStudy
from ..core.cli import OneLineParser
from ..store import RESULTS
from . import launch
from .effort import EFFORTS
from .options import Options, half_width, seconds

#: What a styles run prints at its end (``--format``): its report, its summary, its ratios.
FORMATS = ("md", "json", "csv")


def default_results() -> Path:
    """Where a run's results go without ``--results``: the clone's results/ where this package
    is a clone's bench/, else ``results/`` in the working directory (never site-packages)."""
    package = Path(__file__).resolve().parent.parent
    if package.name == "bench" and (package.parent / "noxfile.py").is_file():
        return RESULTS
    return Path.cwd() / "results"


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=f"{command_name()} styles",
        description="A user's own implementations of one function (a styles file), measured "
        "under every interpreter mode found: each style ÷ the first, with rerun intervals",
    )
    p.add_argument("file", type=Path, nargs="?", help="the styles file (SIZES, inputs, STYLES)")
    p.add_argument(
        "--list-modes",
        action="store_true",
        help="print the interpreters found (and from where), their modes and what was not used",
    )
    p.add_argument("--modes", default="", help="modes (labels or globs); default: all found")
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="an interpreter to run (repeat), instead of those found: LABEL names its modes "
        "(3.14, 3.14-jit: its JIT on, pypy3-nojit: PyPy's off, or any name)",
    )
    p.add_argument("--effort", choices=sorted(EFFORTS), default="default")
    p.add_argument("--budget", type=seconds, help="seconds of measuring in all (the ceiling)")
    p.add_argument(
        "--promise",
        type=half_width,
        help="the median half-width of the file's ratios at which measuring stops (0.05: "
        "±5%%; 0: the whole budget)",
    )
    p.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        help="cpu: the process's CPU time (default; on a shared machine other processes' time "
        "does not count); wall: the wall clock (a threaded style's waiting counts)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="what the run prints at its end: md, the report; json, summary.json; csv, the "
        "ratios (all three are written in the run's folder)",
    )
    p.add_argument(
        "--results",
        type=Path,
        default=default_results(),
        help="the results folder (default: results/ in the working directory)",
    )
    p.add_argument("--no-plots", action="store_true", help="no picture")
    p.add_argument(
        "--compile",
        default="",
        metavar="mypyc,cython",
        help="also measure the file compiled by these, each a mode of each CPython's "
        "(bench.conduct.twins)",
    )
    p.add_argument(
        "--no-count",
        action="store_true",
        help="no bytecode and call counts (each interpreter traces one call of each case)",
    )
    return p


def command_name() -> str:
    """How the tool was started: ``python -m bench`` in a clone, else the installed command."""
    package = __name__.split(".")[0]
    return "python -m bench" if package == "bench" else package


def runnable(mode: modes.Mode) -> bool:
    """Whether ``mode`` runs every row (not a mode of the native variant's portable kernels)."""
    return mode.variants is None


def _column(mode: modes.Mode, found: discover.Found) -> Column:
    """A mode's column: the program launch starts (a tree's interpreter of the study's table by
    its path inside the tree: launch adds the entry script)."""
    if found.interpreter().label == mode.interpreter and mode.interpreter in STUDY:
        return Column(mode, found.argv[-1])
    return Column(mode, found.candidate.path if len(found.argv) > 1 else found.argv[-1])


#: The study's own interpreters' labels (launch starts them by their table row).
STUDY = frozenset(i.label for i in modes.INTERPRETERS)


def select(patterns: str, labels: List[str]) -> List[str]:
    """The labels matching ``--modes`` (comma-separated labels or globs), in their order;
    ValueError, one line, for a pattern that matches none."""
    wanted = [part.strip() for part in patterns.split(",") if part.strip()]
    for pattern in wanted:
        if not any(fnmatch.fnmatchcase(label, pattern) for label in labels):
            raise ValueError(
                f"--modes: no mode found matches {pattern!r}; found: "
                f"{', '.join(labels) or 'none'} ({command_name()} styles "
                "--list-modes says where it looked)"
            )
    return [x for x in labels if any(fnmatch.fnmatchcase(x, p) for p in wanted)]


def given_columns(options: Options) -> List[Column]:
    """The columns of ``--python LABEL=PATH`` (repeat); ValueError, one line, for a bad one."""
    columns: List[Column] = []
    for value in options.python:
        label, sep, path = value.partition("=")
        if not sep or not label or not path:
            raise ValueError(f"--python wants LABEL=PATH, got {value!r}")
        made, found = discover.given(label, path)
        columns += [_column(m, found) for m in made]
    labels = [c.label for c in columns]
    if len(set(labels)) < len(labels):
        raise ValueError(f"--python: a label given twice ({', '.join(labels)})")
    if options.modes:
        keep = set(select(options.modes, labels))
        columns = [c for c in columns if c.label in keep]
    return columns


def columns_of(options: Options) -> Tuple[List[Column], Dict[str, str]]:
    """The modes to measure, bare interpreters (those found, ``bench.catalog.discover``, or
    those ``--python`` names), and, in a clone, the study's modes not found, with why
    (ValueError, one line, for a bad ``--modes`` or ``--python``)."""
    if options.python:
        return given_columns(options), {}
    search = discover.search()
    found = [(m, f) for m, f in search.modes() if runnable(m)]
    labels = select(options.modes, [m.label for m, _ in found]) if options.modes else None
    columns = [_column(m, f) for m, f in found if labels is None or m.label in labels]
    have = {m.label for m, _ in found}
    left: Dict[str, str] = {}
    if command_name() != "python -m bench":  # installed: the study's own modes are not asked for
        return columns, left
    patterns = [p.strip() for p in options.modes.split(",") if p.strip()] or ["*"]
    for row in modes.study_interpreters():
        if row.implementation == "openjdk":
            continue
        for m in (m for m in modes.modes_of(row.label) if runnable(m) and m.label not in have):
            if any(fnmatch.fnmatchcase(m.label, p) for p in patterns):
                left[m.label] = modes.find(row.label)[1] or "found, but not as this mode"
    return columns, left


def list_modes() -> int:
    """``--list-modes``: what the search finds, from where, and what it does not use."""
    start = time.perf_counter()
    search = discover.search()
    print("\n".join(discover.listing(search, time.perf_counter() - start)))
    have = {m.label for m, _ in search.modes()}
    lost = [
        m.label
        for r in modes.study_interpreters()
        if r.implementation != "openjdk"
        for m in modes.modes_of(r.label)
        if runnable(m) and m.label not in have
    ]
    if lost:
        print(f"The study's modes not found here: {', '.join(lost)}")
    return 0


def load(path: Path) -> Optional[StylesFile]:
    """The styles file at ``path``, its convention checked here first (``ConventionError``,
    nothing to measure, if it fails); None where this interpreter cannot import it (the modes
    say which can)."""
    try:
        found = styles.load(path)
    except styles.ConventionError:
        raise
    except (Exception, SystemExit) as exc:  # the file's own errors, a sys.exit() in it
        print(
            f"bench styles: this interpreter cannot import {path} ({styles.raised(exc)}); "
            "the modes will say which can"
        )
        return None
    for size in found.sizes:  # inputs' shape is the convention's: said before measuring
        try:
            styles.arguments(found, size)
        except styles.ConventionError as exc:
            raise styles.ConventionError(f"{path}: {exc}") from None
        except (Exception, SystemExit):
            pass  # its errors are the check's, named per mode
    return found


def prepare(options: Options) -> Tuple[StylesStudy, List[Column], Dict[str, str]]:
    """The study of the file ``options.file``, the columns to measure it under (its compiled
    twins' modes too, ``--compile``) and the study's modes left out, with why (SystemExit, one
    line, for a bad ``--modes`` or ``--python``, or a ``-jit`` mode whose JIT is off)."""
    assert options.file is not None, "a styles run names its file"
    path = options.file.resolve()
    study = StylesStudy.of_file(path, load(path))
    writable(options.results)
    try:
        columns, left = columns_of(options)
    except ValueError as exc:
        raise SystemExit(f"{command_name()} styles: {exc}") from None
    twins: Dict[str, str] = {}
    not_built: Dict[str, str] = {}
    if options.compile:
        columns, twins, not_built = compile_twins(columns, options.compile, path)
    if not columns:
        raise SystemExit(
            "no interpreter found to run the file: "
            + "; ".join(f"{label}: {why}" for label, why in left.items())
        )
    # Inside a Debian tree the file's folder is there at the same path.
    given = os.environ.get(modes.BINDS_ENV)
    os.environ[modes.BINDS_ENV] = os.pathsep.join(
        [str(path.parent), *([str(twins_folder())] if twins else []), *([given] if given else [])]
    )
    jit_off = [c for c in columns if not jit_is_on(c, options.results)]
    if jit_off:
        raise SystemExit(
            f"{command_name()} styles: the JIT was off in the worker of "
            f"{', '.join(c.label for c in jit_off)} (sys._jit.is_enabled() false with "
            f"{', '.join(sorted({c.mode.how for c in jit_off}))}): a -jit mode is measured "
            "with its JIT on or not at all"
        )
    if options.compile:
        study = replace(study, twins=twins, not_built=not_built)
    if options.no_count:
        study = replace(study, counters=())
    return study, columns, left


def writable(results: Path) -> None:
    """The results folder, made where it is missing (SystemExit, one line, where it cannot
    be: a file in its place or on its path, no right to write there)."""
    try:
        (results / "styles").mkdir(parents=True, exist_ok=True)
        probe = results / "styles" / f".writable-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        at = f": {exc.filename}" if exc.filename else ""
        raise SystemExit(
            f"{command_name()} styles: --results {results}: no results folder can be made "
            f"there ({why}{at}); give a folder you can write to"
        ) from None


def jit_is_on(column: Column, results: Path) -> bool:
    """Whether a CPython mode that says it runs a JIT (``Mode.jit``: ``3.14-jit``) has it on
    in its own worker, as the worker records it (``sys._jit.is_enabled()``); True for every
    other mode (PyPy's JIT is on unless ``--jit off`` says otherwise)."""
    if not column.mode.jit or not column.mode.env:
        return True
    info = launch.call(column, "core.machine.interpreter_info", results)
    return bool(info.get("jit_enabled", True))


def compile_twins(
    columns: List[Column], compile: str, path: Path
) -> Tuple[List[Column], Dict[str, str], Dict[str, str]]:
    """``twins.add``, the compilers named in ``compile`` (SystemExit for an unknown one)."""
    from . import envs, twins

    try:
        compilers = twins.chosen(compile)
    except ValueError as exc:
        raise SystemExit(f"{command_name()} styles: --compile: {exc}") from None
    # the twins of an interpreter of the table's label are built by the one measured
    measured = {
        c.mode.interpreter: [*modes.launcher(modes.interpreter(c.mode.interpreter)), c.program]
        for c in columns
        if c.mode.interpreter in STUDY
    }
    with modes.finding(measured):
        return twins.add(columns, compilers, path, envs.log_stderr)


def twins_folder() -> Path:
    from . import twins

    return twins.folder()
