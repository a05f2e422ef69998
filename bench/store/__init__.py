"""Every result file: a run's one typed record, and the records of every other kind of run.

    run = store.load(Path("results/bench/20261201-090314"))
    run.measured[("3.14-jit", "digest/md5/helpers/16384")].values   # {(pass, round): seconds}

A run's folder (``results/bench/<date-time>/``) holds ``study.json`` (the ``Header``: how it
ran; its ``Column``\\ s, each a mode and what its worker listed), ``values.json`` (every value,
by mode, case and pass: ``CaseRuns``), ``instructions.json`` (callgrind's counts of the
cases the run counted, when it did) and one pyperf suite per mode (``<label>.json``, for
``python -m pyperf compare_to``). Only this module reads or writes them.

The other kinds' records go through it too (``write_record``, ``read_record``: JSON with its
``FORMAT``), in folders it makes (``new_folder``: ``results/<kind>/<date-time>/``): a
bytecode run's ``bytecode.json``, a memory run's ``memory.json``, the peers' ``peers.json``,
each environment's record (``results/envs/<label>.json``) and a report's ``summary.json``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..catalog import studies
from ..catalog.cases import Case
from ..catalog.columns import Column, Layout, Member
from ..catalog.study import Study
from ..core import stats
from ..core.machine import stamp

ROOT = Path(__file__).resolve().parent.parent.parent
RESULTS = ROOT / "results"
Key = Tuple[int, int]  # (pass, round)
#: Instruction counts by (mode label, variant, algorithm): instructions per byte.
Counts = Mapping[Tuple[str, str, str], float]
#: The result files' format: every record says it (``"format"``), and a reader refuses
#: another. A file without it was written before it was recorded, in format 1.
FORMAT = 1


class FormatError(ValueError):
    """A result file of another format than this bench reads."""


def new_folder(kind: str, results: Path = RESULTS) -> Path:
    """A new run's folder: ``results/<kind>/<date-time>/`` (bench, bytecode, memory, peers),
    its own: a run started in the same second as another (two styles runs from one script)
    gets ``<date-time>-2``, ``-3``, ... (made with ``mkdir``, which one process alone wins)."""
    (results / kind).mkdir(parents=True, exist_ok=True)
    name, n = stamp(), 1
    while True:
        folder = results / kind / (name if n == 1 else f"{name}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            n += 1


def run_order(folder: Path) -> Tuple[str, int]:
    """A run folder's place among its kind's, oldest first: by its date-time, then by its
    suffix as a number (``-10`` after ``-9``, where the names alone would not say so)."""
    name, _, suffix = folder.name.partition("-")
    time_, _, n = suffix.partition("-")
    return f"{name}-{time_}", int(n) if n.isdigit() else 1


def record_text(data: Mapping[str, Any], indent: Optional[int] = 1) -> str:
    """``data`` as a result file holds it: JSON, with the format it is written in (a command
    that prints a result prints this)."""
    return json.dumps({"format": FORMAT, **data}, indent=indent)


def write_record(path: Path, data: Mapping[str, Any], indent: Optional[int] = 1) -> None:
    """A result file: ``data`` as JSON, with the format it is written in."""
    path.write_text(record_text(data, indent))


def read_record(path: Path) -> Dict[str, Any]:
    """A result file's data (``write_record``'s), its format checked and left out."""
    data: Dict[str, Any] = json.loads(path.read_text())
    found = data.pop("format", 1)
    if found != FORMAT:
        raise FormatError(
            f"{path} is in format {found}; this bench reads format {FORMAT} "
            f"(measure again with this checkout)"
        )
    return data


def newest(kind: str, needs: str, results: Path = RESULTS) -> Optional[Path]:
    """The newest finished run of ``kind`` under ``results`` (one that has written ``needs``)."""
    runs = sorted((p.parent for p in (results / kind).glob("2*/" + needs)), key=run_order)
    return runs[-1] if runs else None


@dataclass
class Pass:
    """What one pass (one worker process) took of one case."""

    number: int
    loops: int
    warmups: List[Tuple[int, float]]
    warmed: bool = True
    stretch: int = 0  # which stretch of the run's time the pass ran in
    rounds: List[int] = field(default_factory=list)
    values: List[float] = field(default_factory=list)


@dataclass
class CaseRuns:
    """What the run took of one case under one mode."""

    loops: int = 0
    seconds: float = 0.0  # wall seconds per value, from the first pass
    cost: float = 0.0  # wall seconds of its last pass: preparing and values
    runs: List[Pass] = field(default_factory=list)

    def values(self) -> Dict[Key, float]:
        """Every value by (pass, round)."""
        return {(r.number, i): v for r in self.runs for i, v in zip(r.rounds, r.values)}

    def as_json(self) -> Dict[str, Any]:
        runs = [
            {"pass": r.number, **{k: v for k, v in asdict(r).items() if k != "number"}}
            for r in self.runs
        ]
        return {"loops": self.loops, "seconds": self.seconds, "cost": self.cost, "runs": runs}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CaseRuns:
        runs = [
            Pass(
                int(r["pass"]),
                int(r["loops"]),
                [(int(a), float(b)) for a, b in r["warmups"]],
                bool(r.get("warmed", True)),
                int(r.get("stretch", 0)),
                [int(x) for x in r["rounds"]],
                [float(x) for x in r["values"]],
            )
            for r in data["runs"]
        ]
        return cls(int(data["loops"]), float(data["seconds"]), float(data["cost"]), runs)


#: A styles run's bytecode counts, in its folder (``bench.profile.counters``).
STYLE_BYTECODE = "bytecode.json"

#: The rules that end a run's measuring (``bench.conduct.conductor``), in words.
STOPS = {
    "precision": "precise enough",
    "budget": "the budget spent",
    "passes": "the effort's most passes taken",
}


@dataclass(frozen=True)
class Header:
    """How a run ran: its effort, settings, machine, times and what it left out."""

    effort: str  # quick | default | rigorous
    settings: Mapping[str, Any]
    cpu: str
    started: str
    wall_seconds: float
    measure_seconds: float
    passes: int
    steal: float  # share of the CPU's time stolen by neighbours during the run
    steal_per_pass: Tuple[float, ...] = ()
    skipped: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # mode -> case -> why
    builds: Mapping[str, Any] = field(default_factory=dict)  # each environment's build times
    plan: Mapping[str, Any] = field(default_factory=dict)  # how the conductor spent the budget
    tree: str = ""  # the checkout's commit it ran from ("-dirty" with changes)
    #: What ended the measuring: {"rule": "precision" | "budget" | "passes", "passes": taken,
    #: "seconds": of measuring then, "half_width": the README's median within the run then,
    #: "target": the effort's (None: it promises none)}.
    stop: Mapping[str, Any] = field(default_factory=dict)
    #: The study's modes this run left out, their interpreter not here: mode -> why, and how
    #: to add it (``bench.conduct.launch.left_out``).
    left_out: Mapping[str, str] = field(default_factory=dict)
    #: The machine (``bench.core.machine.machine_facts``), and a digest of the code measured
    #: (``bench.core.machine.measured``): what a kept run is compared by (``bench.store.kept``).
    machine: Mapping[str, Any] = field(default_factory=dict)
    measured: str = ""
    #: The study measured (``bench.catalog.studies``; "": a record before it was said, the
    #: hash study's or, where ``record`` has a file, a styles file's) and what the run keeps of
    #: it (``Study.record``: a styles file's path, title, styles and sizes, and the modes that
    #: cannot run it, each with why; {} for the hash study's runs). Records before the name
    #: kept it as ``styles`` (``Header.of_json``).
    study: str = ""
    record: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of_json(cls, data: Mapping[str, Any]) -> Header:
        """The header of a record (study.json, a kept run's), those of every age."""
        found = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "styles" in data and "record" not in data:
            found["record"] = data["styles"]
        return cls(**found)

    @property
    def study_name(self) -> str:
        """The study's name, said or (an older record) known by its record."""
        return self.study or ("styles" if self.record else "bench")

    @property
    def clock(self) -> str:
        return str(self.settings.get("clock", "cpu"))

    @property
    def left_out_line(self) -> str:
        """One line naming the modes left out, grouped by why ("" if none)."""
        by: Dict[str, List[str]] = {}
        for label, why in self.left_out.items():
            by.setdefault(why, []).append(label)
        said = "; ".join(f"{', '.join(labels)}: {why}" for why, labels in by.items())
        return f"Modes left out, their interpreter not here: {said}." if said else ""

    @property
    def stop_reason(self) -> str:
        """Which rule ended the measuring and the precision reached, in words ("" for a run
        before the rule): for a line that says the passes and minutes already."""
        s = self.stop
        if not s:
            return ""
        width = s.get("half_width")
        target = s.get("target")
        reached = f"±{width:.1%}" if width is not None else "no ratio"
        aim = f" (target ±{target:.1%})" if target else ""
        open_ = s.get("unsettled") or {}
        said = ", ".join(f"{m} ±{w:.1%}" for m, w in open_.items())
        left = f"; not settled to the promise: {said}" if open_ else ""
        whose = "the README's" if self.study_name == "bench" else "the ratios'"
        return (
            f"{STOPS.get(s['rule'], s['rule'])}, {whose} median {reached} within the run{aim}{left}"
        )

    @property
    def stopped(self) -> str:
        """Which rule ended the measuring, and when, in words ("" for a run before the rule)."""
        s = self.stop
        if not s:
            return ""
        when = f"after {s['passes']} passes, {s['seconds'] / 60:.1f} min"
        return f"stopped {when}: {self.stop_reason}"


@dataclass(frozen=True)
class Measured:
    """One case under one mode: its values by (pass, round), and each pass's stretch."""

    mode: str
    case: Case
    values: Mapping[Key, float]
    stretches: Mapping[int, int]
    warmed: bool = True  # every pass's JIT settled in its warm-up

    @cached_property
    def estimate(self) -> stats.Estimate:
        """Its time: over the processes (passes), each one's fastest value (bench.core.stats)."""
        return stats.time(self.values, self.stretches)

    @property
    def time(self) -> float:
        return self.estimate.value

    @property
    def mb_per_s(self) -> float:
        return self.case.nbytes / self.time / 1e6


@dataclass(frozen=True)
class Run:
    """A run of the study: its header, columns, every case measured, its instruction counts."""

    name: str
    header: Header
    columns: Tuple[Column, ...]
    measured: Mapping[Member, Measured]
    counts: Counts = field(default_factory=dict)
    counts_from: str = ""  # the run whose counts these are ("": this one's own)

    def column(self, label: str) -> Column:
        return next(c for c in self.columns if c.label == label)

    @cached_property
    def study(self) -> Study:
        """The study measured, read back from the header's record."""
        return studies.of_record(self.header.study_name, self.header.record)

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.columns, self.measured, lambda m: self.measured[m].time)

    def instructions(self, a: Member, b: Member) -> float:
        """Machine instructions per byte of a ÷ of b (callgrind); nan where not counted."""
        (ca, cb) = (Case.parse(a[1]), Case.parse(b[1]))
        top = self.counts.get((a[0], ca.variant, ca.algorithm))
        bottom = self.counts.get((b[0], cb.variant, cb.algorithm))
        return top / bottom if top and bottom else float("nan")


