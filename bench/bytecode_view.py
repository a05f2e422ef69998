"""nox -s bytecode: why the helper style is slow, in bytecode instructions.

    python bench/bytecode_view.py measure --out results/bytecode/x/3.12.json   # this interpreter
    python bench/bytecode_view.py report results/bytecode/x                    # the folder's files

For every interpreted variant and block function (md5, sha256), under the
running interpreter:

* executed: bytecode instructions and Python-level calls per 64-byte block
  (block function on 64 blocks, divided by 64), counted with sys.monitoring on
  3.12+ and with opcode tracing (``sys.settrace``, ``f_trace_opcodes``) before;
  calls into C (builtins, ``struct``) counted apart;
* the shell: instructions outside the block function for a 64-byte message
  (``h = constructor(); h.update(msg); h.digest()``), the cost every call pays;
* static: instructions of the block function (``dis``, nested code included)
  and of every function in its module (the helpers);
* measured: time per block, untraced (median of interleaved rounds), and so
  time per executed instruction.

On PyPy the counts are those of its bytecode interpreter (what runs before the
JIT compiles), the time that of JIT-compiled code: its time per instruction says
how far the JIT gets below the interpreter's cost.
"""

from __future__ import annotations

import argparse
import dis
import json
import statistics
import sys
import time
import types
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from cases import interpreter_info, jdk_pattern, load_target, registered_names
from machine import cpu_label, table, today

BLOCKS = 64
PYPY = sys.implementation.name == "pypy"


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
    return {"instructions": own, "bytes": len(code.co_code), "module_instructions": total}


class Counts:
    """Executed instructions by code object, Python calls and C calls, while active."""

    def __init__(self) -> None:
        # Keyed by id(): hashing a code object hashes its constants, thousands
        # of them in an unrolled block function, on every instruction.
        self.instructions: Counter[int] = Counter()
        self.codes: Dict[int, types.CodeType] = {}
        self.python_calls = 0
        self.c_calls = 0

    def run(self, fn: Callable[[], object]) -> None:
        if sys.version_info >= (3, 12) and not PYPY:
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

        mon.use_tool_id(tool, "bytecode_view")
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


def outside(filename: str) -> Callable[[types.CodeType], bool]:
    """Whether a code object lies outside the file ``filename`` (the block function's)."""
    return lambda code: code.co_filename != filename


def block_call(compress: Callable[..., Any], iv: Any, view: memoryview) -> Callable[[], object]:
    """A call of the block function on ``view`` from ``iv``."""
    return lambda: compress(iv, view)


