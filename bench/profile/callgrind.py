"""Machine instructions per byte of every variant, counted by valgrind's callgrind.

    python -m bench bytecode --python 3.14=/path/to/venv/bin/python   # counts per mode

Instruction counts do not depend on what else the machine is doing, so they answer the style
question without the noise of a shared machine. Each interpreter runs
``bench.profile.callgrind.count_here`` under ``valgrind --tool=callgrind --instr-atstart=no``:
it warms every case up natively (under PyPy's JIT with lower thresholds, until the JIT is
quiet; with ``--jit off`` it stays off), then counts, for each row and algorithm, one
``constructor(message).digest()`` of a short and of a long message (128 bytes; 512, or 16 KiB
for the rows that run at C speed) between two client requests (a small C library, compiled here
from valgrind's ``callgrind.h``, switches the collection on and off and dumps the count; the
instrumentation itself is switched on once, after the warm-up). The difference over the extra
bytes is the row's instructions per byte, the per-call cost cancelling out. Each is counted
``REPEATS`` times and the least count kept: work that is not the hashing's (a garbage
collection, a JIT compiling a bridge under PyPy) only ever adds. The cyclic GC is off while
counting and the hash seed fixed.

A study run's counts are kept in the per-user cache (``<cache>/counts``, build_support/cache.py)
under a key of what they depend on: the mode, its environment (whose folder name is the
digest of the build's sources) and interpreter, the bench sources that drive the count, and
valgrind's version. A later run with all of these the same, from this checkout or another
clone, reuses them (the log says so) rather than spending minutes counting the same
instructions again; ``--recount`` counts anyway.

With a JIT (``PYTHON_JIT=1`` on CPython 3.14/3.15, PyPy) the counts include the machine code
the JIT wrote: valgrind translates every instruction the process executes, wherever it lies
(callgrind files it under the object ``???``, anonymous memory; ``--smc-check=all-non-file``
catches code written or patched there); two runs count every row the same to the instruction
(``python -m bench stability`` on two bytecode runs checks it). What callgrind cannot do there:
name the Python function a piece of JIT code belongs to (it has no symbols), or count the
compiling itself, which happens during the warm-up, before the counts. Under a Debian tree's
interpreter valgrind runs inside the tree (it must be installed there). An interpreter that
cannot run under valgrind (or a machine without valgrind) is reported with the reason. A styles
file's counts (``python -m bench styles``) are ``bench.profile.instructions``'s.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import re
import shutil
import subprocess
import threading
from functools import cache, partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from bench.catalog import modes, targets
from bench.catalog.cases import digest_of, jdk_pattern
from bench.catalog.columns import Column
from bench.conduct import launch
from bench.core.machine import PYPY
from bench.core.protocol import WorkerError
from bench.core.timing import Jit
from bench.store import RESULTS, ROOT

#: Message lengths of the two counts whose difference gives the count per byte:
#: the long one is LONG for rows at pure-Python speed under CPython, LONG_FAST
#: for the others (C, typed Cython, the i64 twin, and everything under PyPy's
#: JIT), so that the difference is always many thousand instructions and a
#: few instructions more or less of per-call work move it by little.
SHORT, LONG, LONG_FAST = 128, 512, 16384
REPEATS = 5
#: Native warm-up calls per message (CPython: its specializing interpreter
#: settles within a few dozen); under a JIT, calls until it is quiet.
WARM_CALLS = 20
JIT_QUIET, JIT_MAX_CALLS = 100, 3000
MARKS_C = """
#include <valgrind/callgrind.h>
void bench_instrument(void) { CALLGRIND_START_INSTRUMENTATION; }
void bench_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
void bench_stop(const char *name) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT(name); }
"""
TIMEOUT = 900


class Unavailable(RuntimeError):
    """Counting is impossible here; the message says why."""


def marks_library(folder: Path) -> Path:
    """The client-request library, compiled once into ``folder``."""
    header = Path("/usr/include/valgrind/callgrind.h")
    if shutil.which("valgrind") is None:
        raise Unavailable("valgrind is not installed (Debian: apt-get install valgrind)")
    if not header.exists():
        raise Unavailable(f"{header} is missing (Debian's valgrind package has it)")
    library = folder / "callgrind-marks.so"
    if not library.exists():
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / "callgrind-marks.c"
        source.write_text(MARKS_C)
        command = ["gcc", "-O2", "-shared", "-fPIC", "-o", str(library), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            raise Unavailable(f"cannot compile the client-request library: {done.stderr.strip()}")
    return library


# --- under valgrind, in the interpreter's environment -----------------------------------


def lower_jit_thresholds(jit: bool) -> None:
    """Under PyPy with its JIT on (``jit``): trace loops and functions after 50 runs, not
    1000s (a quicker warm-up). With ``--jit off`` nothing: ``off`` is a threshold of -1, and
    setting one turned the JIT back on (the nojit modes were counted with it)."""
    try:
        import pypyjit  # type: ignore[import-not-found]
    except ImportError:
        return
    if jit:
        pypyjit.set_param("threshold=50,function_threshold=50,trace_eagerness=20")


def warm(op: Callable[[bytes], object], messages: Sequence[bytes], jit: bool) -> None:
    """Run ``op`` until the interpreter settles: a few dozen calls, or under PyPy's JIT
    (``jit``) until the JIT is quiet."""
    if not PYPY or not jit:
        for _ in range(WARM_CALLS):
            for m in messages:
                op(m)
        return
    quiet = 0
    for _ in range(JIT_MAX_CALLS):
        before = Jit.events
        for m in messages:
            op(m)
        quiet = quiet + 1 if Jit.events == before else 0
        if quiet >= JIT_QUIET:
            return


def long_message(target: targets.Target) -> int:
    """The long message's length for ``target`` (see LONG_FAST)."""
    if PYPY:
        return LONG_FAST
    python_speed = target.kind == "interpreted" or bool(target.twin and not target.twin.annotations)
    return LONG if python_speed else LONG_FAST


