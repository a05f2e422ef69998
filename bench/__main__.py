"""The study's one entry point: ``python -m bench <command>`` from the checkout's root.

    python -m bench envs ...                      # make or reuse each runtime's environment
    python -m bench run --pythons results/envs/pythons.json   # the study (every mode found)
    python -m bench quick --python 3.11=.venv/bin/python      # the same, in a few minutes
    python -m bench run --modes '3.14*,pypy8' --variants 'helpers*,native' --lengths 64,16384
    python -m bench report results/bench/RUN      # rewrite a run's report
    python -m bench docs --write                  # the README's and docs/study.md's results
    python -m bench stability RUN_A RUN_B         # do two runs agree? (ratios or instructions)
    python -m bench runs keep|list|drop           # the runs kept in the repository (runs/)
    python -m bench check native --python 3.11=...   # a quick check of a promise, in each mode
    python -m bench bytecode --python 3.14=...    # bytecode and machine instructions per mode
    python -m bench memory --python 3.11=...      # memray: peak memory and allocations
    python -m bench peers --report --write        # digest_column against DuckDB, chdb, ...
    python -m bench styles mine.py --effort quick # your own coding styles, in every mode found
    python -m bench styles compare RUN_A RUN_B    # two runs of one styles file: what moved

The commands that measure share one set of options (the runtimes' environments, the modes,
the variants, the algorithms, the results folder); ``--python LABEL=PATH`` names an
interpreter of ``bench.catalog.modes`` and its environment's python, and every mode of that
interpreter (``--modes`` to choose) becomes a column.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from .catalog.columns import Column
from .catalog.hash_study import ALGORITHMS, HashStudy
from .catalog.study import Study
from .conduct.effort import Settings
from .conduct.options import Options
from .store import RESULTS

#: This package's import name: ``bench`` in a clone, the tool's own where installed.
PACKAGE = (__spec__.name if __spec__ else __name__).split(".")[0]
Action = Callable[[argparse.Namespace], int]
#: The measuring commands: (module, what it is, its options' adder, its action).
MEASURING: Dict[str, Tuple[str, str, str, str]] = {
    "run": (
        "conduct.conductor",
        "the study: every mode found, measured over the budget",
        "add_arguments",
        "",
    ),
    "quick": (
        "conduct.conductor",
        "the study in a few minutes (--effort quick)",
        "add_arguments",
        "",
    ),
    "check": (
        "check",
        "a quick check of one promise (A against B) in each mode",
        "add_arguments",
        "command",
    ),
    "bytecode": (
        "profile.bytecode",
        "bytecode and machine instructions per block, per mode",
        "add_arguments",
        "drive",
    ),
    "memory": (
        "profile.memory",
        "memray: peak memory and allocations of every variant",
        "add_arguments",
        "drive",
    ),
}
#: The commands with parsers of their own: (module, its main, its parser; ``styles``: this
#: module's, the pipeline's).
OWN: Dict[str, Tuple[str, str, str]] = {
    "envs": ("conduct.envs", "main", "parser"),
    "report": ("report.publish", "report_main", "report_parser"),
    "docs": ("report.publish", "docs_main", "docs_parser"),
    "stability": ("report.stability", "main", "parser"),
    "runs": ("store.kept", "main", "parser"),
    "peers": ("product.peers", "main", "parser"),
    "styles": ("conduct.styles", "", "parser"),
}


#: A study's report of a run's folder, given the counters' notes: the command's exit status.
Reporter = Callable[[Path, Options, Sequence[str]], int]


def hash_report(folder: Path, options: Options, notes: Sequence[str]) -> int:
    from .report import publish

    for note in notes:
        print(note)
    return publish.report_main([str(folder)])


def styles_report(folder: Path, options: Options, notes: Sequence[str]) -> int:
    from .report import styles

    return styles.report_main(folder, not options.no_plots, notes, options.format, DATA[0])


#: Where a run's data goes (``--format json|csv``): the command's stdout, while its progress
#: goes to stderr (``styles``).
DATA: List[Optional[TextIO]] = [None]


#: Each study's report, by its name (a study not here: the hash study's pages).
REPORTS: Dict[str, Reporter] = {"bench": hash_report, "styles": styles_report}


def pipeline(
    options: Options,
    study: Study,
    columns: List[Column],
    left_out: Mapping[str, str],
    settings: Optional[Settings] = None,
    report: Optional[Reporter] = None,
) -> int:
    """Every study's one pipeline: measure (the conductor) -> count (the study's counters) ->
    report (``report``, else the study's in ``REPORTS``) -> keep (a whole hash study's run,
    ``keeps``)."""
    from .conduct import conductor
    from .profile import counters

    folder = conductor.run(options, study, columns, left_out, settings)
    notes = counters.count(study, folder, options.results, reuse=not options.recount)
    reporter = report or REPORTS.get(study.name, hash_report)
    done = 0 if options.no_report else reporter(folder, options, notes)
    if keeps(options, study):
        from .store import kept

        print(f"kept the run as data: {kept.keep(folder, {}).relative_to(kept.KEPT.parent)}")
    return done


def measure(args: argparse.Namespace) -> int:
    """``run`` and ``quick``: the hash study over the options' selection."""
    from .conduct import launch
    from .conduct.effort import settings_of

    options = Options.of(args)
    settings = settings_of(options)
    counted = ("instructions",) if settings.count and not options.no_count else ()
    study = HashStudy(
        options.algorithm_names,
        options.variants,
        options.benchmark_names,
        settings.grid,
        options.pypy_lib,
        counted,
    )
    columns = launch.columns_of(options)
    return pipeline(options, study, columns, launch.left_out(options), settings)


