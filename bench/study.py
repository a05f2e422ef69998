"""The study's conductor (``python -m bench run``): every mode, variant and length, interleaved.

The columns are *modes* (``bench.interpreters.MODES``: an interpreter run a
certain way, e.g. ``3.14-jit``, ``pypy8-nojit``, ``3.11-portable``), each in
its interpreter's environment (``--python 3.14=/path/to/venv/bin/python``;
several modes share one). A mode's ``variants`` glob limits its rows (the
portable "intrinsics off" modes measure ``native*`` only).

Each *pass* starts a fresh worker process per mode (``bench.worker serve``,
JMH's forks) and walks the groups of cases (same benchmark, algorithm, length):
every worker prepares the group's cases (calibrates the loops once, then reuses
them; warms up, under PyPy's JIT until it settles), then the conductor asks for
values one at a time, round by round, every case under every mode in turn, so
that the two sides of a ratio share the machine's moods (``bench.stats``).

**Measuring until sure.** Every group gets ``passes`` passes; then a group
keeps joining passes, with only the cases of its unsettled ratios, until each
of its ratios is *settled* (``bench.stats.Estimate.settled``: a 95 % rerun
interval over processes within ``stats.TARGET``) or its share of the budget is
spent (the budget left, shared equally among the groups still open, so the
time goes where the noise is). The ratios a group settles are those the report
shows (``pairs``): in one mode each row against hashlib, pure Python and the
compiled twins against the helper style and their source; one variant under two
modes of one interpreter (JIT on and off, portable kernels) and under each mode
against the first.

Writes ``results/bench/<date-time>/``: ``study.json`` (settings; each mode's
interpreter, environment, arguments and JDK role in ``interpreters[<mode>]["mode"]``;
each group's precision; the steal time), ``values.json`` (every value by mode,
case, pass and round) and one pyperf JSON per mode (for ``pyperf compare_to``).
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
from typing import IO, Any, Dict, List, Optional, Sequence, Set, Tuple

from bench import stats, worker
from bench.cases import Case, Grid
from bench.columns import Column, Member, pairs
from bench.fmt import duration
from bench.machine import cpu_label, cpu_ticks, stamp

GroupKey = Tuple[str, str, int, int]
BENCHMARKS = ("digest", "getAndDigest", "block", "batch")


@dataclass(frozen=True)
class Settings:
    """How hard to measure; ``--mode`` picks one, options override fields."""

    #: Passes every group takes; at most ``max_passes`` for the unsettled.
    passes: int
    max_passes: int
    #: Shortest value (seconds): loops are calibrated up to it.
    min_time: float
    #: Seconds of measuring in all (the workers' time), all modes and passes
    #: together; the first ``passes`` are taken whatever it is.
    budget: float
    #: Rounds per group and pass.
    rounds: int
    #: A JIT's warm-up per case and process: (at least, at most) seconds.
    jit_warm: Tuple[float, float]
    grid: Grid = field(default_factory=Grid)
    #: Cases predicted to take longer per operation are left out (None: none).
    slow_limit: Optional[float] = None
    clock: str = "cpu"
    target: float = stats.TARGET


SETTINGS: Dict[str, Settings] = {
    "quick": Settings(
        2, 2, 0.001, 90.0, 3, (0.05, 0.5), Grid((64, 1024, 16384), batches=((4096, 8),)), 0.25
    ),
    "default": Settings(3, 20, 0.001, 720.0, 8, (0.1, 1.0), Grid(), 0.1),
    "rigorous": Settings(
        5, 30, 0.01, 3600.0, 10, (1.0, 5.0), Grid(get_max=1 << 20, block_max=16384), None
    ),
}


class StudyError(RuntimeError):
    """A worker failed: the run stops (its values would be of code that is wrong)."""


class Worker:
    """One mode's measuring process for one pass: requests in, answers out (JSON lines)."""

    def __init__(self, column: Column, results: Path, log: IO[str]) -> None:
        self.label = column.label
        argv, env, cwd = column.command("worker", "serve", results=results)
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


def group_order(key: GroupKey) -> Tuple[int, int, int, str]:
    benchmark, algorithm, length, number = key
    return (BENCHMARKS.index(benchmark), length * number, number, algorithm)


