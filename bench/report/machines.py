"""The study's answer across every kept machine: one report a machine, and what the CPU moves.

The README answers from the runs kept in the repository (``bench.store.kept``), not from the
newest run alone: every kept run of the code this checkout measures (``machine.measured``),
a report of each machine's newest run, that machine's run before it as its rerun (how far to
trust it on that machine), and per mode the range across machines. A kept run of other code
is named and left out, never mixed in. A helpers ÷ streamlined ratio *holds* where every
machine's value lies within ``HOLDS`` of every other's; elsewhere it moves with the CPU (the
instructions executed are the same on every machine: ``stability`` on runs of two machines
shows both).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from ..catalog.comparisons import LONG
from ..core import machine, stats
from ..core.fmt import grid, size_label
from ..store import Run, kept
from . import answers, stability
from .answers import NAMES, Report
from .figures import Ratio
from .pages import said

#: Values within this of each other (largest ÷ smallest - 1) hold on every machine.
HOLDS = 0.10


def cpu_of(run: Run) -> str:
    """The machine's CPU in a few words (its CPU label where the header says no more)."""
    h = run.header
    return kept.cpu_name(h.machine) if h.machine else h.cpu


@dataclass(frozen=True)
class Across:
    """The kept runs the answer is made of: a report a machine (its newest run, its rerun the
    run before it there), oldest machine first; the runs left out and why."""

    reports: Tuple[Report, ...]
    runs: Tuple[Tuple[str, ...], ...]  # each machine's kept runs used, oldest first
    left_out: Tuple[str, ...] = ()

    @property
    def cpus(self) -> List[str]:
        return [cpu_of(r.run) for r in self.reports]

    @classmethod
    def one(cls, r: Report) -> Across:
        """One run's report alone (a machine, no rerun kept)."""
        return cls((r,), ((r.run.name,),))


def gather(runs: Sequence[Run], code: str) -> Across:
    """The answer's runs: those of ``code`` (the measured code's digest) by machine."""
    by: Dict[str, List[Run]] = {}
    left: List[str] = []
    for run in runs:
        if not machine.comparable(run.header.measured, code):
            code_of = run.header.measured or "not recorded"
            left.append(
                f"{run.name} ({cpu_of(run)}): other code ({code_of}, commit "
                f"{run.header.tree or 'not recorded'})"
            )
            continue
        by.setdefault(stability.machine_of(run), []).append(run)
    reports, names = [], []
    for found in by.values():
        found.sort(key=lambda r: (r.header.started, r.name))
        report = answers.build(found[-1])
        if len(found) > 1:
            report = replace(report, rerun=stability.rerun(report, answers.build(found[-2])))
        reports.append(report)
        names.append(tuple(r.name for r in found))
    return Across(tuple(reports), tuple(names), tuple(left))


Spread = Tuple[str, str, List[Optional[Ratio]]]  # (mode, algorithm name, a figure a machine)


def merged(orders: Sequence[Sequence[str]]) -> List[str]:
    """The labels of every order once: the first order's, then each label another order adds
    after the label it follows there (at the end where that is not among them), so that a mode
    only later runs have (3.13t) stands beside its neighbours, not after the JDK's."""
    out: List[str] = []
    for order in orders:
        for i, label in enumerate(order):
            if label not in out:
                after = order[i - 1] if i else None
                out.insert(out.index(after) + 1 if after in out else len(out), label)
    return out


def spreads(reports: Sequence[Report]) -> List[Spread]:
    """Per mode (in the first machine's order, a mode of another's after the one it follows
    there: ``merged``) and algorithm: each machine's helpers ÷ streamlined (None where it has
    not the mode)."""
    modes = merged([[row.labels[0] for row in t.rows] for r in reports if (t := r.table("styles"))])
    out: List[Spread] = []
    for mode in modes:
        for name in NAMES.values():
            cells = [t.at((mode,), name) if (t := r.table("styles")) else None for r in reports]
            if any(cells):
                out.append((mode, name, cells))
    return out


def apart(cells: Sequence[Optional[Ratio]]) -> float:
    """Largest ÷ smallest value across machines (1.0: one machine)."""
    values = [c.value for c in cells if c is not None]
    return max(values) / min(values) if values else 1.0


