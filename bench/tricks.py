"""What each streamlining trick buys: the generator's code shapes, timed side by side.

Renders every shape ``tools/gen_streamlined.py`` can write, compiles it in
memory and times its block function alone (no shell), interleaved, on the
running interpreter. The committed shapes are marked.

    python bench/tricks.py                  # CPython: a minute or two
    pypy3 bench/tricks.py --warmup 30       # PyPy: let the JIT warm up first
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))

import gen_streamlined as gen  # noqa: E402
from interleaved import measure, table  # noqa: E402

from variants._tables import MD5_IV, SHA256_IV  # noqa: E402

#: (algorithm, label, source). The first shape of each algorithm is the baseline.
M, S = gen.Md5Shape, gen.Sha256Shape
_SHAPES: List[Tuple[str, gen.Shape]] = [
    ("rolled: a loop per round, textbook masks", M(unroll=False, mask_rotation=True)),
    ("rolled, no mask after rotate", M(unroll=False)),
    ("unrolled, textbook masks", M(mask_rotation=True)),
    ("unrolled, no mask after rotate", M()),
    ("unrolled, no mask, rotate by multiply", M(rotate_by_multiply=True)),
    ("unrolled, no mask, words from bytes", M(loads="bytewise")),
    ("... and i64 annotations", M(loads="bytewise", native_ints=True)),
    (
        "rotations, rolling schedule",
        S(rounds="rotate", schedule="rolling", schedule_sigma="rotate"),
    ),
    ("widened Σ, rolling schedule", S(rounds="widen", schedule="rolling", schedule_sigma="rotate")),
    ("widened Σ and σ", S(rounds="widen", schedule="rolling")),
    ("widened Σ and σ, words from bytes", S(rounds="widen", schedule="rolling", loads="bytewise")),
    (
        "... and i64 annotations",
        S(rounds="widen", schedule="rolling", loads="bytewise", native_ints=True),
    ),
    ("multiplied Σ and σ", S(schedule="rolling", schedule_sigma="multiply")),
    ("widened Σ, batched schedule", S(rounds="widen")),
    ("multiplied Σ, batched schedule", S()),
]
#: (algorithm, label, source). The first shape of each algorithm is the baseline.
SHAPES: List[Tuple[str, str, str]] = [
    ("md5" if isinstance(shape, M) else "sha256", label, gen.render(shape))
    for label, shape in _SHAPES
]
COMMITTED = {gen.render(shape) for shape in gen.FILES.values()}


def compile_shape(source: str) -> Callable[..., object]:
    namespace: Dict[str, object] = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["compress"]  # type: ignore[return-value]


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--length", type=int, default=4096, help="bytes per call (whole blocks)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=1, help="calls before timing (PyPy: 30)")
    args = parser.parse_args(argv)
    data = memoryview(bytes(i & 0xFF for i in range(args.length // 64 * 64)))
    candidates = {}
    for algorithm, label, source in SHAPES:
        try:
            compress = compile_shape(source)
        except ImportError as exc:  # the i64 shapes import mypy_extensions
            print(f"skipped {algorithm} {label!r}: {exc}")
            continue
        iv = MD5_IV if algorithm == "md5" else SHA256_IV
        candidates[(algorithm, label, source in COMMITTED)] = lambda compress=compress, iv=iv: (
            compress(iv, data)
        )
    impl = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{impl}: block functions on {len(data)} bytes, {args.rounds} interleaved rounds")
    keyed = {f"{a}|{label}": fn for (a, label, _), fn in candidates.items()}
    medians = measure(keyed, rounds=args.rounds, warmup=args.warmup, progress=sys.stdout.isatty())
    rows = [["algorithm", "shape", "MB/s", "x first shape", "committed"]]
    baseline: Dict[str, float] = {}
    for algorithm, label, committed in candidates:
        seconds = medians[f"{algorithm}|{label}"]
        baseline.setdefault(algorithm, seconds)
        rows.append(
            [
                algorithm,
                label,
                f"{len(data) / seconds / 1e6:.3f}",
                f"{baseline[algorithm] / seconds:.2f}",
                "yes" if committed else "",
            ]
        )
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