def marks_of(library: str, jit: bool) -> ctypes.CDLL:
    """The client-request library loaded, the JIT watched (its thresholds lowered: ``jit``)."""
    marks = ctypes.CDLL(library)
    marks.bench_stop.argtypes = [ctypes.c_char_p]
    Jit.watch()
    lower_jit_thresholds(jit)
    return marks


#: A count's name, what ``op`` runs, and the messages it runs on (warmed up already).
Op = Tuple[str, Callable[[bytes], object], Sequence[bytes]]


def collect(marks: ctypes.CDLL, ops: Sequence[Op], jit: bool) -> None:
    """Each op warmed once more (what ran since may have evicted or deoptimized it), then
    counted ``REPEATS`` times on each of its messages, each count dumped as
    ``name|repeat|length``, the cyclic GC off; the instrumentation switched on once."""
    for _, op, messages in ops:
        warm(op, messages, jit)
    gc.collect()
    gc.disable()
    marks.bench_instrument()
    for name, op, messages in ops:
        for rep in range(REPEATS):
            for message in messages:
                marks.bench_start()
                op(message)
                marks.bench_stop(f"{name}|{rep}|{len(message)}".encode())
    gc.enable()


def count_here(
    names: Sequence[str], algorithms: Sequence[str], library: str, jit: bool = True
) -> None:
    """Count every row and algorithm (run under valgrind): the dumps carry the names;
    ``jit``: whether the mode runs a JIT (False: PyPy's ``--jit off``, kept off).

    Everything is warmed up first, uninstrumented (fast); then the
    instrumentation is switched on once (switching it flushes valgrind's
    translations, which costs) and each count collects only its own call.
    """
    marks = marks_of(library, jit)
    short = jdk_pattern(SHORT)
    ops: List[Op] = []
    for name in names:
        target = targets.load(name)
        if target.unavailable:
            continue
        long = jdk_pattern(long_message(target))
        for alg in algorithms:
            if alg not in target.constructors:
                continue
            op: Callable[[bytes], object] = partial(digest_of, target.constructors[alg])
            if op(short) != hashlib.new(alg, short).digest():
                raise AssertionError(f"{name} {alg} hashes wrongly")
            warm(op, (short, long), jit)
            ops.append((f"{name}|{alg}", op, (short, long)))
    collect(marks, ops, jit)


