"""``nox -s bytecode``: what each Python mode executes per block, in bytecode and machine code.

    python -m bench bytecode --python 3.11=/path/to/venv/bin/python --python pypy3=...
    python -m bench bytecode --python 3.14=... --modes '3.14*' --variants helpers,streamlined

For every Python mode, each in its environment: machine instructions per byte of every row
(``bench.profile.callgrind``, two modes at a time); for the interpreted variants, on 4 KiB
(64 blocks; SHA-512's 32, of 128 bytes), bytecode instructions executed, Python-level calls and
calls into C per block of the algorithm's own (a SHA-512 block is two of the others' bytes)
(sys.monitoring on 3.12+, opcode tracing before), the block function's static size (``dis``)
and the shell's instructions for one 64-byte message; and, untraced, the block function's
time per block and every row's digest time per byte at 16 KiB, the modes taking turns three
times: time per bytecode and per machine instruction. Under a JIT the bytecode counts are the
interpreter's, the times and instructions those of the compiled code. Writes
``bytecode.json`` and ``bytecode.md`` into ``results/bytecode/<date-time>/`` (the JDK's counts
are the study run's own, ``bench run``).
"""

from __future__ import annotations

import argparse
import dis
import sys
import time
import types
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .. import store
from ..catalog import styles, targets
from ..catalog.cases import digest_of, jdk_pattern
from ..catalog.columns import Column
from ..catalog.comparisons import TEXTBOOK
from ..conduct import launch
from ..conduct.options import Options
from ..core.fmt import count, grid, ratio, table
from ..core.machine import PYPY, cpu_label, interpreter_info, interpreter_title, today
from ..core.stats import time_of
from ..core.timing import Timed, call_timer, interleave
from . import callgrind, marks, save

BLOCKS = 64
TIMED_LENGTH = 16384


# --- under each interpreter ---------------------------------------------------------------


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def static_size(fn: Callable[..., Any]) -> Dict[str, int]:
    """Instructions (dis) of the block function and of all functions of its module."""
    code: types.CodeType = fn.__code__
    own = sum(len(list(dis.get_instructions(c))) for c in code_objects(code))
    module = sys.modules[fn.__module__]
    total = 0
    seen = set()
    for value in vars(module).values():
        inner = getattr(value, "__code__", None)
        if isinstance(inner, types.CodeType) and inner.co_filename == code.co_filename:
            for c in code_objects(inner):
                if id(c) not in seen:
                    seen.add(id(c))
                    total += len(list(dis.get_instructions(c)))
    return {"instructions": own, "module_instructions": total}


class Counts:
    """Executed bytecode instructions by code object, Python calls and C calls, while active."""

    def __init__(self) -> None:
        # Keyed by id(): hashing a code object hashes its constants, thousands
        # of them in an unrolled block function, on every instruction.
        self.instructions: Counter[int] = Counter()
        self.codes: Dict[int, types.CodeType] = {}
        self.python_calls = 0
        self.c_calls = 0

    @staticmethod
    def counter() -> str:
        return "sys.monitoring" if sys.version_info >= (3, 12) and not PYPY else "sys.settrace"

    def run(self, fn: Callable[[], object]) -> None:
        if self.counter() == "sys.monitoring":
            self._monitor(fn)
        else:
            self._trace(fn)

    def _monitor(self, fn: Callable[[], object]) -> None:
        mon: Any = getattr(sys, "monitoring")  # noqa: B009 (3.12+; mypy targets 3.10)
        tool = next(t for t in range(6) if mon.get_tool(t) is None)
        events = mon.events
        here = sys._getframe().f_code

        def instruction(code: types.CodeType, offset: int) -> None:
            if code is not here:
                self.instructions[id(code)] += 1

        def start(code: types.CodeType, offset: int) -> None:
            self.python_calls += 1
            self.codes[id(code)] = code

        def call(code: types.CodeType, offset: int, callee: object, arg0: object) -> None:
            if not isinstance(callee, (types.FunctionType, types.MethodType, type)):
                self.c_calls += 1

        mon.use_tool_id(tool, "bench.bytecode")
        mon.register_callback(tool, events.INSTRUCTION, instruction)
        mon.register_callback(tool, events.PY_START, start)
        mon.register_callback(tool, events.CALL, call)
        mon.set_events(tool, events.INSTRUCTION | events.PY_START | events.CALL)
        try:
            fn()
        finally:
            mon.set_events(tool, 0)
            mon.free_tool_id(tool)

    def _trace(self, fn: Callable[[], object]) -> None:
        def tracer(frame: types.FrameType, event: str, arg: object) -> Any:
            if event == "call":
                self.python_calls += 1
                self.codes[id(frame.f_code)] = frame.f_code
                frame.f_trace_opcodes = True
                frame.f_trace_lines = False
            elif event == "opcode":
                self.instructions[id(frame.f_code)] += 1
            return tracer

        def profiler(frame: types.FrameType, event: str, arg: object) -> None:
            if event == "c_call":
                self.c_calls += 1

        sys.settrace(tracer)
        sys.setprofile(profiler)
        try:
            fn()
        finally:
            sys.setprofile(None)
            sys.settrace(None)

    def total(self, where: Optional[Callable[[types.CodeType], bool]] = None) -> int:
        """Instructions executed, in the code objects ``where`` accepts (default: all)."""
        return sum(
            n
            for key, n in self.instructions.items()
            if where is None or (key in self.codes and where(self.codes[key]))
        )


