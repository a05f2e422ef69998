"""nox -s memory: what every variant allocates, measured with memray (CPython only).

    python bench/memory.py                          # every variant, md5 and sha256
    python bench/memory.py --variants 'helpers*' --stream-mib 8

Each variant and algorithm hashes, in a fresh process under ``memray.Tracker``:

* ``stream``: 64 MiB (``--stream-mib``) streamed in 64 KiB chunks (one 64 KiB
  buffer of the JDK pattern, whose 256-byte period makes it exactly the 64 MiB
  message), and ``stream-short``: the same for 1/16 of that;
* ``one-call``: 1 MiB in one call, and ``one-call-short``: 64 KiB in one call;
* ``objects``: 16 KiB in one call with Python's own allocator traced too, to
  count every object allocated per 64-byte block.

memray reports the peak heap memory and the number of allocations during the
tracked block (the message itself is made before it starts). Memory that a
variant needs should not depend on the message length: a variant whose peak
grows with it (streamed, or between 64 KiB and 1 MiB in one call by more than
half the difference) is flagged. The table goes to the terminal and to
``results/memory/<date-time>/memory.md``, with memray's flamegraph of the
worst offender (the largest peak). memray has no PyPy build: CPython only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Sequence, Tuple

from cases import ALGORITHMS, interpreter_info, jdk_pattern, load_target, select_variants
from machine import RESULTS, cpu_label, stamp, table, today

CHUNK = 64 * 1024
ONE_CALL = 1 << 20
ONE_CALL_SHORT = 64 * 1024
OBJECTS = 16 * 1024
CASES = ("stream", "stream-short", "one-call", "one-call-short", "objects")


class Job(NamedTuple):
    variant: str
    algorithm: str
    case: str

    @property
    def stem(self) -> str:
        return f"{self.variant}-{self.algorithm}-{self.case}"


def work(variant: str, algorithm: str, case: str, stream_bytes: int, path: Path) -> None:
    """In this process: hash one case of one variant under memray's tracker."""
    import memray

    constructor = load_target(variant).constructors[algorithm]
    chunk = jdk_pattern(CHUNK)
    length = {"one-call": ONE_CALL, "one-call-short": ONE_CALL_SHORT, "objects": OBJECTS}.get(case)
    message = jdk_pattern(length) if length else b""
    chunks = stream_bytes // CHUNK if case == "stream" else stream_bytes // CHUNK // 16
    path.unlink(missing_ok=True)
    with memray.Tracker(path, trace_python_allocators=case == "objects"):
        if length:
            constructor(message).digest()
        else:
            h = constructor()
            for _ in range(chunks):
                h.update(chunk)
            h.digest()


def run_job(job: Job, folder: Path, stream_bytes: int, python: str) -> Dict[str, Any]:
    """A fresh process for one job; what memray recorded."""
    import memray

    path = folder / f"{job.stem}.bin"
    command = [python, __file__, "worker", job.variant, job.algorithm, job.case]
    command += ["--stream-bytes", str(stream_bytes), "--file", str(path)]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - started
    meta = memray.FileReader(path).metadata
    return {
        "variant": job.variant,
        "algorithm": job.algorithm,
        "case": job.case,
        "peak": meta.peak_memory,
        "allocations": meta.total_allocations,
        "seconds": seconds,
        "file": path.name,
    }


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


#: CPython's small-object allocator takes memory from malloc one arena at a time
#: (1 MiB since 3.10): a peak one arena higher, reached with one or two more
#: malloc calls, is the allocator's step, not memory that grows with the input.
ARENA = 1 << 20


def _arena_step(long: Dict[str, Any], short: Dict[str, Any]) -> bool:
    growth = int(long["peak"]) - int(short["peak"])
    return growth <= ARENA + 64 * 1024 and int(long["allocations"]) <= int(short["allocations"]) + 2


def flags(r: Dict[str, Dict[str, Any]]) -> List[str]:
    """Why a variant's memory grows with the input, if it does (or what looks like it)."""
    out = []
    if "stream" in r and "stream-short" in r:
        long, short = r["stream"], r["stream-short"]
        if long["peak"] > 1.5 * short["peak"] + 256 * 1024:
            if _arena_step(long, short):
                out.append("streamed: one pymalloc arena more, not growth")
            else:
                out.append(
                    f"FLAG: streamed peak grows ({human(short['peak'])} → {human(long['peak'])})"
                )
    if "one-call" in r and "one-call-short" in r:
        long, short = r["one-call"], r["one-call-short"]
        growth = long["peak"] - short["peak"]
        if growth > (ONE_CALL - ONE_CALL_SHORT) / 2:
            if _arena_step(long, short):
                out.append("one call: one pymalloc arena more (or a copy of the message)")
            else:
                out.append(f"FLAG: one-call peak grows with the message (+{human(growth)})")
    return out


