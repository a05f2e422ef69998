"""What each streamlining trick buys: the generator's code shapes, timed side by side.

Renders every shape ``tools/gen_streamlined.py`` can write, compiles it in
memory and times its block function alone (no shell), interleaved, on the
running interpreter. The committed shapes are marked.

    python -m bench.tricks                  # CPython: a minute or two
    pypy3 -m bench.tricks                   # PyPy: the timing core warms the JIT up

The generator is ``tools/gen_streamlined.py`` of this checkout, loaded by path.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
from functools import partial
from types import ModuleType
from typing import Callable, Dict, List, Tuple

from bench.fmt import table
from bench.layout import ROOT
from bench.stats import time_of
from bench.timing import measure


def generator() -> ModuleType:
    """``tools/gen_streamlined.py``, loaded by path (tools/ is not a package)."""
    path = ROOT / "tools" / "gen_streamlined.py"
    spec = importlib.util.spec_from_file_location("gen_streamlined", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gen = generator()

#: (algorithm, label, source). The first shape of each algorithm is the baseline.
M, S = gen.Md5Shape, gen.Sha256Shape
_SHAPES: List[Tuple[str, object]] = [
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
    args = parser.parse_args(argv)
    from variants._tables import MD5_IV, SHA256_IV

    data = memoryview(bytes(i & 0xFF for i in range(args.length // 64 * 64)))
    candidates: Dict[str, Callable[[], object]] = {}
    committed: Dict[str, bool] = {}
    for algorithm, label, source in SHAPES:
        try:
            compress = compile_shape(source)
        except ImportError as exc:  # the i64 shapes import mypy_extensions
            print(f"skipped {algorithm} {label!r}: {exc}")
            continue
        iv = MD5_IV if algorithm == "md5" else SHA256_IV
        key = f"{algorithm}|{label}"
        candidates[key] = partial(compress, iv, data)
        committed[key] = source in COMMITTED
    impl = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{impl}: block functions on {len(data)} bytes, {args.rounds} interleaved rounds")
    timed = measure(candidates, rounds=args.rounds)
    rows = [["algorithm", "shape", "MB/s", "x first shape", "committed"]]
    baseline: Dict[str, float] = {}
    for key, t in timed.items():
        algorithm, label = key.split("|")
        seconds = time_of(t.values)
        baseline.setdefault(algorithm, seconds)
        rows.append(
            [
                algorithm,
                label,
                f"{len(data) / seconds / 1e6:.3f}",
                f"{baseline[algorithm] / seconds:.2f}",
                "yes" if committed[key] else "",
            ]
        )
    print(table(rows, "llrrl"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
