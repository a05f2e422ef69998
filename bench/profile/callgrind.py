"""Machine instructions per byte of every variant, counted by valgrind's callgrind.

    python -m bench bytecode --python 3.14=/path/to/venv/bin/python   # counts per mode

Instruction counts do not depend on what else the machine is doing, so they answer the style
question without the noise of a shared machine. This module is the driver: it compiles the
client-request library, starts each mode's interpreter under valgrind and reads the counts
back; what runs inside the interpreter is ``bench.profile.marks``, and a study run's counts
are kept across runs by ``bench.profile.count_cache``. Each interpreter runs
``bench.profile.marks.count_here`` under ``valgrind --tool=callgrind --instr-atstart=no``:
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

With a JIT (``PYTHON_JIT=1`` on CPython 3.14/3.15, PyPy) the counts include the machine code
the JIT wrote: valgrind translates every instruction the process executes, wherever it lies
(callgrind files it under the object ``???``, anonymous memory; ``--smc-check=all-non-file``
catches code written or patched there); two runs count every row the same to the instruction
(``python -m bench stability`` on two bytecode runs checks it). What callgrind cannot do there:
name the Python function a piece of JIT code belongs to (it has no symbols), or count the
compiling itself, which happens during the warm-up, before the counts. Under a Debian tree's
interpreter valgrind runs inside the tree (it must be installed there). An interpreter that
cannot run under valgrind (or a machine without valgrind) is reported with the reason. A styles
file's counts (``python -m bench styles``) are ``bench.profile.style_instructions``'.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..catalog import modes
from ..catalog.columns import Column
from ..conduct import launch
from ..core.protocol import WorkerError
from ..store import RESULTS

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
    fixed = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LC_ALL": "C",
        **column.mode.env,
    }
    if modes.BINDS_ENV in made:
        fixed[modes.BINDS_ENV] = made[modes.BINDS_ENV]
    out.unlink(missing_ok=True)
    return [program, "--tool=callgrind", *options, f"--callgrind-out-file={out}"], fixed


def counted(
    column: Column,
    results: Path,
    out: Path,
    options: Sequence[str],
    requests: Sequence[Dict[str, Any]],
) -> str:
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
        return parse(count_call(column, "profile.marks.count_here", kwargs, results)), None
    except Unavailable as exc:
        return {}, str(exc)


#: valgrind's options of a count between client requests (``collect``).
MARKED = (
    "--instr-atstart=no",
    "--collect-atstart=no",
    "--combine-dumps=yes",
    "--dump-line=no",
    "--smc-check=all-non-file",
)


def out_file(column: Column, results: Path) -> Path:
    (results / ".callgrind" / column.label).mkdir(parents=True, exist_ok=True)
    return results / ".callgrind" / column.label / "callgrind.out"


def count_call(column: Column, function: str, kwargs: Dict[str, Any], results: Path) -> str:
    """callgrind's dumps of the worker function ``function`` (``bench.<module>.<name>``, its
    counts ``collect``'s) called in ``column``'s mode with ``kwargs``, the client-request
    library's and the mode's JIT (``library``, ``jit``) added; Unavailable with why."""
    library = marks_library(results / ".callgrind")
    call = {
        "op": "call",
        "function": function,
        "kwargs": {**kwargs, "library": str(library), "jit": column.mode.jit},
    }
    return counted(column, results, out_file(column, results), MARKED, [call])


def count_jdk(
    column: Column, names: Sequence[str], algorithms: Sequence[str], results: Path, out: Path
) -> Dict[Tuple[str, str], Dict[str, Any]]:
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
                prepare = {
                    "op": "prepare",
                    "cases": [{"name": case, "loops": JDK_LOOPS}],
                    "min_time": 0.0,
                    "jit": False,
                    "clock": "cpu",
                }
                text = counted(column, results, out, (), [prepare, {"op": "value", "case": case}])
                totals.append(int(re.findall(r"^(?:summary|totals): (\d+)", text, re.M)[-1]))
            per = (totals[1] - totals[0]) / (2 * JDK_LOOPS * (JDK_LENGTHS[1] - JDK_LENGTHS[0]))
            counts = dict(zip(map(str, JDK_LENGTHS), totals))
            found[(name, alg)] = {
                "instructions_per_byte": per,
                "counts": counts,
                "instructions_short_message": totals[0],
            }
    return found


#: The cache's part for the counts of study runs (see the module's docstring).
