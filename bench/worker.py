"""The measuring process: one per interpreter and pass, driven by the study's conductor.

    python -m bench.worker list --variants 'helpers*' --algorithms md5   # JSON: what runs here
    python -m bench.worker serve        # JSON lines on stdin, one answer per line on stdout

``serve`` answers the conductor (``bench.study``), one request per line:

``{"op": "prepare", "cases": [{"name": ..., "loops": null}], "min_time": ..., "jit": ...}``
    load the cases, check that each computes the right digest, calibrate (or
    take the known loops) and warm up; answers each case's loops, seconds per
    value and warm-ups;
``{"op": "value", "case": NAME}``
    take one value of a prepared case: seconds per operation;
``{"op": "quit"}``
    end.

``pyperf_files`` writes the values of a run as pyperf's JSON, one suite per mode.

The conductor asks for one value at a time, of every case of a group under
every interpreter in turn, so that values of two variants, or of one variant
under two interpreters, are taken back to back. Runs under CPython 3.9+ and
PyPy with the installed ``variants`` (and pyperf, for its metadata).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Sequence

from bench import targets, timing
from bench.cases import Case, Grid, batch_api, check, enumerate_cases, make_timer
from bench.machine import interpreter_info
from bench.targets import Target
from bench.timing import Jit, Timed


def _csv(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


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


def pyperf_files(folder: Path, study: Dict[str, Any], values: Dict[str, Any]) -> Dict[str, str]:
    """One pyperf suite per mode, ``<label>.json``: one run per pass of each case."""
    try:
        import pyperf
    except ImportError:
        return {}
    written: Dict[str, str] = {}
    for label, cases in values.items():
        base = dict(study["interpreters"][label].get("metadata") or {})
        benchmarks = []
        for name, data in cases.items():
            case = Case.parse(name)
            meta = {"name": name, "unit": "second", "variant": case.variant, "mode": case.mode,
                    "algorithm": case.algorithm, "length": case.length}  # fmt: skip
            runs = [
                pyperf.Run(
                    run["values"],
                    warmups=[tuple(w) for w in run["warmups"]] or None,
                    metadata={**base, **meta, "loops": run["loops"], "study_pass": run["pass"]},
                    collect_metadata=False,
                )
                for run in data["runs"]
                if run["values"]
            ]
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = folder / f"{label}.json"
            pyperf.BenchmarkSuite(benchmarks).dump(str(path), replace=True)
            written[label] = path.name
    return written


def listing(args: argparse.Namespace) -> Dict[str, Any]:
    """What this interpreter can run of the selection, as JSON for the conductor."""
    names = targets.select(_csv(args.variants), args.pypy_lib, not args.no_references)
    loaded = [targets.load(name) for name in names]
    grid = Grid(**json.loads(args.grid)) if args.grid else Grid()
    cases = enumerate_cases(loaded, _csv(args.algorithms), grid, _csv(args.modes))
    batch_variant, batch_reason = batch_api()
    return {
        "interpreter": interpreter_info(),
        "variants": {t.name: t.info() for t in loaded},
        "cases": [case.name for case in cases],
        "batch": {"variant": batch_variant, "unavailable": batch_reason or None},
        "metadata": pyperf_metadata(),
    }


class Server:
    """The cases of one pass under this interpreter, prepared group by group."""

    def __init__(self) -> None:
        self.targets: Dict[str, Target] = {}
        self.timed: Dict[str, Timed] = {}
        Jit.watch()

    def target(self, name: str) -> Target:
        if name not in self.targets:
            self.targets[name] = targets.load(name)
        return self.targets[name]

    def prepare(self, request: Dict[str, Any]) -> Dict[str, Any]:
        clock = str(request.get("clock", "cpu"))
        answer: Dict[str, Any] = {}
        for entry in request["cases"]:
            case = Case.parse(entry["name"])
            target = self.target(case.variant)
            if target.unavailable:
                raise RuntimeError(f"{case.name}: {target.unavailable}")
            check(case, target)
            t = Timed(case.name, make_timer(case, target, clock))
            jit = bool(request.get("jit", timing.PYPY))
            t.prepare(float(request["min_time"]), request["jit_warm"], entry.get("loops"), jit)
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
        value = t.value()
        return {"value": value, "wall": t.last_wall, "jit": t.last_jit_events}

    def serve(self, incoming: IO[str], outgoing: IO[str]) -> None:
        for line in incoming:
            request = json.loads(line)
            op = request["op"]
            if op == "quit":
                return
            reply: Optional[Dict[str, Any]] = None
            try:
                reply = self.prepare(request) if op == "prepare" else self.value(request)
            except Exception as exc:  # the conductor reports it and stops
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            outgoing.write(json.dumps(reply) + "\n")
            outgoing.flush()


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    lister = commands.add_parser("list", help="print what this interpreter can run, as JSON")
    lister.add_argument("--variants", default="", help="names or globs, comma-separated")
    lister.add_argument("--algorithms", default=",".join(targets.ALGORITHMS))
    lister.add_argument("--modes", default="digest,getAndDigest,block,batch")
    lister.add_argument("--grid", default="", help="cases.Grid's fields as JSON")
    lister.add_argument("--pypy-lib", action="store_true")
    lister.add_argument("--no-references", action="store_true", help="no hashlib/builtin rows")
    commands.add_parser("serve", help="answer the conductor's requests on stdin")
    args = parser.parse_args(argv)
    if args.command == "list":
        json.dump(listing(args), sys.stdout)
    else:
        Server().serve(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
