"""Quick "A against B" comparisons, one process per mode, interleaved: named case sets.

    python -m bench compare native --python 3.11=ENV_PYTHON   # the drop-in against hashlib
    python -m bench compare batch --python 3.11=ENV_PYTHON    # digest_many against the loop
    python -m bench compare cli --python 3.11=ENV_PYTHON --size 256M   # variants-sum vs coreutils
    python -m bench compare variants --variants 'helpers*' --length 16384   # each against hashlib
    python -m bench compare tricks                            # the generator's shapes

Each case set is a list of ``Pair``: a baseline and a candidate, timed in turn round after
round by the one timing core (``bench.timing``), compared as the study compares (fastest
values, ``bench.stats``: one process, so the interval is over its rounds), and checked
against a target where the set has one: the least speed, the baseline's time over the
candidate's. ``--python`` runs the set under each mode of that environment's interpreter.

The sets (each target, the least speed, is in its code and in the table's "target" column):
``native``, the drop-in against hashlib (and CPython's own ``_md5``): getAndDigest of 64
bytes, ``update(16 B)``, one-shot digests of 1 KiB to 1 MiB; ``batch``, ``md5_many`` and
``sha256_many`` against the hashlib loop, and ``threads=2`` against ``threads=1`` (wall
clock); ``cli``, whole ``variants-sum`` processes against ``md5sum``/``sha256sum`` and ``-j 2``
against ``-j 1`` (wall clock, the files in the page cache), with the peak RSS (GNU time);
``variants``, every variant against hashlib, a compiled twin against its source;
``tricks``, every shape ``tools/gen_streamlined.py`` can write, block function alone,
against the first shape of its algorithm (the committed shapes are marked).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from bench import stats
from bench.cases import jdk_pattern
from bench.fmt import ratio, size_label, table
from bench.layout import ROOT
from bench.timing import Timed, call_timer, interleave, measure

PYPY = sys.implementation.name == "pypy"
KIB, MIB = 1024, 1 << 20
Op = Callable[[], object]


@dataclass(frozen=True)
class Pair:
    """One comparison: the baseline against the candidate, and the least speed wanted."""

    label: str
    baseline: Op
    candidate: Op
    at_least: Optional[float] = None
    clock: str = "thread"
    note: str = ""
    #: Operations per value (0: calibrated); a whole process runs once per value.
    loops: int = 0


def digest(constructor: Callable[..., Any], data: bytes) -> object:
    return constructor(data).digest()


def spelled(constructor: Callable[..., Any], data: bytes) -> object:
    h = constructor()
    h.update(data)
    return h.digest()


def loop(constructor: Callable[..., Any], messages: List[bytes]) -> object:
    """The hashlib loop that a batch replaces."""
    return [constructor(m).digest() for m in messages]


def builtin(algorithm: str) -> Optional[Callable[..., Any]]:
    """CPython's own C implementation (``_md5``, ``_sha2`` or ``_sha256``), if any."""
    for module in ("_md5", "_sha2", "_sha256"):
        try:
            found = getattr(importlib.import_module(module), algorithm, None)
        except ImportError:
            continue
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def both(
    label: str,
    fn: Callable[..., object],
    base: Any,
    cand: Any,
    *args: Any,
    least: Optional[float] = None,
    clock: str = "thread",
    loops: int = 0,
) -> Pair:
    """``fn(base, *args)`` against ``fn(cand, *args)``."""
    return Pair(label, partial(fn, base, *args), partial(fn, cand, *args), least, clock,
                loops=loops)  # fmt: skip


def update(h: Any, data: bytes) -> None:
    h.update(data)


