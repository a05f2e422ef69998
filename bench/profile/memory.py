"""``nox -s memory``: what every variant allocates, measured with memray (CPython only).

    python -m bench memory --python 3.11=/path/to/venv/bin/python
    python -m bench memory --python 3.12=... --variants 'helpers*' --stream-mib 8

Each variant and algorithm hashes, in a fresh process of the environment's
interpreter under ``memray.Tracker``:

* ``stream``: 64 MiB (``--stream-mib``) streamed in 64 KiB chunks (one 64 KiB
  buffer of the JDK pattern, whose 256-byte period makes it exactly the 64 MiB
  message), and ``stream-short``: the same for 1/16 of that;
* ``one-call``: 1 MiB in one call, and ``one-call-short``: 64 KiB in one call;
* ``objects``: 16 KiB in one call with Python's own allocator traced too, to
  count every object allocated per 64-byte block.

memray reports the peak heap memory and the number of allocations during the
tracked block (the message itself is made before it starts). A variant whose
peak grows with the input (streamed, or between 64 KiB and 1 MiB in one call
by more than half the difference) is flagged. Writes
``results/memory/<date-time>/memory.json`` (what the docs read) and
``memory.md``, with memray's flamegraph of the worst offender (the largest
peak). This driver needs only the standard library; memray runs in the
environment. memray has no PyPy build: CPython only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Tuple

from bench import store
from bench.catalog import targets
from bench.catalog.cases import jdk_pattern
from bench.conduct import launch
from bench.core.fmt import grid, human_bytes
from bench.core.machine import cpu_label, interpreter_info, interpreter_title, today
from bench.profile import save

CHUNK = 64 * 1024
ONE_CALL = 1 << 20
ONE_CALL_SHORT = 64 * 1024
OBJECTS = 16 * 1024
CASES = ("stream", "stream-short", "one-call", "one-call-short", "objects")
#: CPython's small-object allocator takes memory from malloc one arena at a time
#: (1 MiB since 3.10): a peak one arena higher, reached with one or two more
#: malloc calls, is the allocator's step, not memory that grows with the input.
ARENA = 1 << 20


class Job(NamedTuple):
    variant: str
    algorithm: str
    case: str

    @property
    def stem(self) -> str:
        return f"{self.variant}-{self.algorithm}-{self.case}"


# --- in the environment -------------------------------------------------------------------


def track(variant: str, algorithm: str, case: str, stream_bytes: int, file: str) -> Dict[str, Any]:
    """Hash one case of one variant under memray's tracker; what memray recorded."""
    import memray

    job, path = Job(variant, algorithm, case), Path(file)
    constructor = targets.load(job.variant).constructors[job.algorithm]
    chunk = jdk_pattern(CHUNK)
    sizes = {"one-call": ONE_CALL, "one-call-short": ONE_CALL_SHORT, "objects": OBJECTS}
    length = sizes.get(job.case)
    message = jdk_pattern(length) if length else b""
    chunks = stream_bytes // CHUNK if job.case == "stream" else stream_bytes // CHUNK // 16
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    with memray.Tracker(path, trace_python_allocators=job.case == "objects"):
        if length:
            constructor(message).digest()
        else:
            h = constructor()
            for _ in range(chunks):
                h.update(chunk)
            h.digest()
    meta = memray.FileReader(path).metadata
    return {
        **job._asdict(),
        "peak": meta.peak_memory,
        "allocations": meta.total_allocations,
        "seconds": time.perf_counter() - started,
        "file": path.name,
    }


def probe(variants: str, algorithms: str) -> Dict[str, Any]:
    """What this environment runs, and how long 64 KiB takes for each (to order the jobs)."""
    chunk = jdk_pattern(CHUNK)
    speed: Dict[str, float] = {}
    unavailable: Dict[str, str] = {}
    for name in targets.select([p for p in variants.split(",") if p]):
        target = targets.load(name)
        if target.unavailable:
            unavailable[name] = target.unavailable
            continue
        for alg in algorithms.split(","):
            if alg in target.constructors:
                started = time.perf_counter()
                target.constructors[alg](chunk).digest()
                speed[f"{name}|{alg}"] = time.perf_counter() - started
    return {"interpreter": interpreter_info(), "speed": speed, "unavailable": unavailable}


