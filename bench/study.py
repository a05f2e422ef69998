"""The study's driver (``nox -s bench``): every interpreter, variant and length, interleaved.

    python bench/study.py --python 3.11=/path/to/venv/bin/python --python pypy3.9=...
    python bench/study.py --mode quick --variants 'helpers*,streamlined' --lengths 64,16384

On a shared machine whose speed drifts by tens of percent over minutes, a ratio
is only as good as the closeness in time of its two measurements. So nothing is
measured in one block: the run makes ``passes`` passes; each pass walks the
message lengths, and at each length every interpreter in turn measures its
cases in a fresh worker process (``worker.py run``), the variants of each
(algorithm, mode) group interleaved value by value. Ratios between variants
pair values taken back to back; ratios between interpreters compare medians
taken over the same stretch of time. Times are the process's CPU time
(``--clock wall`` for wall-clock time).

The first pass calibrates (loops per value, warm-up, time per value; under
PyPy, each case warms up until the JIT stops compiling, within bounds); the
remaining passes are then planned to fit the time budget: each case gets as
many values per pass as a per-case allowance buys (at most ``max_values``), and
a case whose warm-up and single value cost more than the allowance (the
pure-Python variants on 1 MiB under CPython, PyPy's long JIT warm-ups) is
measured only every few passes, whole: a value is always a complete operation
on the whole message, never a shortcut. Modes: ``quick`` (one pass, up to
16 KiB: a smoke test), ``default`` (about 10 minutes for five interpreters on
two cores), ``rigorous`` (six passes, longer values and warm-ups, 15 minutes
per interpreter).

Each interpreter's values end up in one pyperf JSON file under
``results/bench/<date-time>/`` (``python -m pyperf compare_to`` works on them),
then ``report.py`` writes the report and plots.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

import pyperf
from cases import LENGTHS, MODES, Case, interpreter_label
from machine import RESULTS, cpu_label, duration, stamp

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Settings:
    """How hard to measure; ``--mode`` picks one, options override fields."""

    passes: int
    #: Shortest value (seconds): loops are calibrated up to it.
    min_time: float
    #: Most values per case per pass.
    max_values: int
    #: Measuring time per interpreter (seconds), all passes together.
    budget: float
    #: PyPy's warm-up per case and process: (at least, at most) seconds.
    pypy_warm: Tuple[float, float]
    lengths: Tuple[int, ...] = LENGTHS
    #: CPython cases slower than this (seconds per operation) get no separate warm-up.
    slow: float = 0.25
    clock: str = "cpu"


SETTINGS: Dict[str, Settings] = {
    "quick": Settings(1, 0.005, 3, 40.0, (0.15, 1.0), (64, 1024, 16384)),
    "default": Settings(3, 0.01, 5, 60.0, (0.3, 2.0)),
    "rigorous": Settings(6, 0.05, 10, 900.0, (1.0, 5.0)),
}


def measure(python: str, plan: Dict[str, Any], folder: Path, stem: str) -> Dict[str, Any]:
    """Have a fresh ``worker.py run`` process under ``python`` measure ``plan``; its feedback.

    A fresh process per interpreter, pass and length: what a JIT compiled for
    one length never shapes the numbers of another, and every pass samples a
    new process, as pyperf's own worker processes do.
    """
    plan_file = folder / f"{stem}.plan.json"  # (not with_suffix: "3.11-..." has a dot)
    plan_file.write_text(json.dumps(plan))
    feedback = folder / f"{stem}.feedback.json"
    command = [python, str(BENCH / "worker.py"), "run", "--plan", str(plan_file)]
    command += ["--out", str(folder / f"{stem}.json"), "--feedback", str(feedback)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(command, check=True, env=env)
    result: Dict[str, Any] = json.loads(feedback.read_text())
    return result


@dataclass
class Interpreter:
    label: str
    python: str
    listing: Dict[str, Any]

    @property
    def pypy(self) -> bool:
        return bool(self.listing["interpreter"]["implementation"] == "PyPy")

    def cases(self, length: int) -> List[str]:
        return [name for name in self.listing["cases"] if Case.parse(name).length == length]


def list_interpreter(label: str, python: str, args: argparse.Namespace) -> Interpreter:
    """Ask ``python`` what it can run of the selection."""
    command = [python, str(BENCH / "worker.py"), "list", "--variants", args.variants]
    command += ["--algorithms", args.algorithms, "--lengths", args.lengths, "--modes", args.modes]
    if args.block_lengths:
        command += ["--block-lengths", args.block_lengths]
    if args.pypy_lib:
        command.append("--pypy-lib")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(f"{label} ({python}) cannot list the cases:\n{done.stderr}")
    listing: Dict[str, Any] = json.loads(done.stdout)
    return Interpreter(label, python, listing)


def per_pass(
    fb: Dict[str, Any], allowance: float, settings: Settings, pypy: bool
) -> Tuple[int, int, float]:
    """(every how many passes, values, seconds) for one case in the later passes.

    A case costs its warm-up (PyPy: until the JIT settles, as long as in the
    first pass; CPython: one value, none if slow) plus its values. If warm-up
    and one value fit in ``allowance``, the case takes as many values as fit
    (at most ``max_values``) in every pass; if not, one value every so many
    passes, so that on average it keeps to the allowance.
    """
    t = max(float(fb["value_time"]), 1e-9)
    warm = float(fb["warm_time"]) if pypy else (0.0 if t >= settings.slow else t)
    if warm + t > allowance:
        return math.ceil((warm + t) / allowance), 1, warm + t
    values = max(1, min(settings.max_values, int((allowance - warm) / t)))
    return 1, values, warm + values * t


def plan_cost(
    feedback: Dict[str, Dict[str, Any]], pypy: bool, allowance: float, settings: Settings
) -> float:
    """Seconds the later passes take for one interpreter at ``allowance`` per case and pass."""
    total = 0.0
    for fb in feedback.values():
        every, _, seconds = per_pass(fb, allowance, settings, pypy)
        total += seconds * sum(1 for p in range(1, settings.passes) if p % every == 0)
    return total


def fit_allowance(total: float, costs: Sequence[Any], settings: Settings) -> float:
    """The largest per-case, per-pass allowance whose later passes fit in ``total`` seconds."""
    low, high = settings.min_time, 120.0
    if sum(cost(low) for cost in costs) >= total:
        return low
    for _ in range(40):
        middle = math.sqrt(low * high)
        if sum(cost(middle) for cost in costs) <= total:
            low = middle
        else:
            high = middle
    return low


class Study:
    """One run of the study: plans, workers, progress, results."""

    def __init__(
        self, interpreters: List[Interpreter], settings: Settings, folder: Path, log: IO[str]
    ) -> None:
        self.interpreters = interpreters
        self.settings = settings
        self.folder = folder
        self.raw = folder / "raw"
        self.raw.mkdir(parents=True, exist_ok=True)
        self.log = log
        self.lengths = sorted(
            {Case.parse(n).length for i in interpreters for n in i.listing["cases"]}
        )
        self.feedback: Dict[str, Dict[str, Dict[str, Any]]] = {i.label: {} for i in interpreters}
        self.overhead: Dict[str, float] = {i.label: 0.0 for i in interpreters}
        self.unavailable: Dict[str, Dict[str, str]] = {i.label: {} for i in interpreters}
        self.started = time.perf_counter()
        self.steps_done = 0
        self.steps = settings.passes * len(self.lengths) * len(interpreters)
        self.predicted: Dict[Tuple[int, str, int], float] = {}
        self.allowance: Optional[float] = None

    def say(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def first_plan(self, names: List[str]) -> Dict[str, Any]:
        return {"cases": [{"name": n} for n in names]}

    def later_plan(self, label: str, pypy: bool, names: List[str], p: int) -> Dict[str, Any]:
        assert self.allowance is not None
        entries = []
        for name in names:
            fb = self.feedback[label].get(name)
            if fb is None:
                continue
            every, values, _ = per_pass(fb, self.allowance, self.settings, pypy)
            if p % every:
                continue
            t = float(fb["value_time"])
            warmups = None if pypy else (0 if t >= self.settings.slow else 1)
            entry = {"name": name, "loops": fb["loops"], "values": values, "value_time": t}
            entry["warmups"] = warmups
            entries.append(entry)
        return {"cases": entries}

    def progress(self, p: int, interp: Interpreter, length: int, count: int) -> str:
        elapsed = time.perf_counter() - self.started
        where = f"pass {p + 1}/{self.settings.passes}, step {self.steps_done + 1}/{self.steps}"
        left = ""
        if self.predicted:
            remaining = sum(v for k, v in self.predicted.items() if k[0] >= p) + sum(
                self.overhead.values()
            ) * (self.settings.passes - p)
            left = f", ~{duration(remaining)} left"
        kind = interp.listing["interpreter"]["implementation"]
        return (
            f"[{where}, {duration(elapsed)} elapsed{left}] {kind} {interp.label}: "
            f"{count} cases of {length} bytes"
        )

    def run(self) -> Dict[str, Any]:
        s = self.settings
        for p in range(s.passes):
            order = self.interpreters[p % len(self.interpreters) :]
            order += self.interpreters[: p % len(self.interpreters)]
            for length in self.lengths:
                for interp in order:
                    self.step(p, interp, length)
            if p == 0 and s.passes > 1:
                self.plan_later_passes()
        return {
            "measure_seconds": time.perf_counter() - self.started,
            "allowance": self.allowance,
            "unavailable": self.unavailable,
        }

    def step(self, p: int, interp: Interpreter, length: int) -> None:
        names = interp.cases(length)
        if p == 0:
            plan = self.first_plan(names)
        else:
            plan = self.later_plan(interp.label, interp.pypy, names, p)
        self.predicted.pop((p, interp.label, length), None)
        if plan["cases"]:
            s = self.settings
            plan.update(
                label=interp.label,
                min_time=s.min_time,
                slow=s.slow,
                budget=s.min_time * 3,  # the first pass: up to 3 values per case
                max_values=s.max_values,
                pypy_warm=list(s.pypy_warm),
                clock=s.clock,
                **{"pass": p},
            )
            self.say(self.progress(p, interp, length, len(plan["cases"])))
            fb = measure(interp.python, plan, self.raw, f"{interp.label}-pass{p + 1}-{length}")
            if p == 0:
                self.feedback[interp.label].update(fb["cases"])
                self.unavailable[interp.label].update(fb["unavailable"])
                spent = sum(float(c["elapsed"]) for c in fb["cases"].values())
                self.overhead[interp.label] += max(0.0, float(fb["wall"]) - spent)
        self.steps_done += 1

    def plan_later_passes(self) -> None:
        """Spend what is left of the budget on the remaining passes (see the module's docstring)."""
        s = self.settings
        elapsed = time.perf_counter() - self.started
        overheads = sum(self.overhead.values()) * (s.passes - 1)
        left = s.budget * len(self.interpreters) - elapsed - overheads
        costs = [
            (lambda a, fb=self.feedback[i.label], pypy=i.pypy: plan_cost(fb, pypy, a, s))
            for i in self.interpreters
        ]
        self.allowance = fit_allowance(left, costs, s)
        for interp in self.interpreters:
            for name, fb in self.feedback[interp.label].items():
                every, _, seconds = per_pass(fb, self.allowance, s, interp.pypy)
                length = Case.parse(name).length
                for p in range(1, s.passes):
                    if p % every == 0:
                        key = (p, interp.label, length)
                        self.predicted[key] = self.predicted.get(key, 0.0) + seconds
        planned = sum(self.predicted.values()) + overheads
        self.say(
            f"calibrated in {duration(elapsed)}; {s.passes - 1} more passes planned "
            f"(~{duration(planned)}, {self.allowance * 1000:.0f} ms per case and pass)"
        )


def merge(folder: Path, labels: Sequence[str]) -> Dict[str, Path]:
    """One pyperf suite per interpreter from the workers' files: ``<label>.json``."""
    merged: Dict[str, Path] = {}
    for label in labels:
        suite: Any = None
        for path in sorted((folder / "raw").glob(f"{label}-pass*-*.json")):
            if path.name.endswith((".feedback.json", ".plan.json")):
                continue
            part = pyperf.BenchmarkSuite.load(str(path))
            if suite is None:
                suite = part
            else:
                suite.add_runs(part)
        if suite is not None:
            target = folder / f"{label}.json"
            suite.dump(str(target), replace=True)
            merged[label] = target
    return merged


def parse_pythons(values: Sequence[str]) -> Dict[str, str]:
    """``LABEL=PATH`` options; none: the running interpreter."""
    if not values:
        return {interpreter_label(): sys.executable}
    pythons = {}
    for value in values:
        label, sep, path = value.partition("=")
        if not sep:
            raise SystemExit(f"--python wants LABEL=PATH, got {value!r}")
        pythons[label] = path
    return pythons


def arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="modes: "
        + "; ".join(
            f"{name}: {s.passes} passes, {s.budget:.0f} s per interpreter"
            for name, s in SETTINGS.items()
        ),
    )
    parser.add_argument(
        "--python", action="append", default=[], help="LABEL=PATH of an interpreter (repeat)"
    )
    parser.add_argument("--interpreters", default="", help="labels to run, comma-separated")
    parser.add_argument("--variants", default="", help="names or globs (default: all)")
    parser.add_argument("--pypy-lib", action="store_true", help="add PyPy's _md5/_sha256 row")
    parser.add_argument("--algorithms", default="md5,sha256")
    parser.add_argument("--lengths", default="", help="bytes, comma-separated")
    parser.add_argument("--block-lengths", default="", help="block-only lengths (default ≤16 KiB)")
    parser.add_argument("--modes", default=",".join(MODES), help="benchmark modes")
    parser.add_argument("--mode", choices=sorted(SETTINGS), default="default")
    parser.add_argument("--passes", type=int, help="override the mode's passes")
    parser.add_argument("--budget", type=float, help="seconds of measuring per interpreter")
    parser.add_argument("--clock", choices=("cpu", "wall"), help="cpu (default) or wall time")
    parser.add_argument("--results", type=Path, default=RESULTS / "bench")
    parser.add_argument("--no-report", action="store_true", help="measure and merge only")
    parser.add_argument(
        "--envs",
        type=Path,
        default=RESULTS / "envs",
        help="where nox's bench_env records each environment (build times go in the report)",
    )
    return parser.parse_args(argv)


