"""The study's conductor (``nox -s bench``): every interpreter, variant and length, interleaved.

    python -m bench.study --python 3.11=/path/to/venv/bin/python --python pypy3.9=...
    python -m bench.study --mode quick --variants 'helpers*,streamlined' --lengths 64,16384

On a shared machine whose speed drifts, a ratio is only as good as the
closeness in time of its two measurements. The run makes ``passes`` passes;
each pass starts one worker process per interpreter (``bench.worker serve``:
a fresh process, so that process-to-process differences average out over the
passes) and walks the groups of cases (same mode, algorithm, length). For a
group, every worker prepares its cases (calibrates the loops, or reuses them,
and warms up: under PyPy until the JIT settles), then the conductor asks for
values one at a time, round by round: in each round every case under every
interpreter in turn. So two variants, or one variant under two interpreters,
are measured over the same stretch of time, and ``bench.stats`` turns their
values into ratios with intervals.

The budget is spent where the values are cheap and noisy: the first pass
calibrates and takes ``min_rounds`` rounds of every group; the later passes
share what is left of ``budget`` (seconds of measuring per interpreter) so
that every group gets about the same time, which gives a group of
millisecond values many rounds and a group of slow pure-Python cases, whose
long values average the machine's moods, the minimum. A case predicted from
its 16 KiB time to take longer than ``slow_limit`` seconds per operation is
left out (``default``: the pure-Python speed variants at 1 MiB, whose
throughput is flat from 16 KiB on; ``rigorous`` keeps them), and the report
says so.

Writes ``results/bench/<date-time>/``: ``study.json`` (the run: settings,
interpreters, variants, skipped cases, build times), ``values.json`` (every
value, by interpreter, case, pass and round: what the report reads), one
pyperf JSON per interpreter (``python -m pyperf compare_to`` works on them),
then runs ``bench.report``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

from bench import report
from bench.cases import Case, Grid
from bench.fmt import duration
from bench.layout import RESULTS, module_command
from bench.machine import cpu_label, interpreter_label, stamp

GroupKey = Tuple[str, str, int, int]
MODE_ORDER = ("digest", "getAndDigest", "block", "batch")


@dataclass(frozen=True)
class Settings:
    """How hard to measure; ``--mode`` picks one, options override fields."""

    passes: int
    #: Shortest value (seconds): loops are calibrated up to it.
    min_time: float
    #: Seconds of measuring per interpreter, all passes together.
    budget: float
    #: Rounds per group and pass: the first pass takes the least, later ones
    #: at least that and at most the most.
    min_rounds: int
    max_rounds: int
    #: A JIT's warm-up per case and process: (at least, at most) seconds.
    jit_warm: Tuple[float, float]
    grid: Grid = field(default_factory=Grid)
    #: Cases predicted to take longer per operation are left out (None: none).
    slow_limit: Optional[float] = None
    clock: str = "cpu"


SETTINGS: Dict[str, Settings] = {
    "quick": Settings(
        1, 0.001, 10.0, 3, 3, (0.05, 0.5), Grid((64, 1024, 16384), batches=((4096, 8),)), 0.25
    ),
    "default": Settings(3, 0.002, 50.0, 3, 10, (0.1, 1.5), Grid(), 0.1),
    "rigorous": Settings(
        5, 0.01, 600.0, 5, 40, (1.0, 5.0), Grid(get_max=1 << 20, block_max=16384), None
    ),
}


class StudyError(RuntimeError):
    """A worker failed: the run stops (its values would be of code that is wrong)."""


class Worker:
    """One interpreter's measuring process for one pass: requests in, answers out (JSON lines)."""

    def __init__(self, label: str, python: str, results: Path, log: IO[str]) -> None:
        self.label = label
        argv, env, cwd = module_command(python, "worker", "serve", results=results)
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=cwd,
            env=env,
            text=True,
            bufsize=1,
        )

    def ask(self, request: Dict[str, Any]) -> Dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise StudyError(f"{self.label}: the worker died (exit {self.process.wait()})")
        answer: Dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise StudyError(f"{self.label}: {answer['error']}")
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.process.stdin.close()
            self.process.wait()


@dataclass
class Interpreter:
    label: str
    python: str
    listing: Dict[str, Any]

    @property
    def jit(self) -> bool:
        return bool(self.listing["interpreter"]["implementation"] == "PyPy")


