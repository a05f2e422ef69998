"""The measuring process under each Python mode: ``python -m bench.conduct.worker``.

It answers the study's protocol (``bench.core.protocol``) on stdin and stdout: what this
interpreter runs of the study (``list``), the cases of a group prepared and their values one at
a time (``prepare``, ``value``), a digest for the tests (``hash``) and any bench function for
the profilers and checks (``call``). The conductor asks for one value at a time, of every case
of a group under every mode in turn, so that values of two variants, or of one variant under
two modes, are taken back to back. Runs under CPython 3.9+ and PyPy with the installed
``variants`` (and pyperf, for its metadata, where it is installed); given a styles file
(``bench.catalog.styles``: ``list`` and ``prepare`` with ``styles``), it runs that file's
cases, on the standard library alone (no ``variants``: nothing at module level imports it).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from ..catalog import styles, targets
from ..catalog.cases import (
    STYLES,
    Case,
    Grid,
    batch_api,
    block_size,
    check,
    enumerate_cases,
    make_timer,
)
from ..catalog.targets import Target, VariantInfo
from ..core.machine import interpreter_info
from ..core.protocol import serve
from ..core.timing import JIT_WARM, PYPY_JIT_BLOCKS, PYPY_JIT_CALLS, Jit, Timed, TimeFunc

#: This package's import name (``bench`` in a clone, the tool's own where installed): the
#: root of the functions ``call`` runs.
PACKAGE = (__spec__.name if __spec__ else __name__).split(".")[0]


def pyperf_metadata() -> Dict[str, Any]:
    """pyperf's metadata of this process (Python, CPU, system), for its JSON files."""
    try:
        import pyperf
    except ImportError:
        return {}
    metadata: Dict[str, Any] = pyperf.Run([1.0], collect_metadata=True).get_metadata()
    for key in ("name", "loops", "duration", "unit", "date"):
        metadata.pop(key, None)
    return metadata


