"""A run of the study read into typed records: what the report, the docs and the figures read.

    run = results.load(Path("results/bench/20261201-090314"))   # study.json, values.json
    run.get("3.14-jit", "digest", "md5", "helpers", 16384)        # a Measured, or None

The run's columns are its *modes* (``bench.interpreters.MODES``: "3.14",
"3.14-jit", "pypy8-nojit", ...): an interpreter run a certain way. A mode whose
label adds one of ``FOLDS`` to an interpreter that has a mode of its own
("3.11-portable": the native variant with its portable C kernels) is
*folded*: the report shows it as rows ("native (portable kernels)") under
that mode's column, the way the JDK's "intrinsics off" is a row of the same
JVM. Runs written before the modes existed (one mode per interpreter,
named by the interpreter) read the same way, the rest of a mode taken from
``bench.interpreters``' table where the label is there.

Every ratio of two times goes through :func:`ratio`, the one place that
asks ``bench.stats`` for a value, its interval and whether it is settled.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from bench import interpreters, stats
from bench.cases import Case
from bench.machine import interpreter_title

HASHLIB = "hashlib"
#: What a folded mode's suffix means, in a row's name.
FOLDS = {"portable": "portable kernels"}

Key = Tuple[int, int]  # (pass, round)


def ratio(a: Mapping[Key, float], b: Mapping[Key, float]) -> Optional[stats.Estimate]:
    """time(a) / time(b), its 95% rerun interval, settled or not: the report's one ratio."""
    return stats.ratio(a, b)


@dataclass(frozen=True)
class Twin:
    """Where a compiled twin comes from: its interpreted source and how it was compiled."""

    source: str
    compiler: str
    annotations: str

    @property
    def build(self) -> str:
        return self.compiler + (f" ({self.annotations})" if self.annotations else "")


@dataclass(frozen=True)
class Variant:
    """One row of the registry, as a mode's worker listed it."""

    name: str
    kind: str  # "interpreted" | "compiled" | "native" | "reference"
    description: str
    twin: Optional[Twin]
    details: str
    unavailable: Optional[str]


@dataclass(frozen=True)
class Mode:
    """One column of the study: an interpreter run a certain way, and what it measured."""

    label: str
    interpreter: str
    env: Tuple[Tuple[str, str], ...]
    args: Tuple[str, ...]
    only: Optional[str]  # glob of the variants it measures; None: all
    jdk: str  # the JDK execution mode it plays ("" when the run did not say)
    title: str  # "CPython 3.14.0", "PyPy 3.11.13 (PyPy 8.0.1)"
    implementation: str
    free_threaded: bool
    gil_enabled: bool
    variants: Tuple[Variant, ...]
    batch_variant: Optional[str]
    batch_unavailable: Optional[str]

    @property
    def jit(self) -> bool:
        """Whether a JIT compiles interpreted code (PyPy unless turned off; CPython's "-jit")."""
        if self.jdk:
            return "JIT" in self.jdk
        if self.label.endswith("-nojit"):
            return False
        return self.label.endswith("-jit") or self.implementation.lower() == "pypy"

    @property
    def how(self) -> str:
        """How it is started, beyond its interpreter: ``PYTHON_JIT=1``, ``--jit off``."""
        return " ".join([*(f"{k}={v}" for k, v in self.env), *self.args])

    @property
    def suffix(self) -> str:
        """What the label adds to the interpreter's: "jit", "portable", "" for none."""
        head = self.interpreter + "-"
        return self.label[len(head) :] if self.label.startswith(head) else ""

    def variant(self, name: str) -> Optional[Variant]:
        return next((v for v in self.variants if v.name == name), None)


@dataclass(frozen=True)
class Measured:
    """One case under one mode: its values by (pass, round)."""

    mode: str
    case: Case
    values: Mapping[Key, float]

    @cached_property
    def time(self) -> float:
        """Its time: over the processes (passes), each one's fastest value (bench.stats)."""
        return stats.time(self.values).value

    @property
    def mb_per_s(self) -> float:
        return self.case.nbytes / self.time / 1e6

    @property
    def ops_per_ms(self) -> float:
        """JMH's score: mean throughput, operations per millisecond."""
        return statistics.fmean(1e-3 / v for v in self.values.values())


@dataclass(frozen=True)
class Bytecode:
    """A ``nox -s bytecode`` run's counts (identical run to run), by (mode, variant, algorithm)."""

    run: str
    counts: Mapping[Tuple[str, str, str], Mapping[str, float]]

    def quotient(self, a: Tuple[str, str, str], b: Tuple[str, str, str], what: str) -> float:
        """count(a) / count(b) of ``what`` ("instructions_per_byte"); nan where one is missing."""
        top, bottom = self.counts.get(a, {}).get(what), self.counts.get(b, {}).get(what)
        return top / bottom if top and bottom else math.nan


