"""Machine instructions per call of each style of a styles file, counted by callgrind.

``python -m bench styles FILE`` counts, after measuring (``--no-count`` skips it), each style
at each size in every mode of the run, its compiled twins' too, with the study's machinery
(``bench.profile.callgrind``: the worker under valgrind in the mode's world, the same client
requests, warm-up, repeats and fixed environment): ``count_here`` runs in the worker, warms
every (style, size) up natively (under a JIT until it is quiet), then counts one call of each
``REPEATS`` times and keeps the least; an empty call counted the same way is taken off each,
so what is left is the style's own work. Each style ÷ the baseline, same mode and size, is
the instructions' answer to the question the times answer: it does not move with the
machine's load. Written to the run's ``style_instructions.json`` (``callgrind.json`` in runs
before the name said what it holds); the report's tables and
summary.json's ``instructions`` read it. A mode that cannot run under valgrind (or a machine
without valgrind) is named with why.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import store
from ..catalog import styles
from ..catalog.columns import Column
from ..core.fmt import grid
from . import callgrind, marks

#: The counts' file in the run's folder.
INSTRUCTIONS = "style_instructions.json"  # not instructions.json: a hash study run's
#: Its name in the runs before this one (read still).
OLD_NAME = "callgrind.json"
#: What runs in the worker, under valgrind.
HERE = "profile.style_instructions.count_here"
#: The empty call's name among the counts.
EMPTY = "|empty|"


def path_of(folder: Path) -> Path:
    """The counts' file of the run in ``folder`` (under its older name in an older run)."""
    path = folder / INSTRUCTIONS
    return path if path.exists() or not (folder / OLD_NAME).exists() else folder / OLD_NAME


def count_here(path: str, library: str, jit: bool = True) -> None:
    """Count every style of the styles file at ``path`` that agrees with its baseline, at
    every size, and an empty call (run under valgrind): ``marks.collect``'s dumps."""
    library_marks = marks.marks_of(library, jit)
    found = styles.load(Path(path))
    wrong = styles.failures(found)
    nothing = (b"",)
    ops: List[marks.Op] = [(EMPTY, lambda _: None, nothing)]
    for size in found.sizes:
        if found.fresh_at(size):  # each call's inputs made in it: their making counted apart
            ops.append((f"{EMPTY}{size}", made_of(found, size), nothing))
        for name in (n for n in found.names if n not in wrong):
            style = found.style(name)
            op = (
                fresh_call_of(style, found, size)
                if found.fresh_at(size)
                else call_of(style, styles.arguments(found, size))
            )
            marks.warm(op, nothing, jit)
            ops.append((f"{name}|{size}", op, nothing))
    marks.collect(library_marks, ops, jit)


def call_of(style: Callable[..., Any], args: Tuple[Any, ...]) -> Callable[[bytes], object]:
    return lambda _: style(*args)


def made_of(found: styles.StylesFile, size: int) -> Callable[[bytes], object]:
    """An empty call of a FRESH size: the inputs made, nothing called on them."""
    return lambda _: styles.arguments(found, size)


def fresh_call_of(
    style: Callable[..., Any], found: styles.StylesFile, size: int
) -> Callable[[bytes], object]:
    """A call of a FRESH size: its own inputs made, then the style called on them."""
    return lambda _: style(*styles.arguments(found, size))


def rows_of(text: str) -> List[Dict[str, Any]]:
    """Each (style, size)'s instructions per call, the empty call's taken off (at a FRESH
    size, the empty call that makes the inputs: ``EMPTY`` followed by the size)."""
    lowest = {
        name: min(v for each in totals.values() for v in each)
        for name, totals in callgrind.dumps(text).items()
    }
    empty = lowest.pop(EMPTY, 0)
    making = {int(n[len(EMPTY) :]): lowest.pop(n) for n in list(lowest) if n.startswith(EMPTY)}
    return [
        {
            "style": name.rsplit("|", 1)[0],
            "size": int(name.rsplit("|", 1)[1]),
            "instructions": total - making.get(int(name.rsplit("|", 1)[1]), empty),
        }
        for name, total in lowest.items()
    ]


def count(folder: Path, columns: List[Column], file: str, results: Path) -> List[str]:
    """Count every mode of ``columns`` (each its own file: a twin's, or ``file``), two at a
    time, into ``folder``'s INSTRUCTIONS; the notes of the modes that could not count."""

    def one(column: Column) -> Tuple[str, Dict[str, Any]]:
        kwargs = {"path": column.listing.styles or file}
        try:
            text = callgrind.count_call(column, HERE, kwargs, results)
        except callgrind.Unavailable as exc:
            return column.label, {"why": str(exc)}
        return column.label, {"rows": rows_of(text)}

    with ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(pool.map(one, columns))
    store.write_record(folder / INSTRUCTIONS, {"modes": found})
    return [
        f"no instruction counts under {label}: {m['why']}"
        for label, m in found.items()
        if "why" in m
    ]


def ratios(folder: Path, baseline: str) -> Dict[str, List[Dict[str, Any]]]:
    """Per mode, each style's instructions per call and ÷ the baseline's at its size (the
    summary's ``instructions``); {} where nothing was counted."""
    path = path_of(folder)
    if not path.exists():
        return {}
    found = store.read_record(path)["modes"]
    out: Dict[str, List[Dict[str, Any]]] = {}
    for label, m in found.items():
        rows = m.get("rows") or []
        base = {r["size"]: r["instructions"] for r in rows if r["style"] == baseline}
        out[label] = [
            {**r, "ratio": r["instructions"] / base[r["size"]] if base.get(r["size"]) else None}
            for r in rows
        ]
    return {label: rows for label, rows in out.items() if rows}


def shown(value: Any) -> Optional[str]:
    return None if value is None else f"{value:.3g}" if isinstance(value, float) else str(value)


def lines(folder: Path, baseline: str) -> List[str]:
    """The report's tables: each style ÷ the baseline in instructions, per mode and size, and
    the instructions per call."""
    found = ratios(folder, baseline)
    if not found:
        return []
    labels = list(found)
    keyed = {(label, r["style"], r["size"]): r for label in labels for r in found[label]}
    cases = list(dict.fromkeys((s, n) for _, s, n in keyed))
    out = []
    for title, key in (
        (f"Instructions, each style ÷ {baseline}", "ratio"),
        ("Machine instructions per call", "instructions"),
    ):
        rows = [
            [s, str(n), *(shown(keyed.get((x, s, n), {}).get(key)) for x in labels)]
            for s, n in cases
            if s != baseline or key != "ratio"
        ]
        out += [
            f"**{title}** (callgrind, same mode and size; the least of "
            f"{marks.REPEATS} counts, an empty call's taken off; a JIT's code counted):",
            "",
            grid(["style", "size", *labels], rows, 2),
            "",
        ]
    return out
