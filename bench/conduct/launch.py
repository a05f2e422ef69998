"""How the study starts a process in a mode: launchers, options, environment, import folder.

A mode's process runs its runtime the mode's way (a Debian tree's entry script first, then the
interpreter or ``java`` with the mode's options and environment: ``PYTHON_JIT=1``, ``--jit
off``, ``-Xint``) and speaks the one protocol (``bench.core.protocol``). A Python worker must
import the *installed* ``variants`` of its environment, never the checkout's source tree
beside ``bench/``, so it runs from a folder that holds nothing but a link to ``bench/``.

``--python LABEL=PATH`` names an interpreter of ``bench.catalog.modes`` and its environment's
python (``--pythons FILE``: what ``bench envs`` recorded); every mode of it becomes a column
(``--modes`` to choose).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..catalog import modes
from ..catalog.columns import Column
from ..core.machine import interpreter_label
from ..core.protocol import Client
from .options import Options

BENCH = Path(__file__).resolve().parent.parent
#: This package's import name: ``bench`` in a clone, the tool's own where installed.
PACKAGE = __name__.split(".")[0]
#: The JDK worker's main class (bench/jdk/Worker.java, compiled by bench envs).
JAVA_MAIN = "Worker"


def import_folder(results: Path) -> Path:
    """A folder holding only a link to this package (made on first use, and made again where
    it links to another checkout's, or to one that is gone: several clones share /tmp)."""
    folder = results / ".bench-import"
    link = folder / PACKAGE
    if not (link.is_symlink() and link.resolve() == BENCH):
        folder.mkdir(parents=True, exist_ok=True)
        fresh = folder / f".bench-{os.getpid()}"
        fresh.unlink(missing_ok=True)
        fresh.symlink_to(BENCH, target_is_directory=True)
        os.replace(fresh, link)  # atomic: a process beside this one sees the old or the new
    return folder


def command(
    column: Column, results: Path, before: Sequence[str] = ()
) -> Tuple[List[str], Dict[str, str], Path]:
    """(argv, environment, working directory) of ``column``'s worker; ``before`` goes before
    the runtime (inside a Debian tree: valgrind)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    program = os.path.abspath(column.program) if os.sep in column.program else column.program
    java = [*modes.JAVA_OPTIONS, "-cp", column.classpath, JAVA_MAIN]
    tail = java if column.classpath else ["-m", f"{PACKAGE}.conduct.worker"]
    if column.mode.interpreter not in {i.label for i in modes.INTERPRETERS}:
        # an interpreter found or given outside the study's table: inside a Debian tree (its
        # path there), through the tree's entry script, with the tree binding what it needs
        inside = modes.tree_of(program)
        if inside is None:
            argv = [*before, program, *column.mode.args, *tail]
            return argv, {**env, **column.mode.env}, import_folder(results)
        suite, there = inside
        given = os.environ.get(modes.BINDS_ENV)
        binds = os.pathsep.join([str(BENCH.parent), str(results), *([given] if given else [])])
        argv = [str(modes.entry_script(suite)), *before, there, *column.mode.args, *tail]
        extra = {**column.mode.env, modes.BINDS_ENV: binds}
        return argv, {**env, **extra}, import_folder(results)
    classes = [column.classpath] if column.classpath else []  # a tree's JDK: bound too
    argv, extra = modes.command(column.mode, program, *tail, bound=classes)
    at = len(modes.launcher(modes.interpreter(column.mode.interpreter)))
    return [*argv[:at], *before, *argv[at:]], {**env, **extra}, import_folder(results)


def worker(
    column: Column,
    results: Path,
    stderr: Optional[IO[str]] = None,
    before: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
) -> Client:
    """A worker of ``column`` (``env``: its environment instead of the one ``command`` makes)."""
    argv, made, cwd = command(column, results, before)
    return Client(argv, made if env is None else env, cwd, column.label, stderr)


def call(column: Column, function: str, results: Path, **kwargs: Any) -> Any:
    """``bench.<function>(**kwargs)`` in a fresh worker of ``column`` (its errors shown)."""
    with worker(column, results) as w:
        return w.call(function, **kwargs)


def programs_of(options: Options) -> Dict[str, Dict[str, str]]:
    """{interpreter label: {"program": ..., "classpath": ...}}: ``--python LABEL=PATH`` (repeat)
    and ``--pythons FILE`` (as ``bench envs`` records it); none: the running interpreter."""
    found: Dict[str, Any] = json.loads(options.pythons.read_text()) if options.pythons else {}
    for value in options.python:
        label, sep, path = value.partition("=")
        if not sep:
            raise SystemExit(f"--python wants LABEL=PATH, got {value!r}")
        found[label] = path
    found = found or {interpreter_label(): sys.executable}
    return {k: v if isinstance(v, dict) else {"program": v} for k, v in found.items()}


def columns_of(options: Options) -> List[Column]:
    """The modes to measure (``--modes``, default every mode of the runtimes given)."""
    programs = programs_of(options)
    known = {i.label for i in modes.INTERPRETERS}
    if options.modes:
        chosen = modes.select(options.modes)
        missing = sorted({m.interpreter for m in chosen} - set(programs))
        if missing:
            raise SystemExit(f"no environment for {missing}; have {sorted(programs)}")
    else:
        chosen = tuple(m for m in modes.MODES if m.interpreter in programs)
    # A runtime outside the table's modes is one plain mode of its own: one the table does not
    # know, or one it knows but does not measure in any mode (3.9: below the study's range)
    plain = [
        modes.Mode(x, x, {}, (), None, "")
        for x in programs
        if x not in known or not modes.modes_of(x)
    ]
    return [
        Column(
            m,
            programs[m.interpreter]["program"],
            classpath=programs[m.interpreter].get("classpath", ""),
        )
        for m in (*chosen, *plain)
    ]


def left_out(options: Options) -> Dict[str, str]:
    """The study's modes a run of ``options`` leaves out, each with why and how to add it:
    those of the study's interpreters with no environment given (all modes, or ``--modes``')."""
    programs = programs_of(options)
    wanted = modes.select(options.modes) if options.modes else modes.MODES
    studied = {row.label for row in modes.study_interpreters()}
    found: Dict[str, str] = {}
    for m in wanted:
        if m.interpreter in programs or m.interpreter not in studied:
            continue
        why = modes.find(m.interpreter)[1] or "no environment made (python -m bench envs)"
        found[m.label] = why
    return found


def python_columns(options: Options) -> List[Column]:
    """The Python modes among ``columns_of(options)``: what can ``call`` a bench function."""
    return [c for c in columns_of(options) if not c.classpath]
