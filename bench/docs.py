"""The study's pages: a run's ``report.md``, the README's results and ``docs/study.md``'s tables.

    python -m bench.docs            # print both generated sections
    python -m bench.docs --write    # replace them in README.md and docs/study.md; copy figures

The report (``bench.answers``) of the newest ``nox -s bench`` run, with the
newest ``nox -s memory`` run's ``memory.json`` and ``nox -s bytecode`` run's
``bytecode.json``; nothing else. Each generated section sits between
``<!-- results:start -->`` and ``<!-- results:end -->``. ``nox -s bench`` runs
this after the study; ``python -m bench.report`` writes one run's page.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench import answers, report, results
from bench.answers import Report
from bench.fmt import DASH, human_bytes, minutes, ratio, size_label, table
from bench.layout import DOCS, README, RESULTS, ROOT, STUDY, newest
from bench.memory import markdown as memory_table
from bench.table import NOT_SETTLED, RatioTable

START, END = "<!-- results:start -->", "<!-- results:end -->"
FIGURES = DOCS / "bench"


def run_line(run: results.Run) -> str:
    clock = "process CPU time" if run.clock == "cpu" else "wall-clock time"
    return (
        f"Run {run.name} (mode `{run.study_mode}`: {run.passes} passes, "
        f"{minutes(run.measure_seconds)} of measuring, {minutes(run.wall_seconds)} in all) on "
        f"{run.cpu}, started {run.started}; times are {clock}."
    )


def modes_lines(run: results.Run) -> List[str]:
    """What each mode is, what it did not measure, what was left out."""
    said = []
    for m in run.modes:
        home = run.folded(m)
        parts = [m.how, f"the JDK's {m.jdk}" if m.jdk else "", f"rows under {home}" if home else ""]
        ft = (" (GIL enabled)" if m.gil_enabled else " (GIL disabled)") if m.free_threaded else ""
        said.append(f"{m.label} = {m.title}{ft}" + "".join(f", {p}" for p in parts if p))
    lines = ["Modes (the columns): " + "; ".join(said) + "."]
    missing = [
        f"{v.name} under {m.label} ({v.unavailable})"
        for m in run.modes
        for v in m.variants
        if v.unavailable
    ]
    missing += [
        f"digest_many under {m.label} ({m.batch_unavailable})"
        for m in run.modes
        if m.batch_unavailable
    ]
    if missing:
        lines.append("Not measured: " + "; ".join(missing) + ".")
    details: Dict[Tuple[str, str], List[str]] = {}
    for m in run.modes:
        for v in m.variants:
            if v.details and not v.unavailable:
                details.setdefault((v.name, v.details), []).append(m.label)
    if details:
        said = [f"{name}: {what} ({', '.join(where)})" for (name, what), where in details.items()]
        lines.append("Notes: " + "; ".join(said) + ".")
    if run.skipped:
        names = sorted({n.split("/")[2] for n in run.skipped})
        lines.append(
            f"Left out in mode `{run.study_mode}`: {len(run.skipped)} case(s) whose one "
            f"operation would take over {run.slow_limit} s ({', '.join(names)} at the longest "
            "length); "
            "`--mode rigorous` measures them."
        )
    return [line for x in lines for line in (x, "")]


def trust_lines(r: Report) -> List[str]:
    t = r.trust
    steal = f"{t.steal:.1%}" if t.steal is not None else "not recorded"
    rows = [["table", "ratios", "settled", "median half-width"]]
    rows += [[title, str(n), f"{s:.0%}", f"±{h:.1%}"] for title, n, s, h in t.by_table]
    return [
        f"**How far to trust it**: {t.settled:.0%} of the {sum(n for _, n, _, _ in t.by_table)} "
        f"ratios settled (target {answers.SETTLED_TARGET:.0%}), median 95% interval "
        f"±{t.half_width:.1%} (target ±{answers.HALF_WIDTH_TARGET:.0%}); steal time during the "
        f"run: {steal}. {NOT_SETTLED} marks a ratio that did not settle; at 16 KiB it carries "
        "callgrind's ratio of machine instructions beside it, [n instr.], where one was counted.",
        "",
        table(rows, "lrrr"),
        "",
    ]


def per_mode(
    run: results.Run,
    subjects: Sequence[Tuple[report.Subject, str]],
    bench: str,
    length: int,
    shown: Callable[[results.Measured], str],
    header: str = "variant",
) -> str:
    """``shown(case)`` of each (subject, algorithm) at ``length`` bytes, modes as columns."""
    rows = [[header, "algorithm", *run.columns]]
    for s, alg in subjects:
        found = [report.pick(run, s, c, bench, alg, length) for c in run.columns]
        if any(found):
            rows.append([s.label, alg, *(shown(m) if m else DASH for m in found)])
    return table(rows, "ll" + "r" * len(run.columns))


def build_table(builds: Dict[str, Any]) -> str:
    labels = list(builds)
    ext = {x: builds[x].get("extensions", {}) for x in labels}
    rows = [["", *labels]]
    rows.append(
        ["generating the C (mypyc, Cython)", *(ratio(builds[x].get("generate")) for x in labels)]
    )
    rows.append(["slowest extension", *(ratio(max(ext[x].values(), default=None)) for x in labels)])
    sums = [builds[x].get("generate", 0) + sum(ext[x].values()) for x in labels]
    rows.append(["every extension, summed", *(ratio(s) for s in sums)])
    return table(rows, "l" + "r" * len(labels))


def variants_lines(run: results.Run) -> List[str]:
    described: Dict[str, Tuple[str, str]] = {}
    for m in run.modes:
        for v in m.variants:
            described.setdefault(v.name, (v.kind, v.description))
    rows = [["variant", "kind", "what it is"]]
    rows += [[f"`{name}`", kind, what] for name, (kind, what) in described.items()]
    return ["**The rows**, as the registry describes them:", "", table(rows, "lll"), ""]


def section(t: RatioTable) -> List[str]:
    return [f"### {t.title}", "", f"{t.meaning}.", "", t.markdown(), ""]


def ns(m: results.Measured) -> str:
    return f"{m.time * 1e9:.0f}"


def page(r: Report, figures: Sequence[str] = ()) -> List[str]:
    """A run's whole page: its answers first, then every table, figures, builds."""
    run = r.run
    out = [r.trust.warning(), ""] if r.trust.noisy else []
    out += [run_line(run), "", *modes_lines(run), *trust_lines(r), "## The study's answers", ""]
    seeds, jit = r.table("seeds"), r.table("twins-jit")
    out += [*section(seeds), *r.style, ""] if seeds else []
    out += [*r.jit, ""] if r.jit else []
    out += section(jit) if jit else []
    long = run.length(report.LONG)
    out += [f"**Throughput, MB/s**, {size_label(long)} messages (digest):", ""]
    rows = [(s, a) for a in run.algorithms() for s in report.subjects(run, fastest=False)]
    out += [per_mode(run, rows, "digest", long, lambda m: ratio(m.mb_per_s)), ""]
    for t in r.tables:
        out += section(t) if t.key not in ("seeds", "twins-jit") else []
        if t.key == "bridges":
            n = min(run.lengths("getAndDigest"), default=64)
            rows = [(s, a) for s in report.bridges(run) for a in run.algorithms()]
            calls = per_mode(run, rows, "getAndDigest", n, ns, "bridge")
            out += ["Time per call (ns):", "", calls, ""]
    out += [f"![{Path(f).stem}]({f})" for f in figures] + ([""] if figures else [])
    if run.builds:
        out += ["**Build times** (seconds, as each environment's build recorded them):", ""]
        out += [build_table(dict(run.builds)), ""]
    return out + variants_lines(run)


