"""A column of the study: one mode, where its runtime is, and what its worker says it runs.

The worker's answer to ``list`` (``bench.conduct.worker``, ``bench/jdk/Worker.java``) is read
into a ``Listing`` once, here. A ``Layout`` is what the comparison spec needs of a run: its
columns and which cases it has. Before measuring (the conductor) a case is there when a
worker listed it; afterwards (the report) when it was measured, and then the "fastest pure
Python" rows can be placed too. A mode whose label adds one of ``FOLDS`` to an interpreter
that has a mode of its own ("3.11-portable": the native variant's portable C kernels) is
*folded*: its cases are rows ("native (portable kernels)") under that mode's column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, List, Mapping, Optional, Sequence, Tuple

from ..core.machine import interpreter_title
from .cases import Case
from .modes import Mode
from .targets import ALGORITHMS, Twin, VariantInfo

Member = Tuple[str, str]  # (mode label, case name)
#: What a folded mode's suffix means, in a row's name.
FOLDS = {"portable": "portable kernels"}


@dataclass(frozen=True)
class Listing:
    """What a mode's worker can run: its runtime's facts, its rows and its cases."""

    runtime: Mapping[str, Any] = field(default_factory=dict)
    variants: Mapping[str, VariantInfo] = field(default_factory=dict)
    cases: Tuple[str, ...] = ()
    batch_variant: Optional[str] = None
    batch_unavailable: Optional[str] = None
    metadata: Mapping[str, Any] = field(default_factory=dict)  # pyperf's, where it runs
    #: A styles run's: the file (``bench.catalog.styles``), and why this mode cannot run it
    #: (None: it can).
    styles: str = ""
    unavailable: Optional[str] = None

    @property
    def title(self) -> str:
        """ "CPython 3.14.0, JIT off", "PyPy 3.11.13 (PyPy 8.0.1)", "OpenJDK 17.0.15 (...)"."""
        return interpreter_title(dict(self.runtime)) if self.runtime else ""

    def as_json(self) -> Dict[str, Any]:
        return {
            "runtime": dict(self.runtime),
            "variants": {name: v.as_json() for name, v in self.variants.items()},
            "cases": list(self.cases),
            "batch": {"variant": self.batch_variant, "unavailable": self.batch_unavailable},
            "metadata": dict(self.metadata),
            **({"styles": self.styles, "unavailable": self.unavailable} if self.styles else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Listing:
        batch = data.get("batch") or {}
        return cls(
            dict(data.get("runtime") or {}),
            {n: VariantInfo.from_json(n, v) for n, v in (data.get("variants") or {}).items()},
            tuple(data.get("cases") or ()),
            batch.get("variant"),
            batch.get("unavailable"),
            dict(data.get("metadata") or {}),
            str(data.get("styles") or ""),
            data.get("unavailable") or None,
        )


@dataclass(frozen=True)
class Column:
    """One mode of a run: its program (an environment's python, a JDK's java) and listing."""

    mode: Mode
    program: str
    listing: Listing = field(default_factory=Listing)
    classpath: str = ""  # a JDK's: where the worker's classes are (bench envs compiles them)

    @property
    def label(self) -> str:
        return self.mode.label

    @property
    def implementation(self) -> str:
        """ "CPython", "PyPy", "OpenJDK" (from the worker; "" before it listed)."""
        return str(self.listing.runtime.get("implementation", ""))

    def variant(self, name: str) -> Optional[VariantInfo]:
        return self.listing.variants.get(name)

    def as_json(self) -> Dict[str, Any]:
        return {
            "program": self.program,
            "classpath": self.classpath,
            "mode": self.mode.as_json(),
            **self.listing.as_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Column:
        listing = Listing.from_json(data)
        return cls(
            Mode.from_json(data["mode"]),
            str(data["program"]),
            listing,
            str(data.get("classpath") or ""),
        )


class Layout:
    """A run's columns and cases, as the spec asks about them."""

    def __init__(
        self,
        columns: Sequence[Column],
        present: Collection[Member],
        time: Optional[Callable[[Member], float]] = None,
    ) -> None:
        self.present = set(present)
        self.time = time
        measured = {m for m, _ in self.present}
        self.all = [c for c in columns if c.label in measured]
        self.by = {c.label: c for c in self.all}
        self.cases = [(m, Case.parse(n)) for m, n in sorted(self.present)]
        self.columns = [c.label for c in self.all if self.folded(c.label) is None]
        order = dict.fromkeys(v for c in self.all for v in c.listing.variants)
        seen = {case.variant for m, case in self.cases if m in self.columns}
        self.order = [v for v in order if v in seen]

    def folded(self, label: str) -> Optional[str]:
        """The column a folded mode belongs under, or None for a column of its own."""
        mode = self.by[label].mode
        if mode.suffix not in FOLDS:
            return None
        home = [c.label for c in self.all if c.mode.interpreter == mode.interpreter]
        return next((x for x in home if self.by[x].mode.suffix not in FOLDS), None)

    def folds(self, column: str) -> Dict[str, str]:
        """The modes folded under ``column``, by suffix ("portable" -> "3.11-portable")."""
        return {c.mode.suffix: c.label for c in self.all if self.folded(c.label) == column}

    def info(self, variant: str) -> Tuple[str, Optional[Twin]]:
        found = [v for c in self.all if (v := c.variant(variant))]
        twin = next((v.twin for v in found if v.twin), None)
        return (found[0].kind if found else ""), twin

    def kind(self, variant: str) -> str:
        return self.info(variant)[0]

    def twin(self, variant: str) -> Optional[Twin]:
        return self.info(variant)[1]

    def interpreted(self) -> List[str]:
        return [v for v in self.order if self.kind(v) == "interpreted"]

    def algorithms(self) -> List[str]:
        found = {case.algorithm for _, case in self.cases}
        return [a for a in ALGORITHMS if a in found]

    def lengths(self, benchmark: str = "digest") -> List[int]:
        return sorted({c.length for _, c in self.cases if c.benchmark == benchmark})

    def length(self, preferred: int) -> int:
        """``preferred`` if digest ran at it, else the longest below it (else the shortest)."""
        lengths = self.lengths()
        below = [n for n in lengths if n <= preferred]
        return max(below) if below else (lengths[0] if lengths else preferred)

    def get(
        self, mode: str, benchmark: str, alg: str, variant: str, n: int, number: int = 1
    ) -> Optional[Member]:
        member = (mode, Case(benchmark, alg, variant, n, number).name)
        return member if member in self.present else None

    def fastest(self, mode: str, alg: str, n: int) -> Optional[str]:
        """The interpreted variant with the shortest digest time at ``n`` under ``mode``."""
        if self.time is None:
            return None
        timed = [
            (self.time(m), v)
            for v in self.interpreted()
            if (m := self.get(mode, "digest", alg, v, n))
        ]
        return min(timed)[1] if timed else None

    def nearest(self, mode: str, within: Sequence[str], alg: str, n: int) -> Optional[str]:
        """The mode of ``within`` whose streamlined digest time at ``n`` is nearest ``mode``'s
        (in ratio): the counterpart a reader can compare it with."""
        mine = self.get(mode, "digest", alg, "streamlined", n)
        if self.time is None or mine is None:
            return None
        timed = [
            (abs(math.log(self.time(m) / self.time(mine))), other)
            for other in within
            if (m := self.get(other, "digest", alg, "streamlined", n))
        ]
        return min(timed)[1] if timed else None

    def jit_pairs(self) -> List[Tuple[str, str]]:
        """(JIT off, JIT on) columns of one interpreter: 3.14 and 3.14-jit, pypy8-nojit and
        pypy8."""
        found = []
        for on in self.columns:
            mode = self.by[on].mode
            offs = [
                c
                for c in self.columns
                if self.by[c].mode.interpreter == mode.interpreter and not self.by[c].mode.jit
            ]
            if mode.jit and offs:
                found.append((offs[0], on))
        return found
