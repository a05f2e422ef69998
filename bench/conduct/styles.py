"""Measuring a styles file (``python -m bench styles FILE``): the study's modes as bare
interpreters, and the conductor over the file's cases.

bench/ runs on the standard library, and a styles file needs nothing of this project: each
interpreter of the study (``bench.catalog.modes``; ``modes.find`` says where it is, a Debian
tree's through its entry script) runs the worker as it is, no environment made. Every mode of
it that measures every row (not the native variant's portable-kernel modes, not a JDK) is a
column; ``--python LABEL=PATH`` names interpreters instead. The file's folder is bound inside
the Debian trees (``modes.BINDS_ENV``), so a file anywhere on disk runs there too. The
conductor (``bench.conduct.conductor``) then measures as it measures the study: fresh
processes per pass, warm-up, interleaved rounds, its stopping rule on the file's ratios.
``--compile mypyc,cython`` adds the file's compiled twins as modes (``bench.conduct.twins``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bench.catalog import modes
from bench.catalog.columns import Column
from bench.catalog.styles import StylesFile
from bench.conduct import conductor, launch
from bench.conduct.effort import EFFORTS
from bench.store import RESULTS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench styles",
        description="A user's own implementations of one function (a styles file), measured "
        "under every interpreter mode found: each style ÷ the first, with rerun intervals",
    )
    p.add_argument("file", type=Path, help="the styles file (SIZES, inputs, STYLES)")
    p.add_argument("--modes", default="", help="modes (labels or globs); default: all found")
    p.add_argument(
        "--python", action="append", default=[], metavar="LABEL=PATH",
        help="an interpreter to run (repeat), instead of the study's interpreters found",
    )  # fmt: skip
    p.set_defaults(pythons=None)
    p.add_argument("--effort", choices=sorted(EFFORTS), default="default")
    p.add_argument("--budget", type=float, help="seconds of measuring in all (the ceiling)")
    p.add_argument(
        "--promise", type=float,
        help="the median half-width of the file's ratios at which measuring stops",
    )  # fmt: skip
    p.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    p.add_argument("--no-plots", action="store_true", help="no picture")
    p.add_argument(
        "--compile", default="", metavar="mypyc,cython",
        help="also measure the file compiled by these, each a mode of each CPython's "
        "(bench.conduct.twins)",
    )  # fmt: skip
    p.add_argument(
        "--no-count", action="store_true",
        help="no bytecode and call counts (each interpreter traces one call of each case)",
    )  # fmt: skip
    return p


def runnable(mode: modes.Mode) -> bool:
    """Whether ``mode`` runs every row (not a mode of the native variant's portable kernels)."""
    return mode.variants is None


def columns_of(args: argparse.Namespace) -> Tuple[List[Column], Dict[str, str]]:
    """The modes to measure, bare interpreters, and those of the study left out, with why."""
    chosen = modes.select(args.modes) if args.modes else modes.MODES
    if args.python:
        programs = {k: v["program"] for k, v in launch.programs_of(args).items()}
        known = {i.label for i in modes.INTERPRETERS}
        plain = [modes.Mode(x, x, {}, (), None, "") for x in programs if x not in known]
        picked = [m for m in chosen if m.interpreter in programs and runnable(m)]
        if not args.modes:
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


def record_of(path: Path, found: Optional[StylesFile]) -> Dict[str, Any]:
    """What a run's header records of the file (``found``: None where this process could not
    import it, the workers' interpreters may)."""
    path = path.resolve()
    title = found.title if found else path.stem
    return {"file": str(path), "title": title, "stem": path.stem,
            "styles": list(found.names) if found else [],
            "sizes": list(found.sizes) if found else []}  # fmt: skip


def measure(args: argparse.Namespace, found: Optional[StylesFile] = None) -> Path:
    """Measure the file ``args.file`` under its modes; the run's folder (``bench.store``)."""
    path = Path(args.file).resolve()
    columns, left = columns_of(args)
    twins: Dict[str, str] = {}
    not_built: Dict[str, str] = {}
    if args.compile and not args.python:
        columns, twins, not_built = compile_twins(columns, args.compile, path)
    elif args.compile:
        not_built = {"--python": "no twins of interpreters it names (not the study's own)"}
    if not columns:
        raise SystemExit("no interpreter found to run the file: " + "; ".join(
            f"{label}: {why}" for label, why in left.items()))  # fmt: skip
    # Inside a Debian tree the file's folder is there at the same path.
    given = os.environ.get(modes.BINDS_ENV)
    os.environ[modes.BINDS_ENV] = os.pathsep.join([str(path.parent), *(
        [str(twins_folder())] if twins else []), *([given] if given else [])])  # fmt: skip
    run = argparse.Namespace(
        effort=args.effort, stretches=None, least=None, budget=args.budget,
        promise=args.promise, clock=None, lengths="", results=args.results,
        styles=path, modes=args.modes, python=args.python, pythons=None, settle_modes=True,
        twins=twins,
    )  # fmt: skip
    record = {**record_of(path, found), "left_out": left}
    if args.compile:
        record.update(twins=twins, not_built=not_built)
    return conductor.run(run, columns, record)


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