def elsewhere(filename: str, code: types.CodeType) -> bool:
    """Whether ``code`` lies outside the file ``filename`` (the block function's)."""
    return code.co_filename != filename


def names(variants: str) -> List[str]:
    """The rows ``variants`` (names or globs, comma-separated; "": all) names here."""
    return targets.select([p for p in variants.split(",") if p])


def count_bytecode(variants: str) -> Dict[str, Any]:
    """Bytecode counts of every interpreted variant's block functions, under this interpreter."""
    from variants._shell import ALGORITHMS

    view = memoryview(jdk_pattern(64 * BLOCKS))
    message = jdk_pattern(64)
    rows: List[Dict[str, Any]] = []
    for name in names(variants):
        target = targets.load(name)
        if target.unavailable or target.kind != "interpreted":
            continue
        for alg, compress in target.compress.items():
            filename = compress.__code__.co_filename
            iv = ALGORITHMS[alg].iv
            blocks = len(view) // ALGORITHMS[alg].block_size  # SHA-512's are 128 bytes
            counts = Counts()
            counts.run(partial(compress, iv, view))
            constructor = target.constructors[alg]
            shell = Counts()
            shell.run(partial(digest_of, constructor, message))
            rows.append(
                {
                    "variant": name,
                    "algorithm": alg,
                    "module": compress.__module__,
                    "static": static_size(compress),
                    "bytecode_per_block": counts.total() / blocks,
                    "python_calls_per_block": counts.python_calls / blocks,
                    "c_calls_per_block": counts.c_calls / blocks,
                    "shell_bytecode": shell.total(partial(elsewhere, filename)),
                }
            )
    return {"interpreter": interpreter_info(), "counter": Counts.counter(), "rows": rows}


def count_styles(path: str) -> Dict[str, Any]:
    """Bytecode instructions executed, Python-level calls and calls into C of one call of every
    style of a styles file (``bench.catalog.styles``) at every size, under this interpreter:
    {"rows": [{"style", "size", "bytecode", "python_calls", "c_calls"}], "counter": ...}; the
    styles whose result differs from the baseline's are left out."""
    found = styles.load(Path(path))
    wrong = styles.failures(found)
    rows = []
    for size in found.sizes:
        for name in (n for n in found.names if n not in wrong):
            args = styles.arguments(found, size)
            counts = Counts()
            counts.run(partial(found.style(name), *args))
            calls = {"python_calls": counts.python_calls, "c_calls": counts.c_calls}
            rows.append({"style": name, "size": size, "bytecode": counts.total(), **calls})
    return {"interpreter": interpreter_info(), "counter": Counts.counter(), "rows": rows}


def time_rows(variants: str, rounds: int, jit: bool) -> Dict[str, List[float]]:
    """Seconds per block (block functions) and per byte (digest at 16 KiB), interleaved."""
    from variants._shell import ALGORITHMS

    view = memoryview(jdk_pattern(64 * BLOCKS))
    data = jdk_pattern(TIMED_LENGTH)
    timed: List[Tuple[str, float, Timed]] = []
    for name in names(variants):
        target = targets.load(name)
        if target.unavailable:
            continue
        for alg in target.algorithms:
            digest = partial(digest_of, target.constructors[alg], data)
            key = f"digest|{name}|{alg}"
            timed.append((key, TIMED_LENGTH, Timed(key, call_timer(digest, "cpu", key))))
            if target.kind == "interpreted" and alg in target.compress:
                block = partial(target.compress[alg], ALGORITHMS[alg].iv, view)
                key = f"block|{name}|{alg}"
                blocks = len(view) // ALGORITHMS[alg].block_size
                timed.append((key, blocks, Timed(key, call_timer(block, "cpu", key))))
    for _, _, t in timed:
        t.prepare(0.005, jit=jit)
    interleave([t for _, _, t in timed], rounds)
    return {key: [v / units for v in t.values] for key, units, t in timed}