def moved(reports: Sequence[Report]) -> List[Spread]:
    """The ratios that move with the CPU: over ``HOLDS`` apart across machines."""
    return [s for s in spreads(reports) if apart(s[2]) > 1 + HOLDS]


def moving_families(reports: Sequence[Report]) -> str:
    """The families of modes the CPU moves (their ratios over ``HOLDS`` apart), each with how
    far apart its ratios lie at most, the furthest first: "the JDK's -Xint (up to 2.2x)"."""
    if len(reports) < 2:
        return ""
    family: Dict[str, str] = {}
    for r in reports:
        for jit in (False, True):
            for name, modes in answers.by_family(r.run, jit).items():
                jitted = (
                    ""
                    if "JDK" in name or name == "CPython"
                    else (" with its JIT" if jit else " without a JIT")
                )
                family.update({m: f"{name}{jitted}" for m in modes})
    most: Dict[str, float] = {}
    for mode, _, cells in moved(reports):
        name = family.get(mode, mode)
        most[name] = max(most.get(name, 1.0), apart(cells))
    ranked = sorted(most.items(), key=lambda x: -x[1])
    return ", ".join(f"{far:.1f}x under {name}" for name, far in ranked)


def holds_line(reports: Sequence[Report]) -> str:
    """Which parts of the answer hold on every machine and which move with the CPU."""
    if len(reports) < 2:
        return "One machine kept so far: no part of the answer is known to hold on another."
    every = spreads(reports)
    move = moved(reports)
    modes = len(dict.fromkeys(mode for mode, _, _ in move))
    moves = f"the other {len(move)} move, in {modes} modes" if move else "none moves"
    return (
        f"**Across the {len(reports)} CPUs**: {len(every) - len(move)} of the {len(every)} "
        f"helpers ÷ streamlined ratios hold on every one (within {HOLDS:.0%}); {moves} "
        f"(`across CPUs` says which and how far)."
    )


def cell_of(f: Optional[Ratio]) -> Optional[str]:
    return said(f) if f is not None else None


def across_cell(cells: Sequence[Optional[Ratio]]) -> Optional[str]:
    """One algorithm's helpers ÷ streamlined in one mode, over the machines that measured it:
    one machine's ratio with its rerun interval; several machines' range of ratios
    (``2.2-2.3x slower``), or ``no difference`` where every machine's interval holds 1."""
    shown = [c for c in cells if c is not None]
    if len(shown) < 2:
        return cell_of(shown[0]) if shown else None
    words = {stats.verdict(c.value, c.low, c.high) for c in shown}
    if words == {stats.SAME}:
        return stats.SAME
    return answers.direction([c.value for c in shown])


def measured_on(
    rows: Dict[str, Dict[str, List[Optional[Ratio]]]], cpus: Sequence[str]
) -> Dict[str, List[str]]:
    """Each algorithm's machines: those with a figure of it in some mode."""
    return {
        name: [
            cpu
            for i, cpu in enumerate(cpus)
            if any(by[name][i] for by in rows.values() if name in by)
        ]
        for name in NAMES.values()
        if any(name in by for by in rows.values())
    }


def counted_on(reports: Sequence[Report], mode: str, name: str) -> Optional[str]:
    """An algorithm's helpers ÷ streamlined in machine instructions in ``mode``: the first
    machine's that counted it (callgrind's counts are the same on every CPU)."""
    for r in reports:
        t = r.table("styles")
        f = t.at((mode,), f"{name} instr.") if t else None
        if f is not None:
            return f"{f.value:.2f}x"
    return None


