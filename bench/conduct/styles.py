"""Measuring a styles file (``python -m bench styles FILE``): its convention checked, the
study's modes as bare interpreters, its study (``bench.catalog.styles_study``) for the
conductor.

    python -m bench styles examples/styles/lookups.py --effort quick
    python -m bench styles ~/mine.py --modes '3.1[24]*,pypy*' --results /tmp/results

The file follows the convention of ``bench.catalog.styles`` (``SIZES``, ``inputs(size)``,
``STYLES``, the first the baseline, optional ``TITLE``); a file that does not gets one error
naming what is missing or wrong, and nothing is measured (``load``).

bench/ runs on the standard library, and a styles file needs nothing of this project: each
interpreter of the study (``bench.catalog.modes``; ``modes.find`` says where it is, a Debian
tree's through its entry script) runs the worker as it is, no environment made. Every mode of
it that measures every row (not the native variant's portable-kernel modes, not a JDK) is a
column; ``--python LABEL=PATH`` names interpreters instead. The file's folder is bound inside
the Debian trees (``modes.BINDS_ENV``), so a file anywhere on disk runs there too. The
conductor (``bench.conduct.conductor``) then measures as it measures the study: fresh
processes per pass, warm-up, interleaved rounds, its stopping rule on the file's ratios.
``--compile mypyc,cython`` adds the file's compiled twins as modes (``bench.conduct.twins``).
``bench.__main__`` runs the rest of the pipeline: the counts, ``bench.report.styles``'s
report, as for every study.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from bench.catalog import modes, styles
from bench.catalog.columns import Column
from bench.catalog.styles import StylesFile
from bench.catalog.styles_study import StylesStudy
from bench.conduct import launch
from bench.conduct.effort import EFFORTS
from bench.conduct.options import Options
from bench.store import RESULTS

#: What a styles run prints at its end (``--format``): its report, its summary, its ratios.
FORMATS = ("md", "json", "csv")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench styles",
        description="A user's own implementations of one function (a styles file), measured "
        "under every interpreter mode found: each style ÷ the first, with rerun intervals",
    )
    p.add_argument("file", type=Path, help="the styles file (SIZES, inputs, STYLES)")
    p.add_argument("--modes", default="", help="modes (labels or globs); default: all found")
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="an interpreter to run (repeat), instead of the study's interpreters found",
    )
    p.add_argument("--effort", choices=sorted(EFFORTS), default="default")
    p.add_argument("--budget", type=float, help="seconds of measuring in all (the ceiling)")
    p.add_argument(
        "--promise",
        type=float,
        help="the median half-width of the file's ratios at which measuring stops",
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
    p.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
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


def runnable(mode: modes.Mode) -> bool:
    """Whether ``mode`` runs every row (not a mode of the native variant's portable kernels)."""
    return mode.variants is None


def columns_of(options: Options) -> Tuple[List[Column], Dict[str, str]]:
    """The modes to measure, bare interpreters, and those of the study left out, with why."""
    chosen = modes.select(options.modes) if options.modes else modes.MODES
    if options.python:
        programs = {k: v["program"] for k, v in launch.programs_of(options).items()}
        known = {i.label for i in modes.INTERPRETERS}
        plain = [modes.Mode(x, x, {}, (), None, "") for x in programs if x not in known]
        picked = [m for m in chosen if m.interpreter in programs and runnable(m)]
        if not options.modes:
            picked = [m for m in modes.MODES if m.interpreter in programs and runnable(m)]
        return [Column(m, programs[m.interpreter]) for m in (*picked, *plain)], {}
    columns: List[Column] = []
    left: Dict[str, str] = {}
    for row in modes.study_interpreters():
        if row.implementation == "openjdk":
            continue
        wanted = [m for m in chosen if m.interpreter == row.label and runnable(m)]
        if not wanted:
            continue
        argv, why = modes.find(row.label)
        for m in wanted:
            if argv:
                columns.append(Column(m, argv[-1]))  # launch adds a tree's entry script
            else:
                left[m.label] = why
    return columns, left


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
    twins' modes too, ``--compile``) and the study's modes left out, with why."""
    assert options.file is not None, "a styles run names its file"
    path = options.file.resolve()
    study = StylesStudy.of_file(path, load(path))
    columns, left = columns_of(options)
    twins: Dict[str, str] = {}
    not_built: Dict[str, str] = {}
    if options.compile and not options.python:
        columns, twins, not_built = compile_twins(columns, options.compile, path)
    elif options.compile:
        not_built = {"--python": "no twins of interpreters it names (not the study's own)"}
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
    if options.compile:
        study = replace(study, twins=twins, not_built=not_built)
    if options.no_count:
        study = replace(study, counters=())
    return study, columns, left


def compile_twins(
    columns: List[Column], compile: str, path: Path
) -> Tuple[List[Column], Dict[str, str], Dict[str, str]]:
    """``twins.add``, the compilers named in ``compile`` (SystemExit for an unknown one)."""
    from bench.conduct import envs, twins

    try:
        compilers = twins.chosen(compile)
    except ValueError as exc:
        raise SystemExit(f"python -m bench styles: --compile: {exc}") from None
    return twins.add(columns, compilers, path, envs.log_stderr)


def twins_folder() -> Path:
    from bench.conduct import twins

    return twins.folder()
