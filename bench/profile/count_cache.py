"""A study run's instruction counts, kept across runs (``count_run``, ``count_kept``).

A study run's counts are kept in the per-user cache (``<cache>/counts``, build_support/cache.py)
under a key of what they depend on: the mode, its environment (whose folder name is the
digest of the build's sources) and interpreter, the bench sources that make a count
(``COUNTING`` and every bench module they import: ``counting_sources``), and valgrind's
version. A later run with all of these the same, from this checkout or another clone, reuses
them (the log says so) rather than spending minutes counting the same instructions again;
``--recount`` counts anyway. A change to the rest of bench/ (the report, the conductor, the
pages) keeps the counts.
"""

from __future__ import annotations

import ast
import subprocess
import threading
from functools import cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..catalog.columns import Column
from ..store import RESULTS
from . import callgrind

#: The cache's part (build_support/cache.py) of the counts.
COUNTS = "counts"


#: The modules whose code makes a count: the worker the measured interpreter runs, what it
#: runs there (``bench.profile.marks``: the warm-up, the messages, the marks) and the driver that
#: starts it under valgrind (``bench.profile.callgrind``: valgrind's options, the worker's fixed
#: environment, a JDK's lengths and loops), by their names in this package. The key has them and
#: every module of the package they import, however indirectly (``counting_modules``): all that
#: the measured process loads of bench/ and all the driver runs. Their bytes, docstrings too:
#: what the process loads may move its heap, as the environment's size does (bench.profile.
#: callgrind). A JDK's Java sources are not among them: its classes' folder, in the key
#: (``Column.classpath``), is named by their digest (bench envs).
COUNTING = ("conduct.worker", "profile.marks", "profile.callgrind")
#: This package's folder (bench/ in a clone).
PACKAGE = Path(__file__).resolve().parent.parent


def module_file(name: str, package: Path = PACKAGE) -> Optional[Path]:
    """The file of module ``name`` of ``package`` (dotted, below the package; "": the package
    itself), or None where it has none (a name imported from a module, not a module)."""
    base = package.joinpath(*name.split(".")) if name else package
    return next((p for p in (base / "__init__.py", base.with_suffix(".py")) if p.is_file()), None)


def imports_of(name: str, package: Path = PACKAGE) -> Set[str]:
    """The modules of ``package`` that its module ``name`` imports anywhere in its code (in a
    function too), relative (``from ..core import timing``) or by the package's own name."""
    path = module_file(name, package)
    if path is None:
        raise FileNotFoundError(f"no module {name!r} in {package}")
    parts = name.split(".") if name else []
    here = parts if path.name == "__init__.py" else parts[:-1]
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            relative, named = False, [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            relative, module = node.level > 0, node.module.split(".") if node.module else []
            start = [*here[: len(here) - node.level + 1], *module] if relative else module
            named = [start, *([*start, a.name] for a in node.names)]  # ``from . import x``
        else:
            continue
        for full in named:
            inside = full if relative else full[1:] if full[:1] == [package.name] else None
            if inside is not None and module_file(".".join(inside), package):
                found.add(".".join(inside))
    return found


def counting_modules(package: Path = PACKAGE, roots: Sequence[str] = COUNTING) -> List[str]:
    """``roots`` and every module of ``package`` they import, however indirectly, with the
    packages above each (importing a module runs its packages' ``__init__`` first)."""
    seen: Set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".") if name else []
        todo += [".".join(parts[:i]) for i in range(len(parts))]
        todo += imports_of(name, package)
    return sorted(seen)


def counting_sources(package: Path = PACKAGE) -> List[Path]:
    """The files of ``counting_modules``, relative to the package's parent (the checkout)."""
    files = (module_file(m, package) for m in counting_modules(package))
    return sorted(f.relative_to(package.parent) for f in files if f is not None)


def counting_digest(package: Path = PACKAGE) -> str:
    """The digest of ``counting_sources``' names and contents (envs.source_digest)."""
    from ..conduct.envs import source_digest

    return source_digest(counting_sources(package), package.parent)


@cache
def counting_tools() -> Tuple[str, str]:
    """What every mode's counts share: ``counting_digest`` and valgrind's version; read once a
    process, not once a mode."""
    try:
        version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    return counting_digest(), version


def counts_key(column: Column, names: Sequence[str], algorithms: Sequence[str]) -> str:
    """The key of ``column``'s counts of ``names`` x ``algorithms``: the mode, its program
    and classes (their folders' names carry the build's digest), the interpreter's facts,
    the bench sources that make a count and valgrind's version."""
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
                "same mode, environment, interpreter, counting sources and valgrind)"
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