def native(args: argparse.Namespace) -> Iterator[Pair]:
    import variants.native

    short, piece = jdk_pattern(64), jdk_pattern(16)
    at = 1.0 if PYPY else 1 / 0.65
    for alg in ("md5", "sha256"):
        theirs: Callable[..., Any] = getattr(hashlib, alg)
        ours: Callable[..., Any] = variants.native.bridge().constructors()[alg]
        yield both(f"{alg} getAndDigest 64 B", digest, theirs, ours, short, least=at)
        own = None if PYPY else builtin(alg)
        if alg == "md5" and own is not None:
            yield both("md5 getAndDigest 64 B, against _md5", digest, own, ours, short, least=1.0)
        if not PYPY:
            yield both(f"{alg} new, update, digest, 64 B", spelled, theirs, ours, short, least=at)
            yield both(f"{alg} update(16 B)", update, theirs(), ours(), piece, least=1.0)
        for length in (KIB, 16 * KIB, MIB):
            least = 1.0 if PYPY or alg == "sha256" else 1.05
            label = f"{alg} one shot {size_label(length)}"
            yield both(label, digest, theirs, ours, jdk_pattern(length), least=least)


def batch(args: argparse.Namespace) -> Iterator[Pair]:
    import variants
    from variants.native import kernel

    avx512 = "AVX-512" in kernel().get("md5-many", "")
    sizes = [(256, 4 * KIB, {"md5": 8.0 if avx512 else 5.0, "sha256": 1.7}),
             (1_000_000, 32, {"md5": 10.0, "sha256": 8.0})]  # fmt: skip
    for alg in ("md5", "sha256"):
        many: Callable[..., List[bytes]] = getattr(variants, f"{alg}_many")
        one: Callable[..., Any] = getattr(hashlib, alg)
        for number, length, least in sizes:
            base = jdk_pattern(length + 256)
            msgs = [base[i % 256 : i % 256 + length] for i in range(number)]
            assert many(msgs[:100]) == [one(m).digest() for m in msgs[:100]]
            yield Pair(f"{alg}_many {number} x {length} B", partial(loop, one, msgs),
                       partial(many, msgs), least[alg])  # fmt: skip
        big = [jdk_pattern(64 * KIB)] * 256
        yield Pair(f"{alg}_many 256 x 64 KiB, threads=2 vs 1", partial(many, big, threads=1),
                   partial(many, big, threads=2), 1.8, "wall")  # fmt: skip


def run_command(command: Sequence[str], peaks: Dict[str, int]) -> None:
    """Run ``command``, under GNU time where there is one: variants-sum's peak RSS."""
    gnu_time = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
    with tempfile.NamedTemporaryFile("r") as usage:
        wrapped = [gnu_time, "-f", "%M", "-o", usage.name, *command] if gnu_time else command
        subprocess.run(wrapped, stdout=subprocess.DEVNULL, check=True)
        if gnu_time and Path(command[0]).name not in ("md5sum", "sha256sum"):
            peaks[command[0]] = max(peaks.get(command[0], 0), int(usage.read().split()[-1]) * KIB)


def parse_size(text: str) -> int:
    units = {"K": KIB, "M": MIB, "G": 1 << 30}
    unit = units.get(text[-1:].upper())
    return int(float(text[:-1]) * unit) if unit else int(text)


def cli(args: argparse.Namespace) -> Iterator[Pair]:
    script = Path(sys.executable).parent / "variants-sum"
    tool = [str(script)] if script.exists() else [sys.executable, "-m", "variants"]
    folder = Path(tempfile.mkdtemp(prefix="bench-cli-", dir="/tmp"))
    args.cleanup.append(folder)
    block = os.urandom(MIB)
    big, parts = folder / "big.bin", [folder / f"part{i:02d}.bin" for i in range(args.files)]
    for path, size in [(big, parse_size(args.size)), *((p, 16 * MIB) for p in parts)]:
        with open(path, "wb") as f:
            for start in range(0, size, MIB):
                f.write(block[: min(MIB, size - start)])
    for alg, least in (("md5", 1.1), ("sha256", 3.0)):
        theirs, ours = [f"{alg}sum", str(big)], [*tool, "-a", alg, str(big)]
        one = subprocess.run(theirs, capture_output=True, check=True).stdout
        if subprocess.run(ours, capture_output=True, check=True).stdout != one:
            raise SystemExit(f"variants-sum -a {alg} and {alg}sum disagree")
        yield both(f"variants-sum -a {alg} vs {alg}sum", run_command, theirs, ours, args.peaks,
                   least=least, clock="wall", loops=1)  # fmt: skip
        jobs = [[*tool, "-a", alg, "-j", j, *map(str, parts)] for j in ("1", "2")]
        yield both(f"-a {alg} -j 2 vs -j 1, {args.files} x 16 MiB", run_command, *jobs,
                   args.peaks, least=1.6, clock="wall", loops=1)  # fmt: skip