# --- the driver ---------------------------------------------------------------------------


def flags(r: Dict[str, Dict[str, Any]]) -> List[str]:
    """Why a variant's memory grows with the input, if it does (or what looks like it)."""

    def arena_step(long: Dict[str, Any], short: Dict[str, Any]) -> bool:
        growth = int(long["peak"]) - int(short["peak"])
        allocations = int(long["allocations"]) <= int(short["allocations"]) + 2
        return growth <= ARENA + 64 * 1024 and allocations

    out = []
    if "stream" in r and "stream-short" in r:
        long, short = r["stream"], r["stream-short"]
        if long["peak"] > 1.5 * short["peak"] + 256 * 1024:
            if arena_step(long, short):
                out.append("streamed: one pymalloc arena more, not growth")
            else:
                grown = f"{human_bytes(short['peak'])} → {human_bytes(long['peak'])}"
                out.append(f"FLAG: streamed peak grows ({grown})")
    if "one-call" in r and "one-call-short" in r:
        long, short = r["one-call"], r["one-call-short"]
        growth = long["peak"] - short["peak"]
        if growth > (ONE_CALL - ONE_CALL_SHORT) / 2:
            if arena_step(long, short):
                out.append("one call: one pymalloc arena more (or a copy of the message)")
            else:
                out.append(f"FLAG: one-call peak grows with the message (+{human_bytes(growth)})")
    return out


def markdown(data: Dict[str, Any], columns: Dict[str, str]) -> str:
    """The table of a run: a row per variant and algorithm, ``columns`` {what: its header}
    from "variant", "algorithm", the cases (their peaks), "allocations" (streamed),
    "objects" (per block) and "flag"."""
    by: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = {}
    for r in data["results"]:
        by.setdefault((r["variant"], r["algorithm"]), {})[r["case"]] = r
    body = []
    for (variant, algorithm), r in by.items():
        cells = {"variant": variant, "algorithm": algorithm,
                 "flag": "; ".join(flags(r)) or "no growth"}  # fmt: skip
        cells.update({case: human_bytes(r[case]["peak"]) for case in CASES if case in r})
        if "objects" in r:
            cells["objects"] = f"{r['objects']['allocations'] / (OBJECTS // 64 + 1):.0f}"
        if "stream" in r:
            cells["allocations"] = str(r["stream"]["allocations"])
        body.append([cells.get(key) for key in columns])
    labels = sum(1 for key in columns if key in ("variant", "algorithm"))
    return grid(list(columns.values()), body, labels, int("flag" in columns))