def counts_of(rows: Any) -> Dict[Tuple[str, str, str], float]:
    """Instructions per byte by (mode, variant, algorithm), from count rows (bytecode.json's)."""
    keys = ("mode", "variant", "algorithm")
    return {
        tuple(str(r[k]) for k in keys): float(r["instructions_per_byte"])  # type: ignore[misc]
        for r in rows
        if r.get("instructions_per_byte")
    }


def write(
    folder: Path,
    header: Header,
    columns: Sequence[Column],
    data: Mapping[str, Mapping[str, CaseRuns]],
) -> None:
    """Write a run into ``folder``: study.json, values.json and the pyperf suites."""
    values = {
        label: {name: c.as_json() for name, c in cases.items()} for label, cases in data.items()
    }
    write_record(folder / "values.json", values, indent=None)
    files = pyperf_files(folder, columns, data)
    record = {
        **asdict(header),
        "columns": {c.label: {**c.as_json(), "file": files.get(c.label)} for c in columns},
    }
    write_record(folder / "study.json", record)


def write_counts(folder: Path, rows: List[Dict[str, Any]]) -> None:
    write_record(folder / "instructions.json", {"rows": rows})


def load(folder: Path, counts: Optional[Path] = None) -> Run:
    """The run in ``folder``, with its own instruction counts, or those of the bytecode run in
    ``counts`` where given."""
    study = read_record(folder / "study.json")
    columns = tuple(Column.from_json(c) for c in study.pop("columns").values())
    header = Header.of_json(study)
    values = read_record(folder / "values.json")
    measured: Dict[Member, Measured] = {}
    for label, cases in values.items():
        for name, data in cases.items():
            case_runs = CaseRuns.from_json(data)
            runs, keyed = case_runs.runs, case_runs.values()
            if keyed:
                stretches = {r.number: r.stretch for r in runs}
                warmed = all(r.warmed for r in runs)
                measured[(label, name)] = Measured(
                    label, Case.parse(name), keyed, stretches, warmed
                )
    source = counts / "bytecode.json" if counts else folder / "instructions.json"
    found = counts_of(read_record(source)["rows"]) if source.exists() else {}
    kept = tuple(c for c in columns if any(m[0] == c.label for m in measured))
    return Run(folder.name, header, kept, measured, found, counts.name if counts else "")