def jit_calls(case: Case, jit: bool) -> int:
    """The calls of its operation a case's warm-up takes at least: under PyPy's JIT, enough
    for its counters to come due (timing.PYPY_JIT_BLOCKS over the blocks an operation
    hashes, of 64 bytes, SHA-512's of 128); elsewhere none."""
    if not jit or sys.implementation.name != "pypy":
        return 0
    if case.benchmark == STYLES:  # a user's function: no blocks to count
        return PYPY_JIT_CALLS
    blocks = max(1, -(-case.nbytes // block_size(case.algorithm)))
    return -(-PYPY_JIT_BLOCKS // blocks)


class Server:
    """The cases of one pass under this interpreter, prepared group by group."""

    def __init__(self) -> None:
        self.targets: Dict[str, Target] = {}
        self.timed: Dict[str, Timed] = {}
        self.styles: Optional[styles.StylesFile] = None
        Jit.watch()

    def target(self, name: str) -> Target:
        if name not in self.targets:
            self.targets[name] = targets.load(name)
        return self.targets[name]

    def list(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """What this interpreter can run of the selection (``styles``: of a styles file)."""
        if request.get("styles"):
            return self.list_styles(str(request["styles"]))
        pypy_lib, references = bool(request.get("pypy_lib")), request.get("references", True)
        names = targets.select(request.get("variants") or [], pypy_lib, bool(references))
        loaded = [self.target(name) for name in names]
        grid = Grid.from_json(request.get("grid") or {})
        benchmarks = request.get("benchmarks") or ["digest", "getAndDigest", "block", "batch"]
        cases = enumerate_cases(loaded, request.get("algorithms") or targets.ALGORITHMS, grid,
                                benchmarks)  # fmt: skip
        batch_variant, batch_reason = batch_api()
        return {
            "runtime": interpreter_info(),
            "variants": {t.name: t.info().as_json() for t in loaded},
            "cases": [case.name for case in cases],
            "batch": {"variant": batch_variant, "unavailable": batch_reason or None},
            "metadata": pyperf_metadata(),
        }

    def list_styles(self, path: str) -> Dict[str, Any]:
        """The cases of a styles file, each style checked against the baseline at every size;
        a file this interpreter cannot import answers no case and why."""
        unavailable: Optional[str] = None
        wrong: Dict[str, str] = {}
        try:
            self.styles = styles.load(Path(path))
            wrong = styles.failures(self.styles)
        except styles.ConventionError:
            raise
        except BaseException as exc:  # SyntaxError, ImportError, the file's own errors
            unavailable = f"the file cannot run here: {styles.raised(exc)}"
        found = self.styles
        names = [] if found is None else [n for n in found.names if n not in wrong]
        infos = (
            {}
            if found is None
            else {
                n: VariantInfo(
                    n, "interpreted", found.describe(n), (found.stem,), unavailable=wrong.get(n)
                ).as_json()
                for n in found.names
            }
        )
        return {
            "runtime": interpreter_info(),
            "variants": infos,
            "cases": [c.name for c in found.cases(names)] if found and len(names) > 1 else [],
            "batch": {"variant": None, "unavailable": None},
            "metadata": pyperf_metadata(),
            "unavailable": unavailable,
            "styles": path,
        }

    def timer(self, case: Case, clock: str) -> TimeFunc:
        """A case's time function, its result checked first."""
        if case.benchmark == STYLES:
            assert self.styles is not None, "list the styles file first"
            why = styles.check(self.styles, case.variant, case.length)
            if why:
                raise RuntimeError(f"{case.name}: {why}")
            return styles.make_timer(self.styles, case, clock)
        target = self.target(case.variant)
        if target.unavailable:
            raise RuntimeError(f"{case.name}: {target.unavailable}")
        check(case, target)
        return make_timer(case, target, clock)

    def prepare(self, request: Dict[str, Any]) -> Dict[str, Any]:
        clock = str(request.get("clock", "cpu"))
        answer: Dict[str, Any] = {}
        if request.get("styles") and self.styles is None:
            self.styles = styles.load(Path(request["styles"]))
        for entry in request["cases"]:
            case = Case.parse(entry["name"])
            t = Timed(case.name, self.timer(case, clock))
            warm: Sequence[float] = request.get("jit_warm") or JIT_WARM
            jit, min_time = bool(request["jit"]), float(request["min_time"])
            t.prepare(min_time, warm, entry.get("loops"), jit, jit_calls(case, jit))
            self.timed[case.name] = t
            answer[case.name] = {
                "loops": t.loops,
                "seconds": t.last_wall,  # wall seconds of one value at these loops
                "prepare_seconds": t.elapsed,
                "warmups": t.warmups,
                "warmed": t.warmed,
            }
        return {"cases": answer}

    def value(self, request: Dict[str, Any]) -> Dict[str, Any]:
        t = self.timed[request["case"]]
        return {"value": t.value(), "wall": t.last_wall}

    def hash(self, request: Dict[str, Any]) -> Dict[str, Any]:
        h = self.target(request["variant"]).constructors[request["algorithm"]]()
        message, at = bytes.fromhex(request["message"]), 0
        for size in [*request.get("chunks", []), len(message)]:
            h.update(message[at : at + size])
            at += size
        return {"digest": h.hexdigest()}

    @staticmethod
    def call(request: Dict[str, Any]) -> Dict[str, Any]:
        module, function = str(request["function"]).rsplit(".", 1)
        found = getattr(importlib.import_module(f"{PACKAGE}.{module}"), function)
        return {"result": found(**request.get("kwargs", {}))}


def main() -> int:
    server = Server()
    ops = {"list": server.list, "prepare": server.prepare, "value": server.value,
           "hash": server.hash, "call": server.call}  # fmt: skip
    # The answers keep the process's stdout to themselves: whatever else writes there (a
    # function's print, an engine's C library) goes to stderr.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    serve(ops, sys.stdin, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