def readme_section(r: Optional[Report]) -> str:
    """The README's short headline results."""
    lines = [START, "## Results", ""]
    if r is None:
        return "\n".join([*lines, "No run of `nox -s bench` yet.", END])
    run = r.run
    lines += [r.trust.warning(), ""] if r.trust.noisy else []
    lines += [
        f"Generated by `nox -s bench`: {run_line(run)} The write-up and every table are in "
        "[docs/study.md](docs/study.md).",
        "",
    ]
    seeds = r.table("seeds")
    if seeds:
        lines += [f"**{seeds.title}** ({seeds.meaning}):", "", seeds.markdown(), "", *r.style, ""]
    lines += [*r.jit, ""] if r.jit else []
    hashlib = r.table(f"hashlib-{run.length(report.LONG)}")
    if hashlib:
        keep = ("native", "native (portable kernels)", "cython", report.FASTEST)
        lines += [f"**{hashlib.title}** (how many times its time):", ""]
        lines += [hashlib.markdown(lambda row: row.labels[0] in keep), ""]
    t = r.trust
    lines.append(
        f"Trust: {t.settled:.0%} of the ratios settled, median interval ±{t.half_width:.1%}."
    )
    return "\n".join([*lines, END])


def memory_lines(data: Dict[str, Any]) -> List[str]:
    info = data["info"]
    columns = {"variant": "variant", "algorithm": "algorithm", "stream": "peak, streamed"}
    columns.update({"one-call": "peak, 1 MiB in one call", "objects": "objects per block"})
    version = f"{info['interpreter']['implementation']} {info['interpreter']['version']}"
    return [
        f"**Memory** (`nox -s memory`, {version}, {info['date']}, "
        f"{human_bytes(info['stream_bytes'])} streamed in 64 KiB chunks); the whole table with "
        "its flags is the run's `memory.md`:",
        "",
        memory_table(data, columns),
        "",
    ]


