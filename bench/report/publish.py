"""Writing the study's pages: a run's report files, and the generated sections of README.md and
docs/study.md.

    python -m bench report [RUN] [--bytecode RUN] [--no-plots]   # report.md, summary.json, figures
    python -m bench docs [--write]    # the README's and docs/study.md's results sections

``docs`` takes every kept run of the code this checkout measures (``runs/``, ``bench.store.
kept``), a report a machine and its rerun (``bench.report.machines``), the newest ``nox -s
memory`` run and the newest ``nox -s bytecode`` run's own page; each generated section sits
between its markers (``splice``: the one marker splicer, which ``bench.product.peers`` uses
too).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .. import store
from ..core.machine import measured
from ..store import RESULTS, ROOT, kept, newest
from . import answers, machines, pages, readme
from .answers import Report
from .pages import HEADLINE

DOCS = ROOT / "docs"
README = ROOT / "README.md"
STUDY = DOCS / "study.md"
#: The ``nox -s bytecode`` run's page (docs/study.md links to it: its 1,000 lines are the study's).
INSTRUCTIONS = DOCS / "instructions.md"
COLUMNS = DOCS / "columns.md"
FIGURES = DOCS / "bench"


def splice(text: str, section: str, start: str, end: str, append: bool = True) -> str:
    """``text`` with what lies between ``start`` and ``end`` replaced by ``section`` (which
    carries the markers), or ``section`` appended where the markers are missing and ``append``
    (else SystemExit)."""
    if start in text and end in text:
        head, rest = text.split(start, 1)
        return head + section + rest.split(end, 1)[1]
    if not append:
        raise SystemExit(f"no {start} ... {end} markers")
    return text.rstrip("\n") + "\n\n" + section + "\n"


def load_report(folder: Path, bytecode: Optional[Path] = None) -> Report:
    """The report of the run in ``folder`` (with the counts of a bytecode run, if given)."""
    return answers.build(store.load(folder, bytecode))


def report_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench report",
        description="A run's report: report.md, summary.json, figures",
    )
    parser.add_argument("folder", nargs="?", type=Path, help="a run (default: the newest)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument(
        "--bytecode", type=Path, help="a bytecode run's counts instead of the run's"
    )
    return parser


def report_main(argv: Sequence[str]) -> int:
    """``python -m bench report``: a run's report.md, summary.json and figures (a styles
    file's run: ``bench.report.styles``')."""
    args = report_parser().parse_args(argv)
    folder: Optional[Path] = args.folder or newest("bench", "values.json")
    if folder is None:
        raise SystemExit(f"no run under {RESULTS / 'bench'}")
    if (folder / "study.json").exists() and store.load(folder).header.study_name == "styles":
        from . import styles  # a styles file's run: its own page

        return styles.report_main(folder, not args.no_plots)
    if (folder / kept.FILE).exists():  # a kept run: its page written beside this clone's runs
        r = answers.build(kept.read(folder))
        folder = RESULTS / "bench" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    else:
        r = load_report(folder, args.bytecode)
    store.write_record(folder / "summary.json", answers.summary(r))
    figures: List[str] = []
    if not args.no_plots:
        try:
            from . import plots
        except ImportError as exc:  # matplotlib missing: the report without figures
            print(f"(no figures: {exc})")
        else:
            figures = [p.name for p in plots.draw_all(r, folder)]
    text = "\n".join(["# Interpreter-overhead study: results", "", *pages.page(r, figures)])
    (folder / "report.md").write_text(text + "\n")
    print(text)
    print(f"\nreport: {folder / 'report.md'}; figures: {', '.join(figures) or 'none'}")
    return 0


def docs_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench docs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--write", action="store_true", help="update README.md, docs/study.md")
    parser.add_argument("--kept", type=Path, default=kept.KEPT, help="the kept runs' folder")
    return parser


def peers_data() -> Optional[Dict[str, Any]]:
    """The newest ``nox -s peers`` run's record, if any."""
    found = newest("peers", "peers.json")
    return store.read_record(found / "peers.json") if found else None


def write_sections(path: Path, sections: Sequence[Optional[str]]) -> None:
    """Each generated section (markers included) spliced into ``path`` between its markers;
    a None section (its run missing here) leaves the page's own text as it is."""
    text = path.read_text() if path.exists() else ""
    for section in sections:
        if section is not None:
            name = section.split(":start -->", 1)[0].removeprefix("<!-- ")
            start, end = pages.markers(name)
            text = splice(text, section, start, end)
    path.write_text(text)


def peers_sections(data: Optional[Dict[str, Any]]) -> List[Optional[str]]:
    """The README's sections from a ``nox -s peers`` run (None where there is none)."""
    return [readme.columns_glance(data), readme.columns_table(data)]


def gather(folder: Path = kept.KEPT) -> machines.Across:
    """The kept runs of the code this checkout measures, a report a machine."""
    return machines.gather(kept.every(folder), measured(ROOT))


def pictures(across: machines.Across, write: bool) -> List[str]:
    """The pages' figures from the kept runs, drawn into docs/bench/ where ``write`` (those of
    modes since left out removed): their names (matplotlib missing: none)."""
    try:
        from . import plots
    except ImportError as exc:
        print(f"(no figures: {exc})")
        return []
    if not write:
        return plots.page_names(across)
    FIGURES.mkdir(parents=True, exist_ok=True)
    names = [p.name for p in plots.draw_pages(across, FIGURES)]
    for old in FIGURES.glob("*.png"):
        if old.name not in names:
            old.unlink()
    return names


def docs_main(argv: Sequence[str]) -> int:
    """``python -m bench docs``: the README's and docs/study.md's generated sections, from
    every kept run of this code (``bench.report.machines``)."""
    args = docs_parser().parse_args(argv)
    across = gather(args.kept)
    newest_report = max(across.reports, key=lambda r: r.run.header.started, default=None)
    memory_folder = newest("memory", "memory.json")
    memory = store.read_record(memory_folder / "memory.json") if memory_folder else None
    drawn = pictures(across, args.write) if across.reports else []
    counted = newest("bytecode", "bytecode.md")
    bytecode = (counted.name, (counted / "bytecode.md").read_text()) if counted else None
    figures = [f"bench/{name}" for name in drawn]
    study = [
        pages.study_section(newest_report, figures, machines.study_lines(across))
        if newest_report is not None
        else None,
        pages.memory_section(memory) if memory else None,
    ]
    instructions = [pages.bytecode_section(*bytecode) if bytecode else None]
    readme_sections = [
        readme.glance_section(across),
        readme.answer_section(across, f"docs/bench/{HEADLINE}"),
        readme.readme_section(across),
    ]
    sections = [
        *(readme_sections if across.reports else []),  # none kept: the README keeps its own
        readme.styles_code_section(ROOT),
        readme.memory_sentence(memory) if memory else None,
        *peers_sections(peers_data()),
    ]
    for line in across.left_out:
        print(f"left out: {line}")
    if args.write:
        write_sections(README, sections)
        write_sections(STUDY, study)
        write_sections(INSTRUCTIONS, instructions)
        print(
            f"{README.relative_to(ROOT)}, {STUDY.relative_to(ROOT)}: results from "
            f"{sum(len(n) for n in across.runs)} kept runs on {len(across.reports)} "
            "machines"
        )
    else:
        print(*(s for s in [*sections, *study, *instructions] if s), sep="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(docs_main(sys.argv[1:]))