def pyperf_files(
    folder: Path, columns: Sequence[Column], data: Mapping[str, Mapping[str, CaseRuns]]
) -> Dict[str, str]:
    """One pyperf suite per mode, ``<label>.json``: one pyperf run per pass of each case."""
    try:
        import pyperf
    except ImportError:
        return {}
    written: Dict[str, str] = {}
    for column in columns:
        base = dict(column.listing.metadata)
        benchmarks = []
        for name, case_runs in data.get(column.label, {}).items():
            case = Case.parse(name)
            meta = {
                "name": name,
                "unit": "second",
                "variant": case.variant,
                "benchmark": case.benchmark,
                "algorithm": case.algorithm,
                "length": case.length,
            }
            runs = [
                pyperf.Run(
                    r.values,
                    warmups=[tuple(w) for w in r.warmups] or None,
                    metadata={**base, **meta, "loops": r.loops, "study_pass": r.number},
                    collect_metadata=False,
                )
                for r in case_runs.runs
                if r.values
            ]
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = folder / f"{column.label}.json"
            pyperf.BenchmarkSuite(benchmarks).dump(str(path), replace=True)
            written[column.label] = path.name
    return written


# --- peers.json: a `nox -s peers` run, read by its tables and the README's column figures ----

#: chdb's two aggregates (its scan with the digest, its scan alone), whose difference is its
#: digest alone.
DIGEST_ONLY, SCAN_ONLY = "chdb/sum-length-digest", "chdb/sum-length"


def rounds(values: Sequence[float]) -> stats.Values:
    """One measuring process's values, keyed (process, round) as bench.core.stats takes them."""
    return {(0, i): v for i, v in enumerate(values)}


def derived(candidates: Dict[str, Any]) -> Dict[str, List[float]]:
    """Each candidate's values by key, and chdb's digest alone (per round: the difference;
    on a tiny column a round's scan can take as long as its scan and digest did, and such a
    round tells nothing of the digest: only the positive differences count, and none is no
    figure)."""
    values = {key: list(data["values"]) for key, data in candidates.items()}
    if DIGEST_ONLY in values and SCAN_ONLY in values:
        alone = [a - b for a, b in zip(values[DIGEST_ONLY], values[SCAN_ONLY])]
        if any(d > 0 for d in alone):
            values["chdb/digest"] = [d for d in alone if d > 0]
    return values


def cases_of(run: Dict[str, Any]) -> Dict[Tuple[str, str], Dict[str, List[float]]]:
    """A run's values by (column, algorithm), then by candidate (chdb's digest alone too)."""
    return {(c["column"], c["algorithm"]): derived(c["candidates"]) for c in run["cases"]}