# --- the driver side ---------------------------------------------------------------------

_PART = re.compile(r"^desc: Trigger: Client Request: (\S+)$|^totals: (\d+)$", re.M)


def dumps(text: str) -> Dict[str, Dict[int, List[int]]]:
    """Every repeat's count of each name (``collect``'s), by length, from callgrind's
    combined dumps."""
    found: Dict[str, Dict[int, List[int]]] = {}
    name: Optional[str] = None
    for match in _PART.finditer(text):
        if match.group(1):
            name = match.group(1)
        elif name:
            head, _, size = name.rsplit("|", 2)
            found.setdefault(head, {}).setdefault(int(size), []).append(int(match.group(2)))
            name = None
    return found


def parse(text: str) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """Instructions per byte of each (row, algorithm), from callgrind's combined dumps."""
    found: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for key, totals in dumps(text).items():  # every repeat's count, by length
        if len(totals) == 2:
            shortest, longest = sorted(totals)
            short, long = min(totals[shortest]), min(totals[longest])
            row, _, alg = key.partition("|")
            found[(row, alg)] = {
                "instructions_per_byte": (long - short) / (longest - shortest),
                "instructions_short_message": short,
                "counts": {str(n): each for n, each in totals.items()},
            }
    return found


def valgrind(
    column: Column, results: Path, out: Path, *options: str
) -> Tuple[List[str], Dict[str, str]]:
    """valgrind's command line in ``column``'s world and the fixed environment of a count
    (Unavailable where the mode's tree has no valgrind)."""
    program = shutil.which("valgrind") or "valgrind"
    where = {i.label: i.where for i in modes.INTERPRETERS}.get(column.mode.interpreter)
    if where and where not in modes.HOST_PLACES:  # valgrind runs inside the tree
        program = "/usr/bin/valgrind"
        if not (modes.tree_path(where) / "usr/bin/valgrind").exists():
            raise Unavailable(f"no valgrind in the {where} tree (apt-get install valgrind there)")
    # Fixed paths and a fixed environment, whoever calls: their sizes move the stack and the
    # heap, and with them identity hashes and dict probes (counts moved by up to 1.5% between
    # a shell and nox). So the counts are the same run to run in one checkout.
    _, made, _ = launch.command(column, results)
    # sbin: a Debian tree's entry script runs chroot and mount, which live there
    fixed = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONHASHSEED": "0",
             "PYTHONDONTWRITEBYTECODE": "1", "LC_ALL": "C", **column.mode.env}  # fmt: skip
    if modes.BINDS_ENV in made:
        fixed[modes.BINDS_ENV] = made[modes.BINDS_ENV]
    out.unlink(missing_ok=True)
    return [program, "--tool=callgrind", *options, f"--callgrind-out-file={out}"], fixed


def counted(column: Column, results: Path, out: Path, options: Sequence[str],
            requests: Sequence[Dict[str, Any]]) -> str:  # fmt: skip
    """Ask a worker of ``column`` under valgrind ``requests``; callgrind's output (Unavailable
    with why, where it does not run, or runs past TIMEOUT)."""
    before, fixed = valgrind(column, results, out, *options)
    log = out.with_suffix(".log")
    with open(log, "w") as errors:
        w = launch.worker(column, results, errors, before=before, env=fixed)
        timer = threading.Timer(TIMEOUT, w.process.kill)
        timer.start()
        try:
            for request in requests:
                w.ask(request)
        except WorkerError as exc:
            if not timer.is_alive():
                raise Unavailable(f"under valgrind it took over {TIMEOUT} s") from None
            tail = " ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
            raise Unavailable(f"it does not run under valgrind ({exc}: {tail})") from None
        finally:
            w.close()
            timer.cancel()
    if not out.exists():
        raise Unavailable("it does not run under valgrind (no count was written)")
    text = out.read_text(errors="replace")
    out.unlink()
    return text