def variants_set(args: argparse.Namespace) -> Iterator[Pair]:
    from bench import targets

    data = jdk_pattern(args.length)
    names = targets.select([p for p in args.variants.split(",") if p], references=False)
    reference = targets.load(targets.HASHLIB)
    for alg in args.algorithms.split(","):
        for t in map(targets.load, names):
            if t.unavailable or alg not in t.constructors:
                continue
            mine = t.constructors[alg]
            yield both(f"{t.name} {alg} against hashlib", digest, reference.constructors[alg],
                       mine, data)  # fmt: skip
            source = targets.load(t.twin[0]) if t.twin else None
            if source and not source.unavailable:
                label = f"{t.name} {alg} against {source.name}"
                yield both(label, digest, source.constructors[alg], mine, data)


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


def tricks(args: argparse.Namespace) -> Iterator[Pair]:
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


SETS: Dict[str, Callable[[argparse.Namespace], Iterator[Pair]]] = {
    "native": native,
    "batch": batch,
    "cli": cli,
    "variants": variants_set,
    "tricks": tricks,
}


def shown(seconds: float) -> str:
    scale, unit = next((f, u) for f, u in ((1, "s"), (1e-3, "ms"), (1e-6, "µs"), (0, "ns"))
                       if seconds >= f)  # fmt: skip
    return f"{seconds / (scale or 1e-9):.4g} {unit}"


def compare_here(args: argparse.Namespace) -> Tuple[str, int]:
    """Run one case set in this process: its table, and the number of targets missed."""
    rows = [["comparison", "baseline", "candidate", "speed (95%)", "target", "note"]]
    missed = 0
    args.cleanup, args.peaks = [], {}
    try:
        for pair in SETS[args.set](args):
            if pair.loops:
                ops = (("a", pair.baseline), ("b", pair.candidate))
                timed = {n: Timed(n, call_timer(op, pair.clock, n), pair.loops) for n, op in ops}
                pair.baseline(), pair.candidate()  # untimed: warm caches (the page cache)
                interleave(list(timed.values()), args.rounds)
            else:
                timed = measure(
                    {"a": pair.baseline, "b": pair.candidate}, args.rounds, clock=pair.clock
                )
            keyed = {n: {(0, r): v for r, v in enumerate(t.values)} for n, t in timed.items()}
            speed = stats.ratio(keyed["a"], keyed["b"])
            assert speed is not None
            met = (
                ""
                if pair.at_least is None
                else ("met" if speed.value >= pair.at_least else "MISSED")
            )
            missed += met == "MISSED"
            times = [stats.time_of(timed[n].values) for n in ("a", "b")]
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
    import platform

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
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")


#: What a mode's process needs of the options (``remote``).
OPTIONS = ("set", "rounds", "length", "size", "files", "variants", "algorithms")


def remote(options: Dict[str, Any]) -> Tuple[str, int]:
    """In a mode's process (``command`` starts it there): the set, as ``compare_here`` runs it."""
    return compare_here(argparse.Namespace(**options))


def command(args: argparse.Namespace) -> int:
    """Run the set here (no --python) or under each mode of the environments given."""
    from bench import columns

    if not args.python and not args.pythons:
        text, missed = compare_here(args)
        print(text)
        return 1 if args.strict and missed else 0
    options = {name: getattr(args, name) for name in OPTIONS}
    missed = 0
    for column in columns.columns_of(args):
        print(f"## {column.label}", flush=True)
        text, more = column.call("compare.remote", args.results, options=options)
        print(text, flush=True)
        missed += more
    return 1 if args.strict and missed else 0