def time_blocks(
    candidates: Dict[str, Callable[[], object]], rounds: int, warm_seconds: float
) -> Dict[str, float]:
    """Median seconds per call of each candidate, rounds interleaved, after warming up."""
    clock = time.process_time
    for fn in candidates.values():
        until = clock() + warm_seconds
        fn()
        while clock() < until:
            fn()
    times: Dict[str, List[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def measure(variants: Sequence[str], rounds: int) -> Dict[str, Any]:
    from variants._tables import MD5_IV, SHA256_IV

    ivs = {"md5": MD5_IV, "sha256": SHA256_IV}
    data = jdk_pattern(64 * BLOCKS)
    view = memoryview(data)
    message = jdk_pattern(64)
    rows: List[Dict[str, Any]] = []
    for name in variants:
        target = load_target(name)
        if target.unavailable or target.kind != "interpreted":
            continue
        for alg, compress in target.compress.items():
            filename = compress.__code__.co_filename
            counts = Counts()
            counts.run(block_call(compress, ivs[alg], view))
            constructor = target.constructors[alg]

            def one_message(constructor: Callable[..., Any] = constructor) -> None:
                h = constructor()
                h.update(message)
                h.digest()

            shell = Counts()
            shell.run(one_message)
            rows.append(
                {
                    "variant": name,
                    "algorithm": alg,
                    "module": compress.__module__,
                    "static": static_size(compress),
                    "instructions_per_block": counts.total() / BLOCKS,
                    "python_calls_per_block": counts.python_calls / BLOCKS,
                    "c_calls_per_block": counts.c_calls / BLOCKS,
                    "shell_instructions": shell.total(outside(filename)),
                    "shell_python_calls": shell.python_calls,
                }
            )
    result = {"rows": rows}
    add_times(result, rounds)
    counter = "sys.monitoring" if sys.version_info >= (3, 12) and not PYPY else "sys.settrace"
    return {
        "interpreter": interpreter_info(),
        "counter": counter,
        "cpu": cpu_label(),
        "date": today(),
        "rows": rows,
    }


def add_times(result: Dict[str, Any], rounds: int) -> None:
    """Time every row's block function once more (untraced); per block: the median sample.

    The driver calls this for each interpreter in turn, several times, so that
    the times of different interpreters are taken over the same stretch.
    """
    from variants._tables import MD5_IV, SHA256_IV

    ivs = {"md5": MD5_IV, "sha256": SHA256_IV}
    view = memoryview(jdk_pattern(64 * BLOCKS))
    timed: Dict[str, Callable[[], object]] = {}
    for row in result["rows"]:
        compress = load_target(row["variant"]).compress[row["algorithm"]]
        timed[f"{row['variant']}/{row['algorithm']}"] = block_call(
            compress, ivs[row["algorithm"]], view
        )
    print(f"  timing {len(timed)} block functions on {BLOCKS} blocks, {rounds} rounds", flush=True)
    medians = time_blocks(timed, rounds, 2.0 if PYPY else 0.05)
    for row in result["rows"]:
        samples = row.setdefault("time_samples", [])
        samples.append(medians[f"{row['variant']}/{row['algorithm']}"] / BLOCKS)
        row["seconds_per_block"] = statistics.median(samples)
        row["ns_per_instruction"] = row["seconds_per_block"] / row["instructions_per_block"] * 1e9


# --- the report ------------------------------------------------------------------------


def _fmt(x: Optional[float], digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}g}" if abs(x) < 10**digits else f"{x:.0f}"


def report(folder: Path) -> str:
    runs = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    runs = [r for r in runs if "rows" in r]
    labels = [r["interpreter"]["label"] for r in runs]
    by: Dict[Tuple[str, str], Dict[str, Dict[str, Any]]] = {}
    for run in runs:
        for row in run["rows"]:
            by.setdefault((row["variant"], row["algorithm"]), {})[run["interpreter"]["label"]] = row

    def pivot(
        title: str, value: Callable[[Dict[str, Any]], Optional[float]], digits: int = 3
    ) -> str:
        rows = [["variant", "algorithm", *labels]]
        for (variant, alg), per in by.items():
            rows.append(
                [variant, alg, *(_fmt(value(per[i]), digits) if i in per else "—" for i in labels)]
            )
        return f"### {title}\n\n" + table(rows, "ll" + "r" * len(labels)) + "\n"

    first = runs[0]
    lines = [
        "# Bytecode view: what the interpreter executes per 64-byte block",
        "",
        f"{first['cpu']}, {first['date']}; interpreters: "
        + ", ".join(
            f"{r['interpreter']['label']} = {r['interpreter']['implementation']} "
            f"{r['interpreter']['version']} (counted with {r['counter']})"
            for r in runs
        )
        + f". Block functions on {BLOCKS} blocks; times untraced, process CPU time, medians.",
        "",
        pivot("Instructions executed per block", lambda r: r["instructions_per_block"], 4),
        pivot("Python-level calls per block", lambda r: r["python_calls_per_block"]),
        pivot("Calls into C per block (builtins, struct)", lambda r: r["c_calls_per_block"]),
        pivot(
            "Static size: instructions of the block function (dis, nested code included)",
            lambda r: r["static"]["instructions"],
            6,
        ),
        pivot(
            "Static size: instructions of every function in its module (helpers included)",
            lambda r: r["static"]["module_instructions"],
            6,
        ),
        pivot("Time per block (µs)", lambda r: r["seconds_per_block"] * 1e6),
        pivot("Time per executed instruction (ns)", lambda r: r["ns_per_instruction"]),
        pivot(
            "The shell: instructions outside the block function for one 64-byte message",
            lambda r: r["shell_instructions"],
            6,
        ),
    ]
    explain = [["interpreter", "algorithm", "instructions ×", "Python calls per block", "time ×"]]
    for label in labels:
        for alg in ("md5", "sha256"):
            helpers = by.get(("helpers", alg), {}).get(label)
            fast = by.get(("streamlined", alg), {}).get(label)
            if helpers and fast:
                explain.append(
                    [
                        label,
                        alg,
                        _fmt(helpers["instructions_per_block"] / fast["instructions_per_block"]),
                        f"{_fmt(helpers['python_calls_per_block'])} vs "
                        f"{_fmt(fast['python_calls_per_block'])}",
                        _fmt(helpers["seconds_per_block"] / fast["seconds_per_block"]),
                    ]
                )
    if len(explain) > 1:
        lines += [
            "### Why helpers is slow: helpers ÷ streamlined",
            "",
            "Instructions executed and time per block, helper style over streamlined: on the "
            "CPython interpreters the time ratio follows the instruction ratio (and the calls), "
            "as OpenJDK found for its interpreter.",
            "",
            table(explain, "llrlr"),
            "",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="count and time under this interpreter")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--variants", default="", help="names, comma-separated (default: all)")
    m.add_argument("--rounds", type=int, default=15)
    t = sub.add_parser("time", help="time once more, adding to a measure file")
    t.add_argument("file", type=Path)
    t.add_argument("--rounds", type=int, default=15)
    r = sub.add_parser("report", help="one report from a folder of measure files")
    r.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.command == "measure":
        names = [n for n in args.variants.split(",") if n] or registered_names()
        label = interpreter_info()["label"]
        print(f"bytecode: {label}, {', '.join(names)}", flush=True)
        result = measure(names, args.rounds)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
        for row in result["rows"]:
            print(
                f"  {label} {row['variant']} {row['algorithm']}: "
                f"{row['instructions_per_block']:.0f} instructions and "
                f"{row['python_calls_per_block']:.0f} Python calls per block, "
                f"{row['seconds_per_block'] * 1e6:.1f} µs per block, "
                f"{row['ns_per_instruction']:.2f} ns per instruction"
            )
        return 0
    if args.command == "time":
        result = json.loads(args.file.read_text())
        add_times(result, args.rounds)
        args.file.write_text(json.dumps(result, indent=1))
        return 0
    text = report(args.folder)
    (args.folder / "bytecode.md").write_text(text)
    print(text)
    print(f"bytecode: {args.folder / 'bytecode.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