def list_interpreter(
    label: str, python: str, args: argparse.Namespace, grid: Grid, results: Path
) -> Interpreter:
    """Ask ``python`` what it can run of the selection."""
    options = ["--variants", args.variants, "--algorithms", args.algorithms]
    options += ["--modes", args.modes, "--grid", json.dumps(asdict(grid))]
    if args.pypy_lib:
        options.append("--pypy-lib")
    argv, env, cwd = module_command(python, "worker", "list", *options, results=results)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    if done.returncode:
        raise SystemExit(f"{label} ({python}) cannot list the cases:\n{done.stderr}")
    return Interpreter(label, python, json.loads(done.stdout))


def group_order(key: GroupKey) -> Tuple[int, int, int, str]:
    mode, algorithm, length, number = key
    return (MODE_ORDER.index(mode), length * number, number, algorithm)


@dataclass
class CaseData:
    """What the run took of one case under one interpreter."""

    loops: int = 0
    seconds: float = 0.0  # wall seconds per value, from the first pass
    prepare_seconds: float = 0.0
    runs: List[Dict[str, Any]] = field(default_factory=list)


class Study:
    """One run: passes of groups of rounds, the plan of the later passes, the values."""

    def __init__(
        self,
        interpreters: List[Interpreter],
        settings: Settings,
        folder: Path,
        results: Path,
        log: IO[str],
    ) -> None:
        self.interpreters = interpreters
        self.settings = settings
        self.folder = folder
        self.results = results
        self.log = log
        self.data: Dict[str, Dict[str, CaseData]] = {i.label: {} for i in interpreters}
        groups: Dict[GroupKey, None] = {}
        for interp in interpreters:
            for name in interp.listing["cases"]:
                groups[Case.parse(name).group] = None
        self.groups = sorted(groups, key=group_order)
        self.skipped: Dict[str, Dict[str, str]] = {i.label: {} for i in interpreters}
        self.rounds: Dict[GroupKey, int] = {}
        self.round_seconds: Dict[GroupKey, float] = {}
        self.prepare_seconds: Dict[GroupKey, float] = {}
        self.started = time.perf_counter()
        self.planned: Optional[float] = None
        #: The workers' stderr (tracebacks), one file for the run.
        self.worker_log = open(folder / "workers.log", "w")  # noqa: SIM115 (closed by run)

    def say(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def cases(self, interp: Interpreter, key: GroupKey) -> List[Case]:
        cases = [Case.parse(n) for n in interp.listing["cases"]]
        return [c for c in cases if c.group == key and c.name not in self.skipped[interp.label]]

    def too_slow(self, interp: Interpreter, case: Case) -> Optional[str]:
        """Why ``case`` is left out: predicted from a shorter digest to exceed slow_limit."""
        limit = self.settings.slow_limit
        if limit is None or case.mode != "digest":
            return None
        shorter = [
            (c.length, data.seconds / data.loops)
            for name, data in self.data[interp.label].items()
            if (c := Case.parse(name)).mode == "digest"
            and c.algorithm == case.algorithm
            and c.variant == case.variant
            and c.length < case.length
            and data.loops
        ]
        if not shorter:
            return None
        length, seconds = max(shorter)
        predicted = seconds * case.length / length
        if predicted <= limit:
            return None
        return (
            f"one operation would take about {predicted:.1f} s (from its {length}-byte time); "
            f"mode default leaves out cases slower than {limit} s per operation"
        )

    def run(self) -> Dict[str, Any]:
        s = self.settings
        for p in range(s.passes):
            workers = {
                i.label: Worker(i.label, i.python, self.results, self.worker_log)
                for i in self.interpreters
            }
            try:
                for key in self.groups:
                    self.group(p, key, workers)
            finally:
                for worker in workers.values():
                    worker.close()
            if p == 0 and s.passes > 1:
                self.plan()
        self.worker_log.close()
        return {
            "measure_seconds": time.perf_counter() - self.started,
            "rounds": {"/".join(map(str, k)): r for k, r in self.rounds.items()},
            "skipped": self.skipped,
        }

    def group(self, p: int, key: GroupKey, workers: Dict[str, Worker]) -> None:
        """Prepare the group's cases under every interpreter, then its rounds."""
        started = time.perf_counter()
        members: List[Tuple[Interpreter, Case]] = []
        for interp in self.interpreters:
            cases = self.cases(interp, key)
            if p == 0:
                for case in list(cases):
                    why = self.too_slow(interp, case)
                    if why:
                        self.skipped[interp.label][case.name] = why
                        cases.remove(case)
            if not cases:
                continue
            entries = [
                {"name": c.name, "loops": self.data[interp.label].get(c.name, CaseData()).loops}
                for c in cases
            ]
            answer = workers[interp.label].ask(
                {
                    "op": "prepare",
                    "cases": entries,
                    "min_time": self.settings.min_time,
                    "jit_warm": list(self.settings.jit_warm),
                    "clock": self.settings.clock,
                }
            )
            for case in cases:
                got = answer["cases"][case.name]
                data = self.data[interp.label].setdefault(case.name, CaseData())
                if p == 0:
                    data.loops, data.seconds = int(got["loops"]), float(got["seconds"])
                    data.prepare_seconds = float(got["prepare_seconds"])
                run = {"pass": p, "loops": int(got["loops"]), "warmups": got["warmups"]}
                run.update(settled=bool(got["settled"]), rounds=[], values=[])
                data.runs.append(run)
                members.append((interp, case))
        if not members:
            return
        prepared = time.perf_counter()
        rounds = self.settings.min_rounds if p == 0 else self.rounds.get(key, 1)
        variants = list(dict.fromkeys(case.variant for _, case in members))
        labels = [i.label for i in self.interpreters]
        for r in range(rounds):
            order = variants if r % 2 == 0 else variants[::-1]
            turn = labels[r % len(labels) :] + labels[: r % len(labels)]
            for variant in order:
                for label in turn:
                    for interp, case in members:
                        if interp.label == label and case.variant == variant:
                            answer = workers[label].ask({"op": "value", "case": case.name})
                            run = self.data[label][case.name].runs[-1]
                            run["rounds"].append(r)
                            run["values"].append(float(answer["value"]))
        ended = time.perf_counter()
        if p == 0:
            self.round_seconds[key] = (ended - prepared) / rounds
            self.prepare_seconds[key] = sum(
                self.data[i.label][c.name].seconds
                if not i.jit
                else self.data[i.label][c.name].prepare_seconds
                for i, c in members
            )
        mode, algorithm, length, number = key
        size = f"{length} B" + (f" x {number}" if number > 1 else "")
        elapsed = duration(time.perf_counter() - self.started)
        left = ""
        if self.planned is not None:
            left = f", ~{duration(max(0.0, self.planned - (ended - self.started)))} left"
        self.say(
            f"[pass {p + 1}/{self.settings.passes}, {elapsed}{left}] {mode} {algorithm} {size}: "
            f"{len(members)} cases, {rounds} rounds in {ended - started:.1f} s"
        )

    def plan(self) -> None:
        """Share what is left of the budget among the groups of the later passes.

        Every group gets about the same time per pass, in whole rounds between
        ``min_rounds`` and ``max_rounds``: water-filling on the time per group.
        """
        s = self.settings
        later = s.passes - 1
        elapsed = time.perf_counter() - self.started
        left = s.budget * len(self.interpreters) - elapsed
        left -= later * sum(self.prepare_seconds.values())
        costs = {k: max(c, 1e-6) for k, c in self.round_seconds.items()}

        def rounds_at(share: float) -> Dict[GroupKey, int]:
            return {
                k: max(s.min_rounds, min(s.max_rounds, math.floor(share / c)))
                for k, c in costs.items()
            }

        def spent(share: float) -> float:
            return later * sum(r * costs[k] for k, r in rounds_at(share).items())

        low, high = 0.0, max(costs.values()) * s.max_rounds
        for _ in range(50):
            middle = (low + high) / 2
            low, high = (middle, high) if spent(middle) <= left else (low, middle)
        self.rounds = rounds_at(low)
        self.planned = elapsed + spent(low) + later * sum(self.prepare_seconds.values())
        self.say(
            f"calibrated in {duration(elapsed)}; {later} more passes planned, "
            f"~{duration(self.planned - elapsed)}: "
            f"{min(self.rounds.values())}-{max(self.rounds.values())} rounds per group and pass"
        )

    def values_json(self) -> Dict[str, Any]:
        return {
            label: {name: asdict(data) for name, data in cases.items()}
            for label, cases in self.data.items()
        }


def pyperf_files(folder: Path, study: Dict[str, Any], values: Dict[str, Any]) -> Dict[str, str]:
    """One pyperf suite per interpreter, ``<label>.json``: one run per pass of each case."""
    try:
        import pyperf
    except ImportError:
        return {}
    written: Dict[str, str] = {}
    for label, cases in values.items():
        metadata_base = dict(study["interpreters"][label].get("metadata") or {})
        benchmarks = []
        for name, data in cases.items():
            case = Case.parse(name)
            runs = []
            for run in data["runs"]:
                if not run["values"]:
                    continue
                metadata = dict(metadata_base)
                metadata.update(
                    name=name,
                    loops=run["loops"],
                    unit="second",
                    variant=case.variant,
                    algorithm=case.algorithm,
                    mode=case.mode,
                    length=case.length,
                    study_pass=run["pass"],
                )
                warmups = [tuple(w) for w in run["warmups"]] or None
                runs.append(
                    pyperf.Run(
                        run["values"], warmups=warmups, metadata=metadata, collect_metadata=False
                    )
                )
            if runs:
                benchmarks.append(pyperf.Benchmark(runs))
        if benchmarks:
            path = folder / f"{label}.json"
            pyperf.BenchmarkSuite(benchmarks).dump(str(path), replace=True)
            written[label] = path.name
    return written


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
            f"{name}: {s.passes} passes, {s.budget:.0f} s of measuring per interpreter"
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
    parser.add_argument("--modes", default=",".join(MODE_ORDER), help="benchmark modes")
    parser.add_argument("--mode", choices=sorted(SETTINGS), default="default")
    parser.add_argument("--passes", type=int, help="override the mode's passes")
    parser.add_argument("--budget", type=float, help="seconds of measuring per interpreter")
    parser.add_argument("--clock", choices=("cpu", "wall"), help="cpu (default) or wall time")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    parser.add_argument("--no-report", action="store_true", help="measure only")
    parser.add_argument(
        "--envs",
        type=Path,
        default=RESULTS / "envs",
        help="where nox's bench_env records each environment (build times go in the report)",
    )
    return parser.parse_args(argv)


def builds(envs: Path, labels: Sequence[str]) -> Dict[str, Any]:
    """What the build of each interpreter's environment recorded of its times (setup.py)."""
    found: Dict[str, Any] = {}
    for label in labels:
        record = envs / f"{label}.json"
        if record.exists():
            build = json.loads(record.read_text()).get("build")
            if build:
                found[label] = build
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
    if args.lengths:
        lengths = tuple(int(n) for n in args.lengths.split(","))
        settings = replace(settings, grid=replace(settings.grid, lengths=lengths))
    pythons = parse_pythons(args.python)
    if args.interpreters:
        wanted = [x.strip() for x in args.interpreters.split(",") if x.strip()]
        missing = [label for label in wanted if label not in pythons]
        if missing:
            raise SystemExit(f"no environment for {missing}; have {sorted(pythons)}")
        pythons = {label: pythons[label] for label in wanted}
    started = time.time()
    folder = args.results / "bench" / stamp()
    folder.mkdir(parents=True, exist_ok=True)
    log = sys.stdout
    interpreters = [
        list_interpreter(label, python, args, settings.grid, args.results)
        for label, python in pythons.items()
    ]
    count = sum(len(i.listing["cases"]) for i in interpreters)
    log.write(
        f"bench: {len(interpreters)} interpreters ({', '.join(pythons)}), {count} cases, "
        f"mode {args.mode} ({settings.passes} passes, ~{duration(settings.budget * len(pythons))} "
        f"of measuring), {cpu_label()}\n  results: {folder}\n"
    )
    for interp in interpreters:
        for name, info in interp.listing["variants"].items():
            if info["unavailable"]:
                log.write(f"  {interp.label}: {name} unavailable: {info['unavailable']}\n")
    study = Study(interpreters, settings, folder, args.results, log)
    outcome = study.run()
    values = study.values_json()
    record: Dict[str, Any] = {
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
                "batch": i.listing["batch"],
                "metadata": i.listing["metadata"],
            }
            for i in interpreters
        },
    }
    (folder / "values.json").write_text(json.dumps(values))
    files = pyperf_files(folder, record, values)
    for label, name in files.items():
        record["interpreters"][label]["file"] = name
    (folder / "study.json").write_text(json.dumps(record, indent=1))
    log.write(
        f"measured in {duration(outcome['measure_seconds'])}; pyperf JSON: "
        f"{', '.join(files.values()) or 'none (pyperf is not installed here)'}\n"
    )
    if not args.no_report:
        report.main([str(folder)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