# --- the driver ---------------------------------------------------------------------------


def merge(
    labels: Sequence[str],
    bytecode: Dict[str, Dict[str, Any]],
    machine: Dict[str, Dict[Tuple[str, str], Dict[str, Any]]],
    times: Dict[str, Dict[str, List[float]]],
) -> List[Dict[str, Any]]:
    """One row per (interpreter, row, algorithm) with everything known of it."""
    rows: Dict[Tuple[str, str, str], Dict[str, Any]] = {}

    def row(label: str, variant: str, alg: str) -> Dict[str, Any]:
        empty = {"mode": label, "variant": variant, "algorithm": alg}
        return rows.setdefault((label, variant, alg), empty)

    for label in labels:
        for r in bytecode[label]["rows"]:
            row(label, r["variant"], r["algorithm"]).update(r)
        for (variant, alg), counted in machine.get(label, {}).items():
            kept = ("instructions_per_byte", "instructions_short_message")
            row(label, variant, alg).update({k: counted[k] for k in kept})
        for key, samples in times.get(label, {}).items():
            what, variant, alg = key.split("|")
            per = "seconds_per_byte" if what == "digest" else "seconds_per_block"
            row(label, variant, alg)[per] = time_of(samples)
    for r in rows.values():
        if r.get("seconds_per_block") and r.get("bytecode_per_block"):
            r["ns_per_bytecode"] = r["seconds_per_block"] / r["bytecode_per_block"] * 1e9
        if r.get("seconds_per_byte"):
            r["ns_per_byte"] = r["seconds_per_byte"] * 1e9
        if r.get("seconds_per_byte") and r.get("instructions_per_byte"):
            r["ns_per_instruction"] = r["seconds_per_byte"] / r["instructions_per_byte"] * 1e9
    return list(rows.values())


#: The report's tables: (title, the row's key, significant digits).
PIVOTS = (
    ("Machine instructions per byte (callgrind)", "instructions_per_byte", 4),
    ("Bytecode instructions executed per block", "bytecode_per_block", 4),
    ("Python-level calls per block", "python_calls_per_block", 3),
    ("Calls into C per block (builtins, struct)", "c_calls_per_block", 3),
    ("Static size: instructions of the block function (dis, nested code included)", "static", 6),
    ("The shell: bytecode outside the block function for one 64-byte message", "shell_bytecode", 6),
    ("Time per byte, 16 KiB digest (ns)", "ns_per_byte", 3),
    ("Time per executed bytecode instruction (ns)", "ns_per_bytecode", 3),
    ("Time per machine instruction (ns)", "ns_per_instruction", 3),
)


def value(row: Dict[str, Any], key: str) -> Any:
    """``row[key]``; of "static" (dis's sizes), the block function's own instructions."""
    found = row.get(key)
    return (found or {}).get("instructions") if key == "static" else found