@dataclass(frozen=True)
class Run:
    """A run of the study: how it ran, its modes and every case measured."""

    name: str
    study_mode: str  # quick | default | rigorous
    cpu: str
    started: str
    passes: int
    clock: str
    slow_limit: Optional[float]
    measure_seconds: float
    wall_seconds: float
    steal: Optional[float]  # share of the CPU's time stolen by neighbours during the run
    skipped: Tuple[str, ...]
    builds: Mapping[str, Any]
    modes: Tuple[Mode, ...]
    measured: Mapping[Tuple[str, str], Measured]
    bytecode: Optional[Bytecode] = None
    order: Tuple[str, ...] = field(default=())  # the variants, in the listings' order

    def mode(self, label: str) -> Mode:
        return next(m for m in self.modes if m.label == label)

    def get(
        self, mode: str, bench: str, algorithm: str, variant: str, length: int, number: int = 1
    ) -> Optional[Measured]:
        return self.measured.get((mode, Case(bench, algorithm, variant, length, number).name))

    @property
    def columns(self) -> List[str]:
        """The modes that are columns (every mode but the folded ones)."""
        return [m.label for m in self.modes if self.folded(m) is None]

    def folded(self, mode: Mode) -> Optional[str]:
        """The column a folded mode belongs under, or None for a column of its own."""
        if mode.suffix not in FOLDS:
            return None
        home = [m.label for m in self.modes if m.interpreter == mode.interpreter]
        home = [label for label in home if self.mode(label).suffix not in FOLDS]
        return home[0] if home else None

    def folds(self, column: str) -> Dict[str, str]:
        """The modes folded under ``column``, by their suffix ("portable" -> "3.11-portable")."""
        return {m.suffix: m.label for m in self.modes if self.folded(m) == column}

    def kind(self, variant: str) -> str:
        found = [v.kind for m in self.modes if (v := m.variant(variant))]
        return found[0] if found else ""

    def twin(self, variant: str) -> Optional[Twin]:
        found = [v.twin for m in self.modes if (v := m.variant(variant)) and v.twin]
        return found[0] if found else None

    def variants(self) -> List[str]:
        """Every variant measured in a column, in the listings' order."""
        cols = set(self.columns)
        seen = {m.case.variant for m in self.measured.values() if m.mode in cols}
        return [v for v in self.order if v in seen]

    def interpreted(self) -> List[str]:
        return [v for v in self.variants() if self.kind(v) == "interpreted"]

    def algorithms(self) -> List[str]:
        found = {m.case.algorithm for m in self.measured.values()}
        return [a for a in ("md5", "sha256") if a in found]

    def lengths(self, bench: str = "digest") -> List[int]:
        return sorted({m.case.length for m in self.measured.values() if m.case.mode == bench})

    def length(self, preferred: int) -> int:
        """``preferred`` if digest ran at it, else the longest below it (else the shortest)."""
        lengths = self.lengths()
        below = [n for n in lengths if n <= preferred]
        return max(below) if below else (lengths[0] if lengths else preferred)

    def fastest(self, mode: str, algorithm: str, length: int) -> Optional[str]:
        """The interpreted variant with the shortest digest time at ``length`` under ``mode``."""
        timed = [
            (m.time, name)
            for name in self.interpreted()
            if (m := self.get(mode, "digest", algorithm, name, length))
        ]
        return min(timed)[1] if timed else None

    def instructions(self, a: Measured, b: Measured) -> float:
        """Machine instructions per byte of a ÷ of b (callgrind); nan where not counted."""
        if self.bytecode is None:
            return math.nan
        return self.bytecode.quotient(
            (a.mode, a.case.variant, a.case.algorithm),
            (b.mode, b.case.variant, b.case.algorithm),
            "instructions_per_byte",
        )


# --- reading the JSON -------------------------------------------------------------------


def _variant(name: str, info: Mapping[str, Any]) -> Variant:
    twin = None
    if info.get("source"):
        twin = Twin(str(info["source"]), str(info["compiler"]), str(info.get("annotations") or ""))
    return Variant(
        name,
        str(info.get("kind", "")),
        str(info.get("description", "")),
        twin,
        str(info.get("details") or ""),
        info.get("unavailable") or None,
    )


