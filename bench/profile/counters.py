"""The counts a study takes after measuring (``Study.counters``, by name), each a ``Counter``:
a run's folder in, its counts written beside the run, the notes of what could not be counted
out. ``bench.__main__`` runs a study's after its conductor; the report reads what they wrote.

* ``instructions``: the hash study's helper and streamlined styles in machine instructions,
  every mode that measured them (``bench.profile.count_cache.count_run``: ``instructions.json``);
* ``bytecode``: a styles file's bytecode instructions and calls per call of every style and
  size, under each interpreter of the run (``STYLE_BYTECODE``);
* ``style-instructions``: a styles file's machine instructions per call, every mode, a compiled
  twin's too (``bench.profile.style_instructions``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List

from .. import store
from ..catalog.study import Study
from ..catalog.styles_study import compiler_of
from ..conduct import launch
from ..store import STYLE_BYTECODE
from . import count_cache, style_instructions

#: (the run's folder, the workers' results folder, whether a cache's counts may be reused): the
#: notes of what could not be counted.
Counter = Callable[[Path, Path, bool], List[str]]


def hash_instructions(folder: Path, results: Path, reuse: bool) -> List[str]:
    return [
        f"instructions not counted under {p}"
        for p in count_cache.count_run(folder, results, reuse=reuse)
    ]


def style_bytecode(folder: Path, results: Path, reuse: bool) -> List[str]:
    """Bytecode instructions executed and Python-level calls of one call of every style and
    size, under each interpreter of the run (its first mode: tracing runs the interpreter,
    not a JIT), written to ``STYLE_BYTECODE``; the notes of those that could not count."""
    run = store.load(folder)
    found: Dict[str, Any] = {}
    notes = []
    seen = set()
    for column in run.columns:
        if column.mode.interpreter in seen or compiler_of(column.label):
            continue  # a twin runs no bytecode
        seen.add(column.mode.interpreter)
        try:
            found[column.label] = launch.call(
                column,
                "profile.bytecode.count_styles",
                results,
                path=str(run.header.record["file"]),
            )
        except Exception as exc:
            notes.append(f"no counts under {column.label}: {exc}")
    store.write_record(folder / STYLE_BYTECODE, {"interpreters": found})
    return notes


def style_machine_instructions(folder: Path, results: Path, reuse: bool) -> List[str]:
    """The instructions of every mode of a styles run, its compiled twins' too."""
    run = store.load(folder)
    file = str(run.header.record["file"])
    return style_instructions.count(folder, list(run.columns), file, results)


COUNTERS: Dict[str, Counter] = {
    "instructions": hash_instructions,
    "bytecode": style_bytecode,
    "style-instructions": style_machine_instructions,
}


def count(study: Study, folder: Path, results: Path, reuse: bool = True) -> List[str]:
    """Every counter of ``study`` over the run in ``folder``: the notes of what was not counted."""
    return [note for name in study.counters for note in COUNTERS[name](folder, results, reuse)]