#: A JDK's interpreted modes are counted whole process (no client requests from Java): two
#: processes of each case, of these lengths at the same loops, their difference a byte's.
JDK_LENGTHS, JDK_LOOPS = (128, 1152), 20


def count(
    column: Column, names: Sequence[str], algorithms: Sequence[str], results: Path = RESULTS
) -> Tuple[Dict[Tuple[str, str], Dict[str, Any]], Optional[str]]:
    """Count in ``column``'s mode with valgrind: (counts by (row, algorithm), None), or ({}, why)
    (with a JIT, of the machine code it wrote too: the module's docstring)."""
    try:
        if column.classpath:
            return count_jdk(column, names, algorithms, results, out_file(column, results)), None
        kwargs = {"names": list(names), "algorithms": list(algorithms)}
        return parse(count_call(column, "profile.callgrind.count_here", kwargs, results)), None
    except Unavailable as exc:
        return {}, str(exc)


#: valgrind's options of a count between client requests (``collect``).
MARKED = ("--instr-atstart=no", "--collect-atstart=no", "--combine-dumps=yes", "--dump-line=no",
          "--smc-check=all-non-file")  # fmt: skip


def out_file(column: Column, results: Path) -> Path:
    (results / ".callgrind" / column.label).mkdir(parents=True, exist_ok=True)
    return results / ".callgrind" / column.label / "callgrind.out"


def count_call(column: Column, function: str, kwargs: Dict[str, Any], results: Path) -> str:
    """callgrind's dumps of the worker function ``function`` (``bench.<module>.<name>``, its
    counts ``collect``'s) called in ``column``'s mode with ``kwargs``, the client-request
    library's and the mode's JIT (``library``, ``jit``) added; Unavailable with why."""
    library = marks_library(results / ".callgrind")
    call = {"op": "call", "function": function,
            "kwargs": {**kwargs, "library": str(library), "jit": column.mode.jit}}  # fmt: skip
    return counted(column, results, out_file(column, results), MARKED, [call])


def count_jdk(column: Column, names: Sequence[str], algorithms: Sequence[str], results: Path,
              out: Path) -> Dict[Tuple[str, str], Dict[str, Any]]:  # fmt: skip
    """A JDK's interpreted mode (``-Xint``, Zero; its JIT modes' counts would be of when the
    compiler threads ran): each case's whole process at two lengths, prepared at known loops
    (one warm-up value) and one value; the difference over the extra bytes is a byte's."""
    if column.mode.jit:
        raise Unavailable("a JIT mode of the JDK (its compiler threads' work would be counted)")
    found: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for name in names:
        for alg in algorithms:
            totals = []
            for n in JDK_LENGTHS:
                case = f"digest/{alg}/{name}/{n}"
                prepare = {"op": "prepare", "cases": [{"name": case, "loops": JDK_LOOPS}],
                           "min_time": 0.0, "jit": False, "clock": "cpu"}  # fmt: skip
                text = counted(column, results, out, (), [prepare, {"op": "value", "case": case}])
                totals.append(int(re.findall(r"^(?:summary|totals): (\d+)", text, re.M)[-1]))
            per = (totals[1] - totals[0]) / (2 * JDK_LOOPS * (JDK_LENGTHS[1] - JDK_LENGTHS[0]))
            counts = dict(zip(map(str, JDK_LENGTHS), totals))
            found[(name, alg)] = {"instructions_per_byte": per, "counts": counts,
                                  "instructions_short_message": totals[0]}  # fmt: skip
    return found


#: The cache's part for the counts of study runs (see the module's docstring).
COUNTS = "counts"