def styles(argv: Sequence[str]) -> int:
    """``styles FILE``: the file's convention checked first (nothing measured if it fails),
    then every mode found measured, counted and reported; ``styles --list-modes``: the
    interpreters found, and from where."""
    from .catalog.styles import ConventionError
    from .conduct import styles as conduct

    if list(argv[:1]) == ["compare"]:
        from .report import styles_compare

        return styles_compare.main(argv[1:])
    parsed = conduct.parser().parse_args(list(argv))
    if parsed.list_modes:
        return conduct.list_modes()
    if parsed.file is None:
        conduct.parser().error("the styles file is missing (or --list-modes)")
    options = Options.of(parsed)
    try:
        study, columns, left = conduct.prepare(options)
    except ConventionError as exc:
        print(f"bench styles: {exc}")
        return 2
    if options.format == "md":
        return pipeline(options, study, columns, left)
    DATA[0] = sys.stdout  # the summary or the CSV alone on stdout, the progress on stderr
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return pipeline(options, study, columns, left)
    finally:
        DATA[0] = None


def keeps(options: Options, study: Study) -> bool:
    """Whether a run is kept in the repository (``bench.store.kept``): a default or rigorous
    run of the whole hash study (every mode, variant, algorithm, benchmark and length) into
    the checkout's own results folder."""
    whole = isinstance(study, HashStudy) and study.whole and not (options.modes or options.lengths)
    return options.effort in ("default", "rigorous") and whole and options.results == RESULTS


def common() -> argparse.ArgumentParser:
    """The options every measuring command shares."""
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="an interpreter's environment (repeat); default: this python",
    )
    shared.add_argument("--pythons", type=Path, help="JSON {label: program} (bench envs writes it)")
    shared.add_argument("--modes", default="", help="modes (labels or globs); default: all found")
    shared.add_argument("--variants", default="", help="names or globs (default: all)")
    shared.add_argument("--algorithms", default=",".join(ALGORITHMS))
    shared.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    return shared


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bench",
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{', '.join(OWN)} take their own options: python -m bench report --help",
    )
    commands = top.add_subparsers(dest="command", required=True)
    shared = common()
    for name, (module, doc, adder, action) in MEASURING.items():
        found = import_module(f"{PACKAGE}.{module}")
        sub = commands.add_parser(name, parents=[shared], help=doc, description=doc)
        getattr(found, adder)(sub)
        sub.set_defaults(action=getattr(found, action) if action else measure)
        if name == "quick":
            sub.set_defaults(effort="quick")
    for name, (module, _, _) in OWN.items():
        commands.add_parser(name, help=f"bench.{module} (its own options)", add_help=False)
    return top


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed as ``python -m bench`` would, nothing run (SystemExit if it is wrong):
    the test that docs name only commands and options that exist."""
    if list(argv[:2]) == ["styles", "compare"]:
        from .report import styles_compare

        return styles_compare.parser().parse_args(argv[2:])
    if argv and argv[0] in OWN:
        module, _, making = OWN[argv[0]]
        own: argparse.ArgumentParser = getattr(import_module(f"{PACKAGE}.{module}"), making)()
        return own.parse_known_args(argv[1:])[0] if argv[0] == "envs" else own.parse_args(argv[1:])
    return parser().parse_args(argv)


def main(argv: Sequence[str]) -> int:
    if argv and argv[0] == "styles":
        return styles(argv[1:])
    if argv and argv[0] in OWN:
        module, function, _ = OWN[argv[0]]
        owner: Callable[[List[str]], int] = getattr(import_module(f"{PACKAGE}.{module}"), function)
        return owner(list(argv[1:]))
    args = parser().parse_args(argv)
    result: int = args.action(args)
    return result


#: What the installed styles tool (``stylebench``: tools/stylebench.py) offers of the commands.
TOOL = ("styles", "stability")


def entry() -> None:
    """The installed tool's command (its console script): ``NAME styles FILE``; in a clone
    (``bench``) every command."""
    argv = sys.argv[1:]
    if PACKAGE != "bench" and (not argv or argv[0] not in TOOL):
        print(
            f"usage: {PACKAGE} styles FILE [options]   # your styles, in every mode found\n"
            f"       {PACKAGE} styles --list-modes     # the interpreters found, and where\n"
            f"       {PACKAGE} stability RUN_A RUN_B   # do two runs agree?\n"
            f"{PACKAGE} styles --help says more."
        )
        sys.exit(0 if argv in ([], ["-h"], ["--help"]) else 2)
    sys.exit(piped(argv))


def piped(argv: Sequence[str]) -> int:
    """``main``, its output read by a program that may stop reading (``--list-modes | head``):
    then the rest goes nowhere and the exit is 1, without a traceback (the recipe of Python's
    documentation of SIGPIPE)."""
    try:
        status = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(piped(sys.argv[1:]))