def _known(label: str) -> Mapping[str, Any]:
    """A mode of the interpreters' table by label (what a run of the old format did not say)."""
    try:
        found = interpreters.mode(label)
    except KeyError:
        return {}
    fields = ("interpreter", "args", "variants", "jdk")
    return {"env": dict(found.env), **{k: getattr(found, k) for k in fields}}


def _mode(label: str, info: Mapping[str, Any]) -> Mode:
    """One mode from study.json: its own fields, nested under "mode" or beside the listing."""
    nested = info.get("mode")
    spec: Mapping[str, Any] = nested if isinstance(nested, dict) else _known(label)
    only = spec.get("variants") if isinstance(spec.get("variants"), str) else spec.get("only")
    batch = info.get("batch") or {}
    return Mode(
        label=label,
        interpreter=str(spec.get("interpreter") or label),
        env=tuple(sorted((str(k), str(v)) for k, v in (spec.get("env") or {}).items())),
        args=tuple(str(a) for a in spec.get("args") or ()),
        only=str(only) if only else None,
        jdk=str(spec.get("jdk") or ""),
        title=interpreter_title(dict(info)) if "implementation" in info else label,
        implementation=str(info.get("implementation", "")),
        free_threaded=bool(info.get("free_threaded")),
        gil_enabled=bool(info.get("gil_enabled")),
        variants=tuple(_variant(n, v) for n, v in (info.get("variants") or {}).items()),
        batch_variant=batch.get("variant"),
        batch_unavailable=batch.get("unavailable"),
    )


def _steal(study: Mapping[str, Any]) -> Optional[float]:
    """The share of CPU time stolen during the run, wherever the run recorded it."""
    for found in (study.get("steal"), (study.get("machine") or {}).get("steal")):
        if isinstance(found, dict):
            found = found.get("share")
        if isinstance(found, (int, float)):
            return float(found)
    return None


def parse(
    study: Mapping[str, Any], values: Mapping[str, Any], name: str = "", bytecode: Any = None
) -> Run:
    """A Run from the decoded study.json and values.json (and bytecode.json)."""
    listing = study.get("modes") or study["interpreters"]
    modes = tuple(_mode(label, info) for label, info in listing.items())
    measured: Dict[Tuple[str, str], Measured] = {}
    for label, cases in values.items():
        for case_name, data in cases.items():
            keyed = {
                (int(run["pass"]), int(r)): float(v)
                for run in data["runs"]
                for r, v in zip(run["rounds"], run["values"])
            }
            if keyed:
                measured[(label, case_name)] = Measured(label, Case.parse(case_name), keyed)
    order = dict.fromkeys(v.name for m in modes for v in m.variants)
    settings = study.get("settings") or {}
    return Run(
        name=name,
        study_mode=str(study.get("mode", "")),
        cpu=str(study.get("cpu", "")),
        started=str(study.get("started", "")),
        passes=int(study.get("passes") or settings.get("passes", 0)),
        clock=str(settings.get("clock", "cpu")),
        slow_limit=settings.get("slow_limit"),
        measure_seconds=float(study.get("measure_seconds", 0.0)),
        wall_seconds=float(study.get("wall_seconds", 0.0)),
        steal=_steal(study),
        skipped=tuple(n for names in (study.get("skipped") or {}).values() for n in names),
        builds=study.get("builds") or {},
        modes=tuple(m for m in modes if any(k[0] == m.label for k in measured)),
        measured=measured,
        bytecode=parse_bytecode(bytecode) if bytecode else None,
        order=tuple(order),
    )


def parse_bytecode(data: Mapping[str, Any]) -> Bytecode:
    """The counts of a bytecode.json (rows keyed by mode, or by interpreter before the modes)."""
    kinds = ("instructions_per_byte", "bytecode_per_block")
    counts = {
        (str(r.get("mode") or r["interpreter"]), str(r["variant"]), str(r["algorithm"])): {
            k: float(r[k]) for k in kinds if r.get(k)
        }
        for r in data.get("rows", [])
    }
    return Bytecode(str(data.get("run", "")), counts)


def load(folder: Path, bytecode: Optional[Path] = None) -> Run:
    """The run in ``folder``; with the ``nox -s bytecode`` run in ``bytecode`` if given."""
    counted: Optional[Dict[str, Any]] = None
    if bytecode is not None and (bytecode / "bytecode.json").exists():
        counted = json.loads((bytecode / "bytecode.json").read_text())
        counted["run"] = bytecode.name
    study = json.loads((folder / "study.json").read_text())
    values = json.loads((folder / "values.json").read_text())
    return parse(study, values, folder.name, counted)
