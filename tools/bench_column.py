"""Time digest_column against issue 18's targets, interleaved in one process.

    PYTHONPATH=/tmp/x python3 tools/bench_column.py              # the column cases
    PYTHONPATH=/tmp/x python3 tools/bench_column.py --peers      # with the hashlib loop
    PYTHONPATH=/tmp/x python3 tools/bench_column.py --threads    # 1,000,000 x 1 KiB, threads=0

(after ``python3 -m build_support.native --into /tmp/x``; needs numpy and pyarrow). The
columns are pyarrow string arrays of random ASCII: 1,000,000 rows of 32 bytes, and of
lengths 1-64. Each round runs every case once, in turn; the report gives each case's
lower quartile over the rounds, by the wall clock and by the process's CPU time (which a
shared, loaded machine disturbs less; the threads cases need the wall clock). A quick
look, not the study (``nox -s bench``).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from typing import Any, Callable, Dict, List

import numpy as np  # type: ignore[import-not-found,unused-ignore]
import pyarrow as pa  # type: ignore[import-not-found,import-untyped,unused-ignore]

import variants


def ascii_column(lengths: Any, rng: Any) -> Any:
    """A string array with rows of these lengths, of random lowercase letters."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(97, 123, int(offsets[-1]), dtype=np.uint8)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.large_string(), len(lengths), buffers).cast(pa.string())


def cases(kind: str, rows: int) -> Dict[str, Callable[[], object]]:
    rng = np.random.default_rng(1)
    if kind == "threads":
        big = ascii_column(np.full(rows, 1024), rng)
        return {
            "md5 1 KiB threads=1": lambda: variants.md5_column(big),
            "md5 1 KiB threads=0": lambda: variants.md5_column(big, threads=0),
            "sha256 1 KiB threads=1": lambda: variants.sha256_column(big),
            "sha256 1 KiB threads=0": lambda: variants.sha256_column(big, threads=0),
        }
    equal = ascii_column(np.full(rows, 32), rng)
    if kind == "peers":
        texts: List[str] = equal.to_pylist()
        md5, sha256 = hashlib.md5, hashlib.sha256
        return {
            "hashlib md5 hex": lambda: [md5(t.encode()).hexdigest() for t in texts],
            "md5_many hex": lambda: variants.md5_many([t.encode() for t in texts], hexdigest=True),
            "md5_column hex": lambda: variants.md5_column(equal, hexdigest=True),
            "hashlib sha256 hex": lambda: [sha256(t.encode()).hexdigest() for t in texts],
            "sha256_column hex": lambda: variants.sha256_column(equal, hexdigest=True),
        }
    mixed = ascii_column(rng.integers(1, 65, rows), rng)
    return {
        "md5 32 B binary": lambda: variants.md5_column(equal),
        "md5 32 B hex": lambda: variants.md5_column(equal, hexdigest=True),
        "md5 1-64 B hex": lambda: variants.md5_column(mixed, hexdigest=True),
        "sha256 32 B binary": lambda: variants.sha256_column(equal),
        "sha256 32 B hex": lambda: variants.sha256_column(equal, hexdigest=True),
        "sha256 1-64 B hex": lambda: variants.sha256_column(mixed, hexdigest=True),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--peers", action="store_true", help="with the hashlib loop")
    group.add_argument("--threads", action="store_true", help="1 KiB rows, threads=0")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    kind = "peers" if args.peers else "threads" if args.threads else "columns"
    run = cases(kind, args.rows)
    wall: Dict[str, List[float]] = {name: [] for name in run}
    cpu: Dict[str, List[float]] = {name: [] for name in run}
    for _ in range(args.rounds):
        for name, case in run.items():
            started, used = time.perf_counter(), time.process_time()
            case()
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - used)
    quartile = args.rounds // 4
    print(f"{args.rows} rows, lower quartiles of {args.rounds} rounds, ns a row")
    for name in run:
        per_row = [sorted(times[name])[quartile] * 1e9 / args.rows for times in (wall, cpu)]
        print(f"{name:24s} wall {per_row[0]:8.1f}   cpu {per_row[1]:8.1f}")


if __name__ == "__main__":
    main()