def report(results: List[Dict[str, Any]], info: Dict[str, Any]) -> str:
    by: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = {}
    for r in results:
        by.setdefault((r["variant"], r["algorithm"]), {})[r["case"]] = r
    stream = human(info["stream_bytes"])
    short = human(info["stream_bytes"] // 16)
    header = [
        "variant",
        "algorithm",
        f"peak, {stream} streamed",
        f"peak, {short} streamed",
        "peak, 1 MiB in one call",
        "peak, 64 KiB in one call",
        f"allocations, {stream} streamed",
        "objects allocated per block",
        "flag",
    ]
    rows = [header]
    for (variant, algorithm), r in by.items():

        def peak(case: str, r: Dict[str, Dict[str, Any]] = r) -> str:
            return human(r[case]["peak"]) if case in r else "—"

        objects = r.get("objects")
        per_block = f"{objects['allocations'] / (OBJECTS // 64 + 1):.0f}" if objects else "—"
        allocs = str(r["stream"]["allocations"]) if "stream" in r else "—"
        flag = "; ".join(flags(r)) or "no growth"
        rows.append(
            [
                variant,
                algorithm,
                peak("stream"),
                peak("stream-short"),
                peak("one-call"),
                peak("one-call-short"),
                allocs,
                per_block,
                flag,
            ]
        )
    lines = [
        "# Memory: what each variant allocates (memray)",
        "",
        f"{info['interpreter']['implementation']} {info['interpreter']['version']}, "
        f"{info['cpu']}, {info['date']} (memray has no PyPy build: CPython only). "
        f"Peak heap memory and allocations (malloc level) while hashing, the message made "
        f"before tracking starts; objects per block: every allocation including Python's "
        f"small-object allocator, on {OBJECTS // 1024} KiB in one call, per 64-byte block.",
        "",
        table(rows, "ll" + "r" * 6 + "l"),
        "",
    ]
    if info.get("flamegraph"):
        lines += [
            f"Worst offender (largest peak): {info['worst']}; memray's flamegraph: "
            f"[{info['flamegraph']}]({info['flamegraph']}).",
            "",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    worker = sub.add_parser("worker", help="(internal) one tracked case")
    worker.add_argument("variant")
    worker.add_argument("algorithm")
    worker.add_argument("case", choices=CASES)
    worker.add_argument("--stream-bytes", type=int, required=True)
    worker.add_argument("--file", type=Path, required=True)
    parser.add_argument("--variants", default="", help="names or globs (default: all)")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    parser.add_argument("--stream-mib", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes at once")
    parser.add_argument("--out", type=Path, help="folder (default results/memory/<date-time>)")
    parser.add_argument("--report", type=Path, help="only rewrite the report of a finished run")
    args = parser.parse_args(argv)
    if args.command == "worker":
        work(args.variant, args.algorithm, args.case, args.stream_bytes, args.file)
        return 0
    if args.report:
        saved = json.loads((args.report / "memory.json").read_text())
        text = report(saved["results"], saved["info"])
        (args.report / "memory.md").write_text(text)
        print(text)
        return 0
    stream_bytes = args.stream_mib << 20
    folder: Path = args.out or RESULTS / "memory" / stamp()
    folder.mkdir(parents=True, exist_ok=True)
    patterns = [p for p in args.variants.split(",") if p]
    jobs: List[Job] = []
    skipped = []
    for name in select_variants(patterns):
        target = load_target(name)
        if target.unavailable:
            skipped.append(f"{name} ({target.unavailable})")
            continue
        for algorithm in args.algorithms.split(","):
            if algorithm in target.algorithms:
                jobs += [Job(name, algorithm, case) for case in CASES]

    # Longest first, so that the processes finish together: time 64 KiB of each here.
    probe = jdk_pattern(CHUNK)
    speed: Dict[Tuple[str, str], float] = {}
    for job in jobs:
        if (job.variant, job.algorithm) not in speed:
            constructor = load_target(job.variant).constructors[job.algorithm]
            started = time.perf_counter()
            constructor(probe).digest()
            speed[job.variant, job.algorithm] = time.perf_counter() - started
    size = {"stream": 1024.0, "stream-short": 64.0, "one-call": 16.0, "one-call-short": 1.0}
    jobs.sort(key=lambda j: speed[j.variant, j.algorithm] * size.get(j.case, 0.25), reverse=True)
    print(
        f"memory: {len(jobs)} tracked runs of {len(jobs) // len(CASES)} variant/algorithm pairs, "
        f"{args.jobs} at a time, {human(stream_bytes)} streamed; results: {folder}"
    )
    for reason in skipped:
        print(f"  unavailable: {reason}")
    started = time.perf_counter()
    done: List[Dict[str, Any]] = []
    lock = threading.Lock()

    def one(job: Job) -> Dict[str, Any]:
        result = run_job(job, folder, stream_bytes, sys.executable)
        with lock:
            done.append(result)
            sys.stdout.write(
                f"  [{len(done)}/{len(jobs)}, {time.perf_counter() - started:.0f} s] {job.variant} "
                f"{job.algorithm} {job.case}: peak {human(result['peak'])}, "
                f"{result['allocations']} allocations, {result['seconds']:.1f} s\n"
            )
            sys.stdout.flush()
        return result

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(one, jobs))
    order = {name: i for i, name in enumerate(select_variants(patterns))}
    results.sort(key=lambda r: (order[r["variant"]], r["algorithm"], CASES.index(r["case"])))
    info: Dict[str, Any] = {
        "interpreter": interpreter_info(),
        "cpu": cpu_label(),
        "date": today(),
        "stream_bytes": stream_bytes,
        "seconds": time.perf_counter() - started,
        "unavailable": skipped,
    }
    worst = max((r for r in results if r["case"] != "objects"), key=lambda r: r["peak"])
    info["worst"] = f"{worst['variant']} {worst['algorithm']} ({worst['case']})"
    flamegraph = f"flamegraph-{worst['variant']}-{worst['algorithm']}.html"
    command = [sys.executable, "-m", "memray", "flamegraph", "-f", "-o", str(folder / flamegraph)]
    if subprocess.run([*command, str(folder / worst["file"])]).returncode == 0:
        info["flamegraph"] = flamegraph
    keep = {worst["file"]}
    for r in results:  # the capture files are large; keep the flamegraph's only
        if r["file"] not in keep:
            (folder / r["file"]).unlink(missing_ok=True)
    text = report(results, info)
    (folder / "memory.md").write_text(text)
    (folder / "memory.json").write_text(json.dumps({"info": info, "results": results}, indent=1))
    print(text)
    print(f"memory: done in {info['seconds']:.0f} s; {folder / 'memory.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
