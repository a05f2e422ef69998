r"""Quick checks, "A against B", one process per mode, interleaved: ``python -m bench check SET``.

    python -m bench check native --python 3.11=ENV_PYTHON   # the drop-in against hashlib
    python -m bench check batch --python 3.11=ENV_PYTHON    # digest_many against the loop
    python -m bench check columns --python 3.11=ENV_PYTHON  # digest_column against the loop
    python -m bench check cli --python 3.11=ENV_PYTHON --size 256M   # variants-sum vs coreutils
    python -m bench check variants --variants 'helpers*' --length 16384   # each against hashlib
    python -m bench check tricks                            # the generator's shapes

Each set is a list of Pairs (``bench.core.timing``): a baseline and a candidate, timed in
turn round after round by the one timing core, compared as the study compares (fastest
values, ``bench.core.stats``: one process, so the interval is over its rounds), and checked
against a target where the set has one: the least speed, the baseline's time over the
candidate's. ``--python`` runs the set under each mode of that environment's interpreter.
The product's sets (native, batch, columns, cli) are ``bench.product.checks``'; here the
study's: ``variants``, every variant against hashlib, a compiled twin against its source;
``tricks``, every shape ``tools/gen_streamlined.py`` can write, block function alone,
against the first shape of its algorithm (the committed shapes are marked).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import shutil
import sys
from dataclasses import asdict, replace
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Tuple

from .catalog import targets
from .catalog.cases import digest_of, jdk_pattern
from .core import stats
from .core.fmt import ratio, table
from .core.timing import Pair, Timed, both, call_timer, interleave, measure
from .product import checks
from .product.checks import CheckRun
from .store import ROOT

KIB, MIB = checks.KIB, checks.MIB
Op = Callable[[], object]


def variants_set(args: CheckRun) -> Iterator[Pair]:
    data = jdk_pattern(args.length)
    names = targets.select([p for p in args.variants.split(",") if p], references=False)
    reference = targets.load(targets.HASHLIB)
    for alg in args.algorithms.split(","):
        for t in map(targets.load, names):
            if t.unavailable or alg not in t.constructors:
                continue
            mine = t.constructors[alg]
            yield both(
                f"{t.name} {alg} against hashlib",
                digest_of,
                reference.constructors[alg],
                mine,
                data,
            )
            source = targets.load(t.twin.source) if t.twin else None
            if source and not source.unavailable:
                label = f"{t.name} {alg} against {source.name}"
                yield both(label, digest_of, source.constructors[alg], mine, data)


def generator() -> Any:
    """``tools/gen_streamlined.py``, loaded by path (tools/ is not a package)."""
    path = ROOT / "tools" / "gen_streamlined.py"
    spec = importlib.util.spec_from_file_location("gen_streamlined", path)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gen  # dataclasses look their module up
    spec.loader.exec_module(gen)
    return gen


def shapes(gen: Any) -> List[Tuple[str, Any]]:
    """(label, shape) of every trick; the first of each algorithm is its baseline."""
    m, s = gen.Md5Shape, gen.Sha256Shape
    rolling = {"schedule": "rolling"}
    return [
        ("rolled: a loop per round, textbook masks", m(unroll=False, mask_rotation=True)),
        ("rolled, no mask after rotate", m(unroll=False)),
        ("unrolled, textbook masks", m(mask_rotation=True)),
        ("unrolled, no mask after rotate", m()),
        ("unrolled, no mask, rotate by multiply", m(rotate_by_multiply=True)),
        ("unrolled, no mask, words from bytes", m(loads="bytewise")),
        ("... and i64 annotations", m(loads="bytewise", native_ints=True)),
        ("rotations, rolling schedule", s(rounds="rotate", schedule_sigma="rotate", **rolling)),
        ("widened Σ, rolling schedule", s(rounds="widen", schedule_sigma="rotate", **rolling)),
        ("widened Σ and σ", s(rounds="widen", **rolling)),
        ("widened Σ and σ, words from bytes", s(rounds="widen", loads="bytewise", **rolling)),
        (
            "... and i64 annotations",
            s(rounds="widen", loads="bytewise", native_ints=True, **rolling),
        ),
        ("multiplied Σ and σ", s(schedule_sigma="multiply", **rolling)),
        ("widened Σ, batched schedule", s(rounds="widen")),
        ("multiplied Σ, batched schedule", s()),
    ]


def tricks(args: CheckRun) -> Iterator[Pair]:
    from variants._tables import MD5_IV, SHA256_IV

    gen = generator()
    view = memoryview(jdk_pattern(args.length // 64 * 64))
    committed = {gen.render(shape) for shape in gen.FILES.values()}
    first: Dict[str, Op] = {}
    for label, shape in shapes(gen):
        alg = "md5" if isinstance(shape, gen.Md5Shape) else "sha256"
        source = gen.render(shape)
        scope: Dict[str, Any] = {}
        try:
            exec(compile(source, "<generated>", "exec"), scope)
        except ImportError as exc:  # the i64 shapes import mypy_extensions
            print(f"skipped {alg} {label!r}: {exc}", file=sys.stderr)
            continue
        op = partial(scope["compress"], MD5_IV if alg == "md5" else SHA256_IV, view)
        base = first.setdefault(alg, op)
        yield Pair(f"{alg} {label}", base, op, note="committed" if source in committed else "")


SETS: Dict[str, Callable[[CheckRun], Iterator[Pair]]] = {
    **checks.SETS,
    "variants": variants_set,
    "tricks": tricks,
}


def shown(seconds: float) -> str:
    scale, unit = next(
        (f, u) for f, u in ((1, "s"), (1e-3, "ms"), (1e-6, "µs"), (0, "ns")) if seconds >= f
    )
    return f"{seconds / (scale or 1e-9):.4g} {unit}"


def check_here(args: CheckRun) -> Tuple[str, int]:
    """Run one case set in this process: its table, and the number of targets missed."""
    rows = [["comparison", "baseline", "candidate", "speed (95%)", "target", "note"]]
    missed = 0
    try:
        for pair in SETS[args.set](args):
            if pair.loops:
                ops = (("a", pair.baseline), ("b", pair.candidate))
                timed = {n: Timed(n, call_timer(op, pair.clock, n), pair.loops) for n, op in ops}
                pair.baseline(), pair.candidate()  # untimed: warm caches (the page cache)
                interleave(list(timed.values()), args.rounds)
            else:
                candidates = {"a": pair.baseline, "b": pair.candidate}
                # under a JIT (the mode's, or this process's), warm-ups until it settles
                timed = measure(candidates, args.rounds, clock=pair.clock, jit=args.jit)
            keyed = {n: {(0, r): v for r, v in enumerate(t.values)} for n, t in timed.items()}
            speed = stats.ratio(keyed["a"], keyed["b"])
            assert speed is not None
            met = (
                ""
                if pair.at_least is None
                else ("met" if speed.value >= pair.at_least else "MISSED")
            )
            missed += met == "MISSED"
            times = [stats.time_of(timed[n].values) / pair.items for n in ("a", "b")]
            rows.append(
                [
                    pair.label,
                    *map(shown, times),
                    f"{ratio(speed.value)} ({ratio(speed.low)}-{ratio(speed.high)})",
                    f">= {pair.at_least:.2f}x: {met}" if met else "",
                    pair.note,
                ]
            )
            print(f"  {pair.label}: {speed.value:.3f}", file=sys.stderr, flush=True)
    finally:
        for folder in args.cleanup:
            shutil.rmtree(folder, ignore_errors=True)
    text = [
        f"{platform.python_implementation()} {platform.python_version()}: {args.set}, "
        f"fastest of {args.rounds} interleaved rounds; {missed} target(s) missed",
        table(rows, "lrrrll"),
    ]
    if args.peaks:
        peak = max(args.peaks.values())
        met = "met" if peak < 64 * MIB else "MISSED"
        text.append(f"\nvariants-sum peak RSS {peak / MIB:.1f} MiB (target under 64 MiB: {met})")
        missed += peak >= 64 * MIB
    return "\n".join(text), missed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("set", choices=sorted(SETS), help="the case set")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--length", type=int, default=16384, help="variants, tricks: bytes")
    parser.add_argument("--size", default="1G", help="cli: the big file's size")
    parser.add_argument("--files", type=int, default=64, help="cli: files of 16 MiB for -j")
    parser.add_argument("--small", type=int, default=10_000, help="cli: files of 4 KiB")
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")


def remote(options: Dict[str, Any]) -> Tuple[str, int]:
    """In a mode's process (``command`` starts it there): the set, as ``check_here`` runs it."""
    return check_here(CheckRun.of(options))


def command(args: argparse.Namespace) -> int:
    """Run the set here (no --python) or under each mode of the environments given."""
    from .conduct import launch
    from .conduct.options import Options

    check = CheckRun.of(vars(args))
    if not args.python and not args.pythons:
        text, missed = check_here(check)
        print(text)
        return 1 if args.strict and missed else 0
    missed = 0
    for column in launch.python_columns(Options.of(args)):
        print(f"## {column.label}", flush=True)
        options = {**asdict(replace(check, cleanup=[], peaks={})), "jit": column.mode.jit}
        text, more = launch.call(column, "check.remote", args.results, options=options)
        print(text, flush=True)
        missed += more
    return 1 if args.strict and missed else 0
