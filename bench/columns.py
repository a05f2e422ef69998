"""The modes of a run: each a column of the study, in its interpreter's environment.

``--python LABEL=PATH`` names an interpreter of ``bench.interpreters`` and its
environment's python (``--pythons FILE``: JSON ``{label: path}``, as ``bench
envs`` records it); every mode of that interpreter becomes a column (``--modes``
to choose), and ``Column.command`` starts a bench module in one: the
interpreter's launcher (a Debian tree's entry script), the mode's options and
environment (``PYTHON_JIT=1``, ``--jit off``, ``VARIANTS_NATIVE_PORTABLE=1``).
``pairs`` says which ratios between the cases of the columns the study settles.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Set, Tuple

from bench import interpreters
from bench.cases import Case, Grid
from bench.layout import RESULTS, module_command
from bench.machine import interpreter_label

Member = Tuple[str, str]  # (mode label, case name)


@dataclass
class Column:
    """One mode of the run: where its interpreter is, and what it can run (its listing)."""

    mode: interpreters.Mode
    python: str
    listing: Dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.mode.label

    def record(self) -> Dict[str, Any]:
        """What study.json records of the mode: interpreter, environment, arguments, JDK role."""
        m = self.mode
        return {"label": m.label, "interpreter": m.interpreter, "env": dict(m.env),
                "args": list(m.args), "variants": m.variants, "jdk": m.jdk}  # fmt: skip

    @property
    def jit(self) -> bool:
        """A tracing JIT to warm up: PyPy, unless run with ``--jit off``."""
        pypy = self.listing["interpreter"]["implementation"] == "PyPy"
        return pypy and "off" not in self.mode.args

    def command(
        self, module: str, *args: str, results: Path, before: Sequence[str] = ()
    ) -> Tuple[List[str], Dict[str, str], Path]:
        """(argv, environment, working directory) of ``bench.<module> ARGS`` in this mode;
        ``before`` goes before the interpreter (inside a Debian tree: valgrind)."""
        base, env, cwd = module_command(self.python, module, *args, results=results)
        if self.mode.interpreter not in {i.label for i in interpreters.INTERPRETERS}:
            return [*before, *base], env, cwd  # outside the table ("--python here=...")
        argv, extra = interpreters.command(self.mode, base[0], *base[1:])
        at = len(interpreters.launcher(interpreters.interpreter(self.mode.interpreter)))
        return [*argv[:at], *before, *argv[at:]], {**env, **extra}, cwd

    def run_json(
        self, module: str, *args: str, results: Path = RESULTS, errors: bool = False
    ) -> Any:
        """Run ``bench.<module> ARGS`` in this mode; its standard output, read as JSON (its
        standard error kept for the message if it fails, or shown as it comes: ``errors``)."""
        argv, env, cwd = self.command(module, *args, results=results)
        stderr = None if errors else subprocess.PIPE
        done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=stderr)
        if done.returncode:
            why = done.stderr.decode(errors="replace") if done.stderr else "(above)"
            raise SystemExit(f"{self.label} ({self.python}): bench.{module} failed: {why}")
        return json.loads(done.stdout)

    def call(self, function: str, results: Path = RESULTS, **kwargs: Any) -> Any:
        """``bench.<function>(**kwargs)`` ("bytecode.count") in this mode; what it returns
        (its standard error shown as it comes)."""
        return self.run_json("layout", function, json.dumps(kwargs), results=results, errors=True)

    def list(self, args: argparse.Namespace, grid: Grid, results: Path) -> None:
        options = ["--variants", self.mode.variants or args.variants]
        options += ["--algorithms", args.algorithms, "--modes", args.benchmarks]
        options += ["--grid", json.dumps(asdict(grid))]
        options += ["--pypy-lib"] if args.pypy_lib else []
        options += ["--no-references"] if self.mode.variants else []
        self.listing = self.run_json("worker", "list", *options, results=results)


def pythons_of(args: argparse.Namespace) -> Dict[str, str]:
    """{interpreter label: its environment's python}: ``--python LABEL=PATH`` (repeat) and
    ``--pythons FILE`` (JSON, as ``bench envs`` records it); none: the running interpreter."""
    found: Dict[str, str] = json.loads(args.pythons.read_text()) if args.pythons else {}
    for value in args.python:
        label, sep, path = value.partition("=")
        if not sep:
            raise SystemExit(f"--python wants LABEL=PATH, got {value!r}")
        found[label] = path
    return found or {interpreter_label(): sys.executable}


def columns_of(args: argparse.Namespace) -> List[Column]:
    """The modes to measure (``--modes``, default every mode of the interpreters given)."""
    pythons = pythons_of(args)
    known = {i.label for i in interpreters.INTERPRETERS}
    if args.modes:
        modes = interpreters.select(args.modes)
        missing = sorted({m.interpreter for m in modes} - set(pythons))
        if missing:
            raise SystemExit(f"no environment for {missing}; have {sorted(pythons)}")
    else:
        modes = tuple(m for m in interpreters.MODES if m.interpreter in pythons)
    # An interpreter outside the table is one plain mode of its own.
    plain = [interpreters.Mode(x, x, {}, (), None, "") for x in pythons if x not in known]
    return [Column(m, pythons[m.interpreter]) for m in (*modes, *plain)]


def anchors(column: Column, variant: str) -> Set[str]:
    """The rows a variant's ratios in one mode are taken against: hashlib (every table);
    for pure Python and compiled twins, the helper style and the twin's source."""
    info = column.listing.get("variants", {}).get(variant, {})
    against = {"hashlib"}
    if info.get("kind") == "interpreted" or info.get("source"):
        against |= {"helpers", info.get("source") or "helpers"}
    return against - {variant}


def pairs(members: Sequence[Member], columns: Sequence[Column]) -> Iterator[Tuple[Member, Member]]:
    """The ratios a group settles: in one mode, each row against its anchors; one variant
    under two modes of one interpreter, or under a mode and the first."""
    by = {c.label: c for c in columns}
    first = columns[0].label
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            va, vb = Case.parse(a[1]).variant, Case.parse(b[1]).variant
            if a[0] == b[0]:
                if vb in anchors(by[a[0]], va) or va in anchors(by[a[0]], vb):
                    yield a, b
            elif va == vb and (by[a[0]].mode.interpreter == by[b[0]].mode.interpreter
                               or first in (a[0], b[0])):  # fmt: skip
                yield a, b
