"""Writing the study's pages: a run's report files, and the generated sections of README.md and
docs/study.md.

    python -m bench report [RUN] [--bytecode RUN] [--no-plots]   # report.md, summary.json, figures
    python -m bench docs [--write]    # the README's and docs/study.md's results sections

``docs`` takes a ``nox -s bench`` run (the newest) and a second run of the same tree to say
how far to trust it, the newest ``nox -s memory`` run and the newest ``nox -s bytecode``
run's own page; each generated section sits between its
markers (``splice``: the one marker splicer, which ``bench.product.peers`` uses too).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from bench import stability, store
from bench.report import answers, pages
from bench.report.answers import Report
from bench.report.pages import HEADLINE
from bench.store import RESULTS, ROOT, newest

DOCS = ROOT / "docs"
README = ROOT / "README.md"
STUDY = DOCS / "study.md"
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
    """``python -m bench report``: a run's report.md, summary.json and figures."""
    args = report_parser().parse_args(argv)
    folder: Optional[Path] = args.folder or newest("bench", "values.json")
    if folder is None:
        raise SystemExit(f"no run under {RESULTS / 'bench'}")
    r = load_report(folder, args.bytecode)
    store.write_record(folder / "summary.json", answers.summary(r))
    figures: List[str] = []
    if not args.no_plots:
        try:
            from bench.report import plots
        except ImportError as exc:  # matplotlib missing: the report without figures
            print(f"(no figures: {exc})")
        else:
            figures = [p.name for p in plots.draw_all(r, folder)]
    text = "\n".join(["# Interpreter-overhead study: results", "", *pages.page(r, figures)])
    (folder / "report.md").write_text(text + "\n")
    print(text)
    print(f"\nreport: {folder / 'report.md'}; figures: {', '.join(figures) or 'none'}")
    return 0


def rerun_of(folder: Path) -> Optional[Path]:
    """The run before ``folder`` of the same tree and effort, if any: its rerun."""
    mine = store.load(folder).header
    earlier = sorted(p.parent for p in folder.parent.glob("2*/study.json") if p.parent < folder)
    for other in reversed(earlier):
        theirs = store.load(other).header
        if (theirs.tree, theirs.effort) == (mine.tree, mine.effort) and mine.tree:
            return other
    return None


def docs_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench docs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--write", action="store_true", help="update README.md, docs/study.md")
    parser.add_argument("--run", type=Path, help="the run shown (default: the newest)")
    parser.add_argument(
        "--rerun",
        type=Path,
        help="a second run of the same tree, for the "
        "trust line (default: the run before it of the same tree and effort)",
    )
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
    return [pages.columns_glance(data), pages.columns_table(data)]


def docs_main(argv: Sequence[str]) -> int:
    """``python -m bench docs``: the README's and docs/study.md's generated sections."""
    args = docs_parser().parse_args(argv)
    folder = args.run or newest("bench", "values.json")
    r = load_report(folder) if folder else None
    again = args.rerun or (rerun_of(folder) if folder else None)
    if r is not None and again is not None:
        r = replace(r, rerun=stability.rerun(r, load_report(again)))
    memory_folder = newest("memory", "memory.json")
    memory = store.read_record(memory_folder / "memory.json") if memory_folder else None
    pictures = [folder / HEADLINE, folder / "speedup.png"] if folder else []
    if folder is not None and r is not None:
        cpythons = [c.label for c in r.run.columns if c.implementation == "CPython"
                    and r.run.layout.folded(c.label) is None]  # fmt: skip
        pictures += [folder / f"throughput-{c}.png" for c in cpythons[-1:]]
    pictures = [p for p in pictures if p.exists()]
    if args.write and pictures:
        FIGURES.mkdir(parents=True, exist_ok=True)
        for old in FIGURES.glob("*.png"):  # a figure of a mode since left out
            if old.name not in {p.name for p in pictures}:
                old.unlink()
        for picture in pictures:
            shutil.copyfile(picture, FIGURES / picture.name)
    counted = newest("bytecode", "bytecode.md")
    bytecode = (counted.name, (counted / "bytecode.md").read_text()) if counted else None
    figures = [f"bench/{p.name}" for p in pictures]
    study = [
        pages.study_section(r, figures) if r is not None else None,
        pages.memory_section(memory) if memory else None,
        pages.bytecode_section(*bytecode) if bytecode else None,
    ]
    bench_sections = [
        pages.glance_section(r),
        pages.answer_section(r, f"docs/bench/{HEADLINE}"),
        pages.readme_section(r),
    ]
    readme = [
        *(bench_sections if r is not None else []),  # no run here: the README keeps its own
        pages.styles_code_section(ROOT),
        pages.memory_sentence(memory) if memory else None,
        *peers_sections(peers_data()),
    ]
    if args.write:
        write_sections(README, readme)
        write_sections(STUDY, study)
        print(f"{README.relative_to(ROOT)}, {STUDY.relative_to(ROOT)}: results from {folder}")
    else:
        print(*(s for s in [*readme, *study] if s), sep="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(docs_main(sys.argv[1:]))
