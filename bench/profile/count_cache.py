"""A study run's instruction counts, kept across runs (``count_run``, ``count_kept``).

A study run's counts are kept in the per-user cache (``<cache>/counts``, build_support/cache.py)
under a key of what they depend on: the mode, its environment (whose folder name is the
digest of the build's sources) and interpreter, the bench sources that drive the count, and
valgrind's version. A later run with all of these the same, from this checkout or another
clone, reuses them (the log says so) rather than spending minutes counting the same
instructions again; ``--recount`` counts anyway.
"""

from __future__ import annotations

import subprocess
import threading
from functools import cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..catalog.columns import Column
from ..store import RESULTS, ROOT
from . import callgrind

#: The cache's part (build_support/cache.py) of the counts.
COUNTS = "counts"


@cache
def counting_tools() -> Tuple[str, str]:
    """What every mode's counts share: the digest of the bench sources (envs.source_digest)
    and valgrind's version; read once a process, not once a mode."""
    from ..conduct.envs import source_digest

    sources = sorted(
        p.relative_to(ROOT) for p in (ROOT / "bench").rglob("*") if p.suffix in (".py", ".java")
    )
    try:
        version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    return source_digest(sources), version


def counts_key(column: Column, names: Sequence[str], algorithms: Sequence[str]) -> str:
    """The key of ``column``'s counts of ``names`` x ``algorithms``: the mode, its program
    and classes (their folders' names carry the build's digest), the interpreter's facts,
    the bench sources and valgrind's version."""
    from ..conduct.envs import build_cache

    sources, version = counting_tools()
    facts = {
        "program": column.program,
        "classpath": column.classpath,
        "mode": column.mode.as_json(),
        "runtime": column.listing.runtime,
        "names": list(names),
        "algorithms": list(algorithms),
        "valgrind": version,
        "sources": sources,
    }
    return str(build_cache.digest(COUNTS, repr(sorted(facts.items()))))


def counts_file(key: str) -> Path:
    from ..conduct.envs import build_cache

    return Path(build_cache.root()) / COUNTS / f"{key}.json"


def count_kept(
    column: Column, names: Sequence[str], algorithms: Sequence[str], results: Path, reuse: bool
) -> Tuple[Dict[Tuple[str, str], Dict[str, Any]], Optional[str]]:
    """``count``, through the cache: kept counts when ``reuse`` and the key matches; new
    counts kept (not a mode's reason for having none: valgrind may be installed later)."""
    from .. import store

    path = counts_file(counts_key(column, names, algorithms))
    if reuse and path.is_file():
        try:
            kept = store.read_record(path)["rows"]
        except store.FormatError:
            kept = None  # of another bench: counted again, and kept in this one's format
        if kept is not None:
            print(
                f"instructions: {column.label}: reusing the counts kept in {path} (the "
                "same mode, environment, interpreter, bench sources and valgrind)"
            )
            return {(r["variant"], r["algorithm"]): r["counts"] for r in kept}, None
    found, why = callgrind.count(column, names, algorithms, results)
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

    from .. import store
    from ..catalog.comparisons import STREAMLINED, TEXTBOOK

    run = store.load(folder)
    chosen = [
        c
        for c in run.columns
        if {TEXTBOOK, STREAMLINED} <= set(c.listing.variants) and not (c.classpath and c.mode.jit)
    ]
    algorithms = run.layout.algorithms()

    def one(column: Column) -> Tuple[str, Dict[Tuple[str, str], Dict[str, Any]], Optional[str]]:
        names = [TEXTBOOK, STREAMLINED]
        found, why = count_kept(column, names, algorithms, results, reuse)
        return column.label, found, why

    rows, problems = [], []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for label, found, why in pool.map(one, chosen):
            rows += [
                {
                    "mode": label,
                    "variant": v,
                    "algorithm": a,
                    **{k: c[k] for k in ("instructions_per_byte", "instructions_short_message")},
                }
                for (v, a), c in found.items()
            ]
            if why:
                problems.append(f"{label}: {why}")
    store.write_counts(folder, rows)
    return problems