def bytecode_lines(folder: Path) -> List[str]:
    """The ``nox -s bytecode`` run's own page (``bytecode.md``), its title a paragraph's."""
    lines = (folder / "bytecode.md").read_text().strip().splitlines()
    head = lines[0].lstrip("# ") if lines else ""
    return [f"**{head}** (`nox -s bytecode`, run {folder.name}):", *lines[1:], ""]


def study_section(
    r: Optional[Report],
    memory: Optional[Dict[str, Any]],
    bytecode: Optional[Path],
    figures: Sequence[str],
) -> str:
    """docs/study.md's generated results: the whole report, memory, the bytecode run's page."""
    lines = [START, "## Results", ""]
    if r is not None:
        page_of = f"`results/bench/{r.run.name}/report.md`"
        lines += [f"Generated by `nox -s bench`; the run's page: {page_of}.", "", *page(r, figures)]
    if memory:
        lines += memory_lines(memory)
    if bytecode is not None and (bytecode / "bytecode.md").exists():
        lines += bytecode_lines(bytecode)
    return "\n".join([*lines, END])


def replace_section(text: str, section: str) -> str:
    """``text`` with its generated section replaced (or appended)."""
    if START in text and END in text:
        head, rest = text.split(START, 1)
        return head + section + rest.split(END, 1)[1]
    return text.rstrip("\n") + "\n\n" + section + "\n"


def load_report(folder: Optional[Path], bytecode: Optional[Path] = None) -> Optional[Report]:
    """The report of the run in ``folder``, with the newest bytecode run unless one is given."""
    if folder is None:
        return None
    return answers.build(results.load(folder, bytecode or newest("bytecode", "bytecode.json")))


def report_main(argv: Sequence[str]) -> int:
    """``python -m bench.report [RUN] [--bytecode RUN] [--no-plots]``."""
    parser = argparse.ArgumentParser(description="A run's report: report.md, summary.json, figures")
    parser.add_argument("folder", nargs="?", type=Path, help="a run (default: the newest)")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--bytecode", type=Path, help="a bytecode run (default: the newest)")
    args = parser.parse_args(argv)
    folder: Optional[Path] = args.folder or newest("bench", "values.json")
    r = load_report(folder, args.bytecode)
    if folder is None or r is None:
        raise SystemExit(f"no run under {RESULTS / 'bench'}")
    (folder / "summary.json").write_text(json.dumps(answers.summary(r), indent=1))
    figures: List[str] = []
    if not args.no_plots:
        try:
            from bench import plots
        except ImportError as exc:  # matplotlib missing: the report without figures
            print(f"(no figures: {exc})")
        else:
            figures = [p.name for p in plots.draw_all(r.run, folder)]
    text = "\n".join(["# Interpreter-overhead study: results", "", *page(r, figures)])
    (folder / "report.md").write_text(text + "\n")
    print(text)
    print(f"\nreport: {folder / 'report.md'}; figures: {', '.join(figures) or 'none'}")
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update README.md, docs/study.md")
    args = parser.parse_args(argv)
    folder = newest("bench", "summary.json")
    r = load_report(folder)
    memory_folder = newest("memory", "memory.json")
    memory = json.loads((memory_folder / "memory.json").read_text()) if memory_folder else None
    pictures = [folder / "speedup.png"] if folder else []
    if folder is not None and r is not None:
        cpythons = [c for c in r.run.columns if r.run.mode(c).implementation == "CPython"]
        pictures += [folder / f"throughput-{c}.png" for c in cpythons[-1:]]
    pictures = [p for p in pictures if p.exists()]
    if args.write and pictures:
        FIGURES.mkdir(parents=True, exist_ok=True)
        for old in FIGURES.glob("*.png"):  # a figure of a mode since left out
            if old.name not in {p.name for p in pictures}:
                old.unlink()
        for picture in pictures:
            shutil.copyfile(picture, FIGURES / picture.name)
    readme = readme_section(r)
    counted = newest("bytecode", "bytecode.md")
    study = study_section(r, memory, counted, [f"bench/{p.name}" for p in pictures])
    if args.write:
        README.write_text(replace_section(README.read_text(), readme))
        STUDY.write_text(replace_section(STUDY.read_text() if STUDY.exists() else "", study))
        print(f"{README.relative_to(ROOT)}, {STUDY.relative_to(ROOT)}: results from {folder}")
    else:
        print(readme, study, sep="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