def styles_lines(reports: Sequence[Report], cpus: Sequence[str], caption: str) -> List[str]:
    """The README's table across machines: per mode, a column an algorithm, its helpers ÷
    streamlined over the machines that measured it (``across_cell``; each machine's figure
    with its rerun interval is docs/study.md's table), the instructions (the same on every
    CPU: the first's), how far apart the machines are, and the verdicts."""
    rows: Dict[str, Dict[str, List[Optional[Ratio]]]] = {}
    for mode, name, cells in spreads(reports):
        rows.setdefault(mode, {})[name] = cells
    on = measured_on(rows, cpus)
    names = list(on)
    header = ["mode", *names, "instr.", "across CPUs", "verdict"]
    body = []
    for mode, by_name in rows.items():
        shown = [across_cell(by_name[n]) if n in by_name else None for n in names]
        counted = [counted_on(reports, mode, n) for n in names]
        instr = " / ".join(c if c else "—" for c in counted) if any(counted) else None
        several = {n: c for n, c in by_name.items() if sum(x is not None for x in c) > 1}
        far = [f"{n} {apart(c):.2f}x" for n, c in several.items() if apart(c) > 1 + HOLDS]
        spread = "; ".join(far) + " apart" if far else f"within {HOLDS:.0%}"
        said = [
            (w, cpu) for r, cpu in zip(reports, cpus) if (w := answers.mode_word(r.verdicts, mode))
        ]
        verdict = (
            said[0][0]
            if len(said) == len(cpus) and len({w for w, _ in said}) == 1
            else "; ".join(f"{w} ({cpu})" for w, cpu in said)
        )  # a CPU without the mode says nothing of it
        body.append([mode, *shown, instr, spread if several else "—", verdict])
    fewer: Dict[str, List[str]] = {}  # the machines of the algorithms not on every one
    for n, c in on.items():
        if len(c) < len(cpus):
            fewer.setdefault(", ".join(c), []).append(n)
    where = "; ".join(f"{', '.join(ns)}: {c} only" for c, ns in fewer.items())
    where = f" ({where})" if where else ""
    told = (
        f"{caption[:-1]}. A cell: the range over the CPUs that measured it{where}, or one "
        f"CPU's figure and 95% rerun interval; [each CPU's](docs/study.md#results):"
        if len(cpus) > 1
        else f"{caption[:-1]}. Each figure with its 95% rerun interval:"
    )
    return [told, "", grid(header, body, 1, 1), ""]


def disjoint(cells: Sequence[Optional[Ratio]]) -> bool:
    """Whether two machines' intervals share no value: apart beyond both reruns."""
    shown = [c for c in cells if c is not None]
    return any(a.high < b.low for a in shown for b in shown)


def study_lines(across: Across) -> List[str]:
    """docs/study.md's table across the machines: per mode, helpers ÷ streamlined in time
    (each machine's, with its rerun interval) and in instructions (each machine's count: one
    figure where every machine counted the same), and which algorithms' times differ beyond
    the machines' intervals."""
    reports, cpus = across.reports, across.cpus
    if len(reports) < 2:
        return []
    rows: Dict[str, Dict[str, List[Optional[Ratio]]]] = {}
    for mode, name, cells in spreads(reports):
        rows.setdefault(mode, {})[name] = cells
    names = [n for n in NAMES.values() if any(n in by for by in rows.values())]  # measured
    header = ["mode", *(f"{n}, {c}" for n in names for c in cpus), "instr.", "differs"]
    body: List[List[Optional[str]]] = []
    n = move = same = counted = 0
    for mode, by_name in rows.items():
        instr = []
        for name in names:
            counts = [
                f.value
                for r in reports
                if (t := r.table("styles")) and (f := t.at((mode,), f"{name} instr."))
            ]
            if len(counts) == len(reports):
                counted += 1
                alike = max(counts) / min(counts) - 1 <= stability.SAME_INSTRUCTIONS
                same += alike
                instr.append(f"{counts[0]:.2f}" if alike else "; ".join(f"{c:.2f}" for c in counts))
        moved_here = [name for name, cells in by_name.items() if disjoint(cells)]
        n, move = n + len(by_name), move + len(moved_here)
        empty: List[Optional[Ratio]] = [None] * len(cpus)
        shown = [c.text() if c else None for name in names for c in by_name.get(name, empty)]
        body.append([mode, *shown, " / ".join(instr) or None, ", ".join(moved_here) or "no"])
    return [
        f"**The same code on {len(cpus)} CPUs**: helpers ÷ streamlined, "
        f"{size_label(reports[0].run.layout.length(LONG))}, in time with its 95% rerun interval "
        f"and in machine instructions (callgrind: MD5 / SHA-256, one figure where every CPU "
        f"counted the same); `differs`: the algorithms whose times differ beyond the machines' "
        f"intervals. {move} of {n} time ratios differ so, while {same} of the {counted} "
        f"instruction ratios counted on every CPU are the same within "
        f"{stability.SAME_INSTRUCTIONS:.0%}.",
        "",
        grid(header, body, 1, 1),
        "",
    ]