def report(data: Dict[str, Any]) -> str:
    labels = list(data["interpreters"])
    rows = data["rows"]
    by: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["variant"], r["algorithm"]), {})[r["mode"]] = r

    def pivot(title: str, key: str, digits: int) -> str:
        lines = [
            [
                variant,
                alg,
                *(
                    count(found, digits)
                    if (found := value(per.get(x, {}), key)) is not None
                    else None
                    for x in labels
                ),
            ]
            for (variant, alg), per in by.items()
        ]
        return f"### {title}\n\n" + grid(["variant", "algorithm", *labels], lines, 2) + "\n"

    interps = "; ".join(
        f"{label} = {interpreter_title(info)} (bytecode counted with {info.get('counter', '?')}"
        + (f"; not under valgrind: {info['callgrind']}" if info.get("callgrind") else "")
        + ")"
        for label, info in data["interpreters"].items()
    )
    out = [
        "# Bytecode and machine instructions: what each interpreter executes",
        "",
        f"{data['cpu']}, {data['date']}; interpreters: {interps}. Machine instructions from "
        f"valgrind's callgrind ({marks.SHORT}-byte digests against {marks.LONG}-byte "
        f"ones, {marks.LONG_FAST}-byte for the rows at C speed and under PyPy; the "
        "least of five counts each; valgrind's virtual CPU has no SHA-NI, so native's and "
        "OpenSSL's SHA-256 counts are of their fallback code; with a JIT on, they include the "
        "machine code the JIT wrote); bytecode on "
        f"{BLOCKS} blocks; times untraced, process CPU time, fastest values.",
        "",
        *(pivot(title, key, digits) for title, key, digits in PIVOTS),
    ]
    why = [["interpreter", "shape", "algorithm", "bytecode ×", "machine instructions ×", "time ×"]]
    keys = ("bytecode_per_block", "instructions_per_byte", "seconds_per_byte")
    for label in labels:
        for (variant, alg), per in by.items():
            slow, fast = by.get((TEXTBOOK, alg), {}).get(label), per.get(label) or {}
            if variant != TEXTBOOK and slow and fast.get("bytecode_per_block") is not None:
                why.append([label, variant, alg, *(ratio(_quotient(slow, fast, k)) for k in keys)])
    if len(why) > 1:
        out += [
            "### Why helpers is slow: helpers ÷ each shape",
            "",
            "Bytecode executed per block, machine instructions per byte and time per byte (16 "
            "KiB digests), helper style over the shape, same interpreter: the JDK found its "
            "interpreter's time to follow the instructions.",
            "",
            table(why, "lllrrr"),
            "",
        ]
    return "\n".join(out)


def _quotient(a: Dict[str, Any], b: Dict[str, Any], key: str) -> Optional[float]:
    x, y = a.get(key), b.get(key)
    return x / y if x and y else None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=int, default=5, help="timed values per turn")
    parser.add_argument("--no-callgrind", action="store_true", help="skip the machine counts")
    parser.add_argument("--report", type=Path, help="only rewrite the report of a finished run")


def drive(args: argparse.Namespace) -> int:
    if args.report:
        save(args.report, "bytecode", report)
        return 0
    chosen = launch.python_columns(Options.of(args))
    labels = [c.label for c in chosen]
    folder = store.new_folder("bytecode", args.results)
    started = time.perf_counter()
    print(f"bytecode: {', '.join(labels)}; results: {folder}", flush=True)
    bytecode: Dict[str, Dict[str, Any]] = {}
    machine: Dict[str, Dict[Tuple[str, str], Dict[str, Any]]] = {}
    problems: Dict[str, str] = {}

    def counted(column: Column) -> str:
        label, chosen = column.label, column.mode.variants or args.variants
        bytecode[label] = launch.call(
            column, "profile.bytecode.count_bytecode", args.results, variants=chosen
        )
        if args.no_callgrind:
            problems[label] = "--no-callgrind"
            return f"{label}: bytecode counted"
        rows = launch.call(column, "profile.bytecode.names", args.results, variants=chosen)
        machine[label], problem = callgrind.count(column, rows, targets.ALGORITHMS, args.results)
        if problem:
            problems[label] = problem
        why = f"; not under valgrind: {problem}" if problem else ""
        return f"{label}: counted ({time.perf_counter() - started:.0f} s){why}"

    # Counting does not depend on the machine's load: two modes at a time.
    with ThreadPoolExecutor(max_workers=2) as pool:
        for line in pool.map(counted, chosen):
            print(f"  {line}", flush=True)
    times: Dict[str, Dict[str, List[float]]] = {label: {} for label in labels}
    for turn, column in enumerate([*chosen, *reversed(chosen), *chosen]):
        selected = column.mode.variants or args.variants
        got = launch.call(
            column,
            "profile.bytecode.time_rows",
            args.results,
            variants=selected,
            rounds=args.rounds,
            jit=column.mode.jit,
        )
        for key, samples in got.items():
            times[column.label].setdefault(key, []).extend(samples)
        print(
            f"  timed {column.label} (turn {turn + 1}, {time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    described = {
        c.label: {
            **bytecode[c.label]["interpreter"],
            "counter": bytecode[c.label]["counter"],
            "mode": c.mode.as_json(),
            "callgrind": problems.get(c.label),
        }
        for c in chosen
    }
    data = {
        "cpu": cpu_label(),
        "date": today(),
        "seconds": time.perf_counter() - started,
        "interpreters": described,
        "rows": merge(labels, bytecode, machine, times),
    }
    print(save(folder, "bytecode", report, data))
    print(f"bytecode: {folder / 'bytecode.md'} in {time.perf_counter() - started:.0f} s")
    return 0