def report(data: Dict[str, Any]) -> str:
    info = data["info"]
    stream = human_bytes(info["stream_bytes"])
    short = human_bytes(info["stream_bytes"] // 16)
    columns = {"variant": "variant", "algorithm": "algorithm"}
    columns.update(
        {"stream": f"peak, {stream} streamed", "stream-short": f"peak, {short} streamed"}
    )
    columns.update(
        {"one-call": "peak, 1 MiB in one call", "one-call-short": "peak, 64 KiB in one call"}
    )
    columns.update({"allocations": f"allocations, {stream} streamed"})
    columns.update({"objects": "objects allocated per block", "flag": "flag"})
    lines = [
        "# Memory: what each variant allocates (memray)",
        "",
        f"{interpreter_title(info['interpreter'])}, {info['cpu']}, {info['date']} (memray has "
        "no PyPy build: CPython only). Peak heap memory and allocations (malloc level) while "
        "hashing, the message made before tracking starts; objects per block: every allocation "
        f"including Python's small-object allocator, on {OBJECTS // 1024} KiB in one call, per "
        "64-byte block.",
        "",
        markdown(data, columns),
        "",
    ]
    if info.get("flamegraph"):
        lines += [
            f"Worst offender (largest peak): {info['worst']}; memray's flamegraph: "
            f"[{info['flamegraph']}]({info['flamegraph']}).",
            "",
        ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stream-mib", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes at once")
    parser.add_argument("--out", type=Path, help="folder (default results/memory/<date-time>)")
    parser.add_argument("--report", type=Path, help="only rewrite the report of a finished run")


def drive(args: argparse.Namespace) -> int:
    """The first mode given (``--modes 3.12``; CPython: memray has no PyPy build)."""
    if args.report:
        save(args.report, "memory", report)
        return 0
    column = launch.python_columns(args)[0]
    stream_bytes = args.stream_mib << 20
    folder: Path = args.out or store.new_folder("memory", args.results)
    folder.mkdir(parents=True, exist_ok=True)
    probed = launch.call(column, "profile.memory.probe", args.results, variants=args.variants,
                         algorithms=args.algorithms)  # fmt: skip
    speed: Dict[str, float] = probed["speed"]
    jobs = [
        Job(*key.split("|"), case)  # type: ignore[call-arg]
        for key in speed
        for case in CASES
    ]
    # Longest first, so that the processes finish together.
    size = {"stream": 1024.0, "stream-short": 64.0, "one-call": 16.0, "one-call-short": 1.0}
    jobs.sort(key=lambda j: speed[f"{j.variant}|{j.algorithm}"] * size.get(j.case, 0.25))
    jobs.reverse()
    print(
        f"memory: {len(jobs)} tracked runs, {args.jobs} at a time, "
        f"{human_bytes(stream_bytes)} streamed; results: {folder}"
    )
    for name, reason in probed["unavailable"].items():
        print(f"  unavailable: {name} ({reason})")
    started = time.perf_counter()
    done: List[Dict[str, Any]] = []
    lock = threading.Lock()

    def one(job: Job) -> Dict[str, Any]:
        path = folder / f"{job.stem}.bin"
        result: Dict[str, Any] = launch.call(column, "profile.memory.track", args.results,
                                             **job._asdict(), stream_bytes=stream_bytes,
                                             file=str(path))  # fmt: skip
        with lock:
            done.append(result)
            print(
                f"  [{len(done)}/{len(jobs)}, {time.perf_counter() - started:.0f} s] {job.variant} "
                f"{job.algorithm} {job.case}: peak {human_bytes(result['peak'])}, "
                f"{result['allocations']} allocations, {result['seconds']:.1f} s",
                flush=True,
            )
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(one, jobs))
    order = {key: i for i, key in enumerate(speed)}
    results.sort(key=lambda r: (order[f"{r['variant']}|{r['algorithm']}"], CASES.index(r["case"])))
    info: Dict[str, Any] = {
        "interpreter": probed["interpreter"],
        "cpu": cpu_label(),
        "date": today(),
        "stream_bytes": stream_bytes,
        "seconds": time.perf_counter() - started,
        "unavailable": probed["unavailable"],
    }
    worst = max((r for r in results if r["case"] != "objects"), key=lambda r: r["peak"])
    info["worst"] = f"{worst['variant']} {worst['algorithm']} ({worst['case']})"
    flamegraph = f"flamegraph-{worst['variant']}-{worst['algorithm']}.html"
    command = [column.program, "-m", "memray", "flamegraph", "-f", "-o", str(folder / flamegraph)]
    if subprocess.run([*command, str(folder / worst["file"])], cwd=folder).returncode == 0:
        info["flamegraph"] = flamegraph
    for r in results:  # the capture files are large; keep the flamegraph's only
        if r["file"] != worst["file"]:
            (folder / r["file"]).unlink(missing_ok=True)
    data = {"info": info, "results": results}
    print(save(folder, "memory", report, data))
    print(f"memory: done in {info['seconds']:.0f} s; {folder / 'memory.md'}")
    return 0