@cache
def counting_tools() -> Tuple[str, str]:
    """What every mode's counts share: the digest of the bench sources (envs.source_digest)
    and valgrind's version; read once a process, not once a mode."""
    from bench.conduct.envs import source_digest

    sources = sorted(p.relative_to(ROOT) for p in (ROOT / "bench").rglob("*")
                     if p.suffix in (".py", ".java"))  # fmt: skip
    try:
        version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    return source_digest(sources), version


def counts_key(column: Column, names: Sequence[str], algorithms: Sequence[str]) -> str:
    """The key of ``column``'s counts of ``names`` x ``algorithms``: the mode, its program
    and classes (their folders' names carry the build's digest), the interpreter's facts,
    the bench sources and valgrind's version."""
    from bench.conduct.envs import build_cache

    sources, version = counting_tools()
    facts = {"program": column.program, "classpath": column.classpath,
             "mode": column.mode.as_json(), "runtime": column.listing.runtime,
             "names": list(names), "algorithms": list(algorithms), "valgrind": version,
             "sources": sources}  # fmt: skip
    return str(build_cache.digest(COUNTS, repr(sorted(facts.items()))))


def counts_file(key: str) -> Path:
    from bench.conduct.envs import build_cache

    return Path(build_cache.root()) / COUNTS / f"{key}.json"


def count_kept(
    column: Column, names: Sequence[str], algorithms: Sequence[str], results: Path, reuse: bool
) -> Tuple[Dict[Tuple[str, str], Dict[str, Any]], Optional[str]]:
    """``count``, through the cache: kept counts when ``reuse`` and the key matches; new
    counts kept (not a mode's reason for having none: valgrind may be installed later)."""
    from bench import store

    path = counts_file(counts_key(column, names, algorithms))
    if reuse and path.is_file():
        try:
            kept = store.read_record(path)["rows"]
        except store.FormatError:
            kept = None  # of another bench: counted again, and kept in this one's format
        if kept is not None:
            print(f"instructions: {column.label}: reusing the counts kept in {path} (the "
                  "same mode, environment, interpreter, bench sources and valgrind)")  # fmt: skip
            return {(r["variant"], r["algorithm"]): r["counts"] for r in kept}, None
    found, why = count(column, names, algorithms, results)
    if why is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"variant": v, "algorithm": a, "counts": c} for (v, a), c in found.items()]
        temporary = path.with_suffix(f".{threading.get_ident()}.tmp")
        store.write_record(temporary, {"rows": rows})
        temporary.replace(path)  # whole, whoever reads it at the same time
    return found, why


def count_run(folder: Path, results: Path = RESULTS, reuse: bool = True) -> List[str]:
    """Count, for a study run, the helper and streamlined styles of every mode that measured
    them (the README's instruction columns), two modes at a time; into the run's folder
    (``instructions.json``). What could not be counted, with why. ``reuse``: take the counts
    the cache keeps for a mode whose key matches (the module's docstring)."""
    from concurrent.futures import ThreadPoolExecutor

    from bench import store
    from bench.catalog.comparisons import STREAMLINED, TEXTBOOK

    run = store.load(folder)
    chosen = [c for c in run.columns if {TEXTBOOK, STREAMLINED} <= set(c.listing.variants)
              and not (c.classpath and c.mode.jit)]  # fmt: skip
    algorithms = run.layout.algorithms()

    def one(column: Column) -> Tuple[str, Dict[Tuple[str, str], Dict[str, Any]], Optional[str]]:
        names = [TEXTBOOK, STREAMLINED]
        found, why = count_kept(column, names, algorithms, results, reuse)
        return column.label, found, why

    rows, problems = [], []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for label, found, why in pool.map(one, chosen):
            rows += [{"mode": label, "variant": v, "algorithm": a, **{k: c[k] for k in
                      ("instructions_per_byte", "instructions_short_message")}}
                     for (v, a), c in found.items()]  # fmt: skip
            if why:
                problems.append(f"{label}: {why}")
    store.write_counts(folder, rows)
    return problems
