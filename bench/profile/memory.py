"""``nox -s memory``: what every variant allocates, measured with memray (CPython only).

    python -m bench memory --python 3.11=/path/to/venv/bin/python
    python -m bench memory --python 3.12=... --variants 'helpers*' --seconds 0.5

Each variant's messages are sized by its speed, as the timing sizes its loops: a probe
times 64 KiB of each, and every case gets about ``--seconds`` of hashing (at most
``--stream-mib``, at least one 64 KiB chunk), so a slow pure-Python variant hashes
hundreds of KiB and the native one 64 MiB, and the whole run takes a few minutes. Each
variant and algorithm hashes, in a fresh process of the environment's interpreter under
``memray.Tracker``:

* ``stream``: its streamed length in 64 KiB chunks (one 64 KiB buffer of the JDK pattern,
  whose 256-byte period makes it exactly that message), and ``stream-short``: a 16th of it;
* ``one-call``: its one-call length (at most 1 MiB) in one call, ``one-call-short`` a 16th;
* ``objects``, ``objects-short``: 16 KiB and 4 KiB in one call with Python's own allocator
  traced too: the difference, over the 192 blocks between them, is every allocation the
  block loop makes per 64-byte block (the set-up, the padding and the digest cancel out).

memray reports the peak heap memory and the number of allocations during the tracked
block (the message itself is made before it starts). A variant whose peak grows with the
input (streamed, or between the two one-call lengths by more than half the difference) is
flagged. Writes ``results/memory/<date-time>/memory.json`` (what the docs read) and
``memory.md``, with memray's flamegraph of the worst offender (the largest peak). This
driver needs only the standard library; memray runs in the environment. memray has no PyPy
build: CPython only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .. import store
from ..catalog import targets
from ..catalog.cases import jdk_pattern
from ..conduct import launch
from ..conduct.options import Options
from ..core.fmt import grid, human_bytes
from ..core.machine import cpu_label, interpreter_info, interpreter_title, today
from . import save

CHUNK = 64 * 1024
ONE_CALL = 1 << 20  # the longest message hashed in one call
OBJECTS, OBJECTS_SHORT = 16 * 1024, 4 * 1024
BLOCK = 64
CASES = ("stream", "stream-short", "one-call", "one-call-short", "objects", "objects-short")
#: Seconds of hashing each case aims at (``--seconds``): about 3 minutes in all here.
SECONDS = 0.3
#: CPython's small-object allocator takes memory from malloc one arena at a time
#: (1 MiB since 3.10): a peak one arena higher, reached with one or two more
#: malloc calls, is the allocator's step, not memory that grows with the input.
ARENA = 1 << 20


class Job(NamedTuple):
    variant: str
    algorithm: str
    case: str
    length: int  # bytes hashed: streamed in 64 KiB chunks, or in one call

    @property
    def stem(self) -> str:
        return f"{self.variant}-{self.algorithm}-{self.case}"

    @property
    def streamed(self) -> bool:
        return self.case.startswith("stream")


def lengths(per_chunk: float, seconds: float, cap: int) -> Dict[str, int]:
    """Each case's length for a variant that hashes 64 KiB in ``per_chunk`` seconds: about
    ``seconds`` of hashing streamed (whole chunks, at most ``cap``) and in one call (at most
    1 MiB), their short cases a 16th (at least a chunk, or 64 bytes in one call)."""
    fits = seconds / max(per_chunk, 1e-9) * CHUNK  # bytes in about ``seconds``
    stream = max(1, min(int(fits), cap) // CHUNK) * CHUNK
    one_call = max(OBJECTS, min(int(fits), ONE_CALL) // BLOCK * BLOCK)
    return {
        "stream": stream,
        "stream-short": max(CHUNK, stream // 16 // CHUNK * CHUNK),
        "one-call": one_call,
        "one-call-short": max(BLOCK, one_call // 16 // BLOCK * BLOCK),
        "objects": OBJECTS,
        "objects-short": OBJECTS_SHORT,
    }


# --- in the environment -------------------------------------------------------------------


def track(variant: str, algorithm: str, case: str, length: int, file: str) -> Dict[str, Any]:
    """Hash one case of one variant under memray's tracker; what memray recorded."""
    import memray

    job, path = Job(variant, algorithm, case, length), Path(file)
    constructor = targets.load(job.variant).constructors[job.algorithm]
    chunk = jdk_pattern(CHUNK)
    message = b"" if job.streamed else jdk_pattern(length)
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    with memray.Tracker(path, trace_python_allocators=job.case.startswith("objects")):
        if job.streamed:
            h = constructor()
            for _ in range(length // CHUNK):
                h.update(chunk)
            h.digest()
        else:
            constructor(message).digest()
    meta = memray.FileReader(path).metadata
    return {
        **job._asdict(),
        "peak": meta.peak_memory,
        "allocations": meta.total_allocations,
        "seconds": time.perf_counter() - started,
        "file": path.name,
    }


def probe(variants: str, algorithms: str) -> Dict[str, Any]:
    """What this environment runs, and how long 64 KiB takes for each (to size the cases)."""
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
        if growth > (long["length"] - short["length"]) / 2 and growth > 256 * 1024:
            if arena_step(long, short):
                out.append("one call: one pymalloc arena more (or a copy of the message)")
            else:
                out.append(f"FLAG: one-call peak grows with the message (+{human_bytes(growth)})")
    return out


def per_block(r: Dict[str, Dict[str, Any]]) -> Optional[float]:
    """Allocations per 64-byte block of the block loop: the two traced one-call cases'
    difference over the blocks between them."""
    if "objects" not in r or "objects-short" not in r:
        return None
    long, short = r["objects"], r["objects-short"]
    blocks = (int(long["length"]) - int(short["length"])) // BLOCK
    return max(0.0, (int(long["allocations"]) - int(short["allocations"])) / blocks)


def by_row(data: Dict[str, Any]) -> Dict[Tuple[str, str], Dict[str, Dict[str, Any]]]:
    """The run's results by (variant, algorithm), then case."""
    by: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = {}
    for r in data["results"]:
        by.setdefault((r["variant"], r["algorithm"]), {})[r["case"]] = r
    return by


def objects_per_block(data: Dict[str, Any]) -> Dict[Tuple[str, str], float]:
    """Allocations per 64-byte block by (variant, algorithm), where measured."""
    found = {key: per_block(r) for key, r in by_row(data).items()}
    return {key: n for key, n in found.items() if n is not None}


def markdown(data: Dict[str, Any], columns: Dict[str, str]) -> str:
    """The table of a run: a row per variant and algorithm, ``columns`` {what: its header}
    from "variant", "algorithm", "streamed" and "one call" (the length and the peak), the cases
    (their peaks), "allocations" (streamed), "objects" (per block) and "flag"."""
    body = []
    for (variant, algorithm), r in by_row(data).items():
        cells = {
            "variant": variant,
            "algorithm": algorithm,
            "flag": "; ".join(flags(r)) or "no growth",
        }
        cells.update({case: human_bytes(r[case]["peak"]) for case in CASES if case in r})
        for key, case in (("streamed", "stream"), ("one call", "one-call")):
            if case in r:
                cells[key] = f"{human_bytes(r[case]['peak'])} ({human_bytes(r[case]['length'])})"
        if "stream" in r:
            cells["allocations"] = str(r["stream"]["allocations"])
        n = per_block(r)
        if n is not None:
            cells["objects"] = f"{n:.1f}" if n < 10 else f"{n:.0f}"
        body.append([cells.get(key) for key in columns])
    labels = sum(1 for key in columns if key in ("variant", "algorithm"))
    return grid(list(columns.values()), body, labels, int("flag" in columns))


#: The columns of the docs' table (docs/study.md).
DOCS_COLUMNS = {
    "variant": "variant",
    "algorithm": "algorithm",
    "objects": "allocations per 64-byte block",
    "streamed": "peak, streamed (length)",
    "one call": "peak, one call (length)",
    "flag": "growth",
}


def report(data: Dict[str, Any]) -> str:
    info = data["info"]
    columns = {"variant": "variant", "algorithm": "algorithm"}
    columns.update({"streamed": "peak, streamed (length)", "stream-short": "peak, a 16th"})
    columns.update({"one call": "peak, one call (length)", "one-call-short": "peak, a 16th"})
    columns.update({"allocations": "allocations, streamed"})
    columns.update({"objects": "allocations per block", "flag": "flag"})
    lines = [
        "# Memory: what each variant allocates (memray)",
        "",
        f"{interpreter_title(info['interpreter'])}, {info['cpu']}, {info['date']}, "
        f"{info['seconds']:.0f} s (memray has no PyPy build: CPython only). "
        f"{sizing(info)} Peak heap memory and allocations (malloc level) while hashing, the "
        "message made before tracking starts; allocations per block: every allocation "
        "including Python's small-object allocator, 16 KiB in one call less 4 KiB, over the "
        "192 64-byte blocks between them.",
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


def sizing(info: Dict[str, Any]) -> str:
    """How the run sized each variant's messages, in words."""
    return (
        f"Each case about {info['case_seconds']:g} s of hashing at the variant's speed (at most "
        f"{human_bytes(info['stream_bytes'])} streamed in 64 KiB chunks, 1 MiB in one call)."
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stream-mib", type=int, default=64, help="the most streamed")
    parser.add_argument(
        "--seconds", type=float, default=SECONDS, help="hashing a case aims at (sizes it)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes at once")
    parser.add_argument("--out", type=Path, help="folder (default results/memory/<date-time>)")
    parser.add_argument("--report", type=Path, help="only rewrite the report of a finished run")


def drive(args: argparse.Namespace) -> int:
    """The first mode given (``--modes 3.12``; CPython: memray has no PyPy build)."""
    if args.report:
        save(args.report, "memory", report)
        return 0
    column = launch.python_columns(Options.of(args))[0]
    cap = args.stream_mib << 20
    folder: Path = args.out or store.new_folder("memory", args.results)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    probed = launch.call(
        column,
        "profile.memory.probe",
        args.results,
        variants=args.variants,
        algorithms=args.algorithms,
    )
    speed: Dict[str, float] = probed["speed"]
    jobs = [
        Job(variant, algorithm, case, length)
        for key, per_chunk in speed.items()
        for variant, algorithm in [key.split("|")]
        for case, length in lengths(per_chunk, args.seconds, cap).items()
    ]
    # Longest first, so that the processes finish together.
    jobs.sort(key=lambda j: -speed[f"{j.variant}|{j.algorithm}"] * j.length / CHUNK)
    print(
        f"memory: {len(jobs)} tracked runs, {args.jobs} at a time, about {args.seconds:g} s "
        f"of hashing each (at most {human_bytes(cap)} streamed); results: {folder}"
    )
    for name, reason in probed["unavailable"].items():
        print(f"  unavailable: {name} ({reason})")
    done: List[Dict[str, Any]] = []
    lock = threading.Lock()

    def one(job: Job) -> Dict[str, Any]:
        path = folder / f"{job.stem}.bin"
        result: Dict[str, Any] = launch.call(
            column, "profile.memory.track", args.results, **job._asdict(), file=str(path)
        )
        with lock:
            done.append(result)
            print(
                f"  [{len(done)}/{len(jobs)}, {time.perf_counter() - started:.0f} s] {job.variant} "
                f"{job.algorithm} {job.case} ({human_bytes(job.length)}): peak "
                f"{human_bytes(result['peak'])}, {result['allocations']} allocations, "
                f"{result['seconds']:.1f} s",
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
        "stream_bytes": cap,
        "case_seconds": args.seconds,
        "seconds": time.perf_counter() - started,
        "unavailable": probed["unavailable"],
    }
    worst = max(
        (r for r in results if r["case"] in ("stream", "one-call")), key=lambda r: r["peak"]
    )
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