@dataclass
class CaseData:
    """What the run took of one case under one mode."""

    loops: int = 0
    seconds: float = 0.0  # wall seconds per value, from the first pass
    cost: float = 0.0  # wall seconds of its last pass: preparing and values
    runs: List[Dict[str, Any]] = field(default_factory=list)

    def logs(self) -> Dict[int, float]:
        """log of its time in each process (pass) that took values."""
        return {r["pass"]: math.log(stats.time_of(r["values"])) for r in self.runs if r["values"]}


class Study:
    """One run: passes of groups of rounds until the ratios settle or the budget is spent."""

    def __init__(
        self, columns: List[Column], settings: Settings, folder: Path, results: Path, log: IO[str]
    ) -> None:
        self.columns, self.settings, self.results, self.log = columns, settings, results, log
        self.data: Dict[str, Dict[str, CaseData]] = {c.label: {} for c in columns}
        self.members: Dict[GroupKey, List[Member]] = {}
        for column in columns:
            for name in column.listing["cases"]:
                self.members.setdefault(Case.parse(name).group, []).append((column.label, name))
        self.groups = sorted(self.members, key=group_order)
        self.skipped: Dict[str, Dict[str, str]] = {c.label: {} for c in columns}
        self.spent = {key: 0.0 for key in self.groups}
        self.open: Dict[GroupKey, Set[Member]] = {k: set(m) for k, m in self.members.items()}
        self.passes = {key: 0 for key in self.groups}
        self.exhausted: Set[GroupKey] = set()
        self.overhead = {key: 1.0 for key in self.groups}
        self.started = time.perf_counter()
        self.steal: List[float] = []
        self.worker_log = open(folder / "workers.log", "w")  # noqa: SIM115 (closed by run)

    def say(self, text: str) -> None:
        self.log.write(text + "\n")
        self.log.flush()

    def too_slow(self, label: str, case: Case) -> Optional[str]:
        """Why ``case`` is left out: predicted from a shorter digest to exceed slow_limit."""
        limit = self.settings.slow_limit
        if limit is None or case.mode != "digest":
            return None
        shorter = [
            (c.length, data.seconds / data.loops)
            for name, data in self.data[label].items()
            if (c := Case.parse(name))[:3] == case[:3] and c.length < case.length and data.loops
        ]
        if not shorter:
            return None
        length, seconds = max(shorter)
        predicted = seconds * (case.length // 64 + 1) / (length // 64 + 1)  # blocks, padded
        if predicted <= limit:
            return None
        return (
            f"one operation would take about {predicted:.1f} s (from its {length}-byte time); "
            f"this mode of the study leaves out cases slower than {limit} s per operation"
        )

    def todo(self, p: int) -> Dict[GroupKey, Set[Member]]:
        """What pass ``p`` measures: everything in the first passes, then the unsettled
        cases of the groups whose next pass fits their share of what is left."""
        if p < self.settings.passes:
            return {k: set(self.members[k]) for k in self.groups}
        budget = self.settings.budget
        still = [k for k in self.groups if self.open[k] and k not in self.exhausted]
        closed = sum(s for k, s in self.spent.items() if k not in still)
        chosen = {}
        for key in still:
            share = (budget - closed) / len(still)
            cases = [self.data[m[0]][m[1]] for m in self.open[key] if m[1] in self.data[m[0]]]
            cost = sum(c.cost for c in cases) * self.overhead[key]
            if self.spent[key] + cost <= share:
                chosen[key] = self.open[key]
            else:
                self.exhausted.add(key)
        return chosen

    def run(self) -> Dict[str, Any]:
        ticks = cpu_ticks()
        p = 0
        while p < self.settings.max_passes:
            todo = self.todo(p)
            if not todo:
                break
            labels = {m[0] for ms in todo.values() for m in ms}
            workers = {
                c.label: Worker(c, self.results, self.worker_log)
                for c in self.columns
                if c.label in labels
            }
            before = cpu_ticks()
            try:
                for key in self.groups:
                    if key in todo:
                        self.group(p, key, todo[key], workers)
            finally:
                for worker in workers.values():
                    worker.close()
            after = cpu_ticks()
            self.steal.append((after[0] - before[0]) / max(1, after[1] - before[1]))
            if p + 1 >= self.settings.passes:
                self.settle()
            p += 1
        self.worker_log.close()
        end = cpu_ticks()
        precision = {}
        for key in self.groups:
            precision["/".join(map(str, key))] = {
                "passes": self.passes[key],
                "spent_seconds": self.spent[key],
                "settled": not self.open[key],
                "unsettled_cases": len(self.open[key]),
            }
        return {
            "measure_seconds": time.perf_counter() - self.started,
            "passes": p,
            "precision": {"target": self.settings.target, "groups": precision},
            "steal": {
                "share": (end[0] - ticks[0]) / max(1, end[1] - ticks[1]),
                "per_pass": self.steal,
            },
            "skipped": self.skipped,
        }

    def settle(self) -> None:
        """Each group's cases that are in a ratio not yet settled."""
        for key in self.groups:
            logs = {
                m: self.data[m[0]][m[1]].logs()
                for m in self.members[key]
                if m[1] in self.data[m[0]]
            }
            left: Set[Member] = set()
            for a, b in pairs([m for m in self.members[key] if m in logs], self.columns):
                common = sorted(set(logs[a]) & set(logs[b]))
                if len(common) >= stats.MIN_PROCESSES:
                    _, half = stats.spread_interval([logs[a][q] - logs[b][q] for q in common])
                    if math.sinh(half) <= self.settings.target:
                        continue
                left.update((a, b))
            self.open[key] = left

    def group(self, p: int, key: GroupKey, todo: Set[Member], workers: Dict[str, Worker]) -> None:
        """Prepare the group's cases to measure under every mode, then its rounds."""
        started = time.perf_counter()
        members: List[Tuple[str, Case]] = []
        for column in self.columns:
            cases = [Case.parse(n) for (label, n) in self.members[key] if label == column.label]
            cases = [c for c in cases if (column.label, c.name) in todo]
            cases = [c for c in cases if c.name not in self.skipped[column.label]]
            for case in list(cases) if p == 0 else []:
                why = self.too_slow(column.label, case)
                if why:
                    self.skipped[column.label][case.name] = why
                    cases.remove(case)
            if not cases:
                continue
            data = self.data[column.label]
            loops = [{"name": c.name, "loops": data.get(c.name, CaseData()).loops} for c in cases]
            request = {"op": "prepare", "min_time": self.settings.min_time, "jit": column.jit,
                       "jit_warm": list(self.settings.jit_warm), "clock": self.settings.clock,
                       "cases": loops}  # fmt: skip
            answer = workers[column.label].ask(request)
            for case in cases:
                got = answer["cases"][case.name]
                found = data.setdefault(case.name, CaseData())
                if not found.loops:
                    found.loops, found.seconds = int(got["loops"]), float(got["seconds"])
                found.cost = float(got["prepare_seconds"])
                run = {"pass": p, "loops": int(got["loops"]), "warmups": got["warmups"]}
                found.runs.append(
                    {**run, "warmed": bool(got["warmed"]), "rounds": [], "values": []}
                )
                members.append((column.label, case))
        if not members:
            return
        variants = list(dict.fromkeys(case.variant for _, case in members))
        labels = [c.label for c in self.columns]
        for r in range(self.settings.rounds):
            order = variants if r % 2 == 0 else variants[::-1]
            turn = labels[r % len(labels) :] + labels[: r % len(labels)]
            for variant in order:
                for label in turn:
                    for at, case in members:
                        if at == label and case.variant == variant:
                            answer = workers[label].ask({"op": "value", "case": case.name})
                            found = self.data[label][case.name]
                            found.cost += float(answer["wall"])
                            found.runs[-1]["rounds"].append(r)
                            found.runs[-1]["values"].append(float(answer["value"]))
        self.passes[key] += 1
        took = time.perf_counter() - started
        # The pass's wall time, or what the workers report if more (synthetic workers); the
        # talking between conductor and workers is a part of it (a large one on a busy machine).
        reported = sum(self.data[label][case.name].cost for label, case in members)
        self.spent[key] += max(took, reported)
        self.overhead[key] = max(1.0, took / reported) if reported else 1.0
        benchmark, algorithm, length, number = key
        size = f"{length} B" + (f" x {number}" if number > 1 else "")
        self.say(
            f"[pass {p + 1}, {duration(time.perf_counter() - self.started)}] {benchmark} "
            f"{algorithm} {size}: {len(members)} cases, {self.settings.rounds} rounds, {took:.1f} s"
        )

    def values_json(self) -> Dict[str, Any]:
        return {k: {n: asdict(d) for n, d in cases.items()} for k, cases in self.data.items()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="JMH's benchmarks")
    parser.add_argument("--lengths", default="", help="bytes, comma-separated")
    parser.add_argument("--pypy-lib", action="store_true", help="add PyPy's _md5/_sha256 row")
    parser.add_argument("--mode", choices=sorted(SETTINGS), default="default")
    parser.add_argument("--passes", type=int, help="override the mode's (least) passes")
    parser.add_argument("--budget", type=float, help="seconds of measuring in all")
    parser.add_argument("--clock", choices=("cpu", "wall"), help="cpu (default) or wall time")
    parser.add_argument("--no-report", action="store_true", help="measure only")


def settings_of(args: argparse.Namespace) -> Settings:
    settings = SETTINGS[args.mode]
    if args.passes:
        settings = replace(
            settings, passes=args.passes, max_passes=max(args.passes, settings.max_passes)
        )
    if args.budget:
        settings = replace(settings, budget=args.budget)
    if args.clock:
        settings = replace(settings, clock=args.clock)
    if args.lengths:
        lengths = tuple(int(n) for n in args.lengths.split(","))
        settings = replace(settings, grid=replace(settings.grid, lengths=lengths))
    return settings


def builds(envs: Path, labels: Sequence[str]) -> Dict[str, Any]:
    """What the build of each interpreter's environment recorded of its times."""
    found: Dict[str, Any] = {}
    for label in labels:
        record = envs / f"{label}.json"
        if record.exists() and json.loads(record.read_text()).get("build"):
            found[label] = json.loads(record.read_text())["build"]
    return found


def run(args: argparse.Namespace, columns: List[Column]) -> Path:
    """Measure ``columns`` as ``args`` say; the run's folder."""
    settings = settings_of(args)
    started = time.time()
    folder: Path = args.results / "bench" / stamp()
    folder.mkdir(parents=True, exist_ok=True)
    log = sys.stdout
    for column in columns:
        column.list(args, settings.grid, args.results)
    count = sum(len(c.listing["cases"]) for c in columns)
    log.write(
        f"bench: {len(columns)} modes ({', '.join(c.label for c in columns)}), {count} cases, "
        f"mode {args.mode} (at least {settings.passes} passes, at most "
        f"~{duration(settings.budget)} of measuring), {cpu_label()}\n"
        f"  results: {folder}\n"
    )
    for column in columns:
        for name, info in column.listing["variants"].items():
            if info["unavailable"]:
                log.write(f"  {column.label}: {name} unavailable: {info['unavailable']}\n")
    study = Study(columns, settings, folder, args.results, log)
    outcome = study.run()
    values = study.values_json()
    record: Dict[str, Any] = {
        "mode": args.mode,
        "settings": asdict(settings),
        "cpu": cpu_label(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "wall_seconds": time.time() - started,
        **outcome,
        "builds": builds(args.results / "envs", sorted({c.mode.interpreter for c in columns})),
        "interpreters": {
            c.label: {
                "python": c.python,
                "mode": c.record(),
                **c.listing["interpreter"],
                "variants": c.listing["variants"],
                "batch": c.listing["batch"],
                "metadata": c.listing["metadata"],
            }
            for c in columns
        },
    }
    (folder / "values.json").write_text(json.dumps(values))
    for label, name in worker.pyperf_files(folder, record, values).items():
        record["interpreters"][label]["file"] = name
    (folder / "study.json").write_text(json.dumps(record, indent=1))
    settled = sum(1 for g in outcome["precision"]["groups"].values() if g["settled"])
    log.write(
        f"measured in {duration(outcome['measure_seconds'])}, {outcome['passes']} passes; "
        f"{settled} of {len(study.groups)} groups settled; steal {outcome['steal']['share']:.2%}\n"
    )
    return folder


if __name__ == "__main__":
    sys.exit("the study runs as: python -m bench run ... (python -m bench run --help)")