def builds(envs: Path, labels: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """Seconds per extension of the build installed in each interpreter's environment."""
    found: Dict[str, Dict[str, float]] = {}
    for label in labels:
        record = envs / f"{label}.json"
        if record.exists():
            seconds = json.loads(record.read_text()).get("build_seconds") or {}
            if seconds:
                found[label] = {str(k): float(v) for k, v in seconds.items()}
    return found


def main(argv: Sequence[str]) -> int:
    args = arguments(argv)
    settings = SETTINGS[args.mode]
    if args.passes:
        settings = replace(settings, passes=args.passes)
    if args.budget:
        settings = replace(settings, budget=args.budget)
    if args.clock:
        settings = replace(settings, clock=args.clock)
    if not args.lengths:
        args.lengths = ",".join(str(n) for n in settings.lengths)
    pythons = parse_pythons(args.python)
    if args.interpreters:
        wanted = [x.strip() for x in args.interpreters.split(",") if x.strip()]
        missing = [label for label in wanted if label not in pythons]
        if missing:
            raise SystemExit(f"no environment for {missing}; have {sorted(pythons)}")
        pythons = {label: pythons[label] for label in wanted}
    started = time.time()
    folder = args.results / stamp()
    log = sys.stdout
    interpreters = [list_interpreter(label, python, args) for label, python in pythons.items()]
    count = sum(len(i.listing["cases"]) for i in interpreters)
    log.write(
        f"bench: {len(interpreters)} interpreters ({', '.join(pythons)}), {count} cases, "
        f"mode {args.mode} ({settings.passes} passes, ~{duration(settings.budget * len(pythons))} "
        f"of measuring), {cpu_label()}\n  results: {folder}\n"
    )
    for interp in interpreters:
        absent = {
            n: v["unavailable"] for n, v in interp.listing["variants"].items() if v["unavailable"]
        }
        for name, reason in absent.items():
            log.write(f"  {interp.label}: {name} unavailable: {reason}\n")
    study = Study(interpreters, settings, folder, log)
    outcome = study.run()
    merged = merge(folder, [i.label for i in interpreters])
    info = {
        "mode": args.mode,
        "settings": asdict(settings),
        "arguments": list(argv),
        "cpu": cpu_label(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "wall_seconds": time.time() - started,
        **outcome,
        "builds": builds(args.envs, [i.label for i in interpreters]),
        "interpreters": {
            i.label: {
                "python": i.python,
                **i.listing["interpreter"],
                "variants": i.listing["variants"],
                "file": merged[i.label].name if i.label in merged else None,
            }
            for i in interpreters
        },
    }
    (folder / "study.json").write_text(json.dumps(info, indent=1))
    log.write(
        f"measured in {duration(outcome['measure_seconds'])}; pyperf JSON: "
        f"{', '.join(str(p) for p in merged.values())}\n"
    )
    if not args.no_report:
        import report

        report.main([str(folder)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
