"""Compiled twins of a styles file (``python -m bench styles FILE --compile mypyc,cython``).

As the study compiles its own twins (build_support/compiled.py: the same Python source by
mypyc and by Cython's pure-Python mode), the user's file is compiled, unchanged, by each
compiler asked for, for each CPython interpreter of the run (not PyPy: both make CPython
extension modules; not an interpreter given by ``--python``, whose environment is not ours).
A twin is a mode of its own, ``<mode>+<compiler>`` ("3.12+mypyc", "3.14-jit+cython": the
JIT mode runs the 3.14 twin): its worker imports the extension instead of the source, checks
each style against the twin's baseline and times them, as for any mode.

The compilers come from the PyPI packages the study's build asks for (``TOOLS``, the same
requirements as build_support/backend.py's; a test holds them equal), installed with pip in
a virtualenv per interpreter made as the study's environments are (``bench.conduct.envs``:
inside a Debian tree for its interpreters), in the per-user cache (build_support/cache.py),
``<cache>/styles/tools/<label>-<digest>``: made once, on the first ``--compile``. Each twin
is built outside the user's folder, in ``<cache>/styles/twins/<key>/``, the key a digest of
the file's content, the compiler, the interpreter and its tools: the same file is not
compiled twice. The module is compiled under the name ``bench.catalog.styles`` imports a
file by (``module_name``), the extension kept as ``<stem>.so``. A build that fails is named
with the last lines of what the compiler printed; the rest of the run goes on.

mypyc type-checks the file as mypy would (``MYPYPATH``: the file's folder); its errors
are a failed build. A compiled twin imports its neighbours from the twin's folder: a file
that imports modules beside it cannot run compiled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..catalog import modes
from ..catalog.columns import Column
from ..catalog.styles import module_name
from ..catalog.styles_study import COMPILERS, JOIN, label_of
from . import envs
from .envs import build_cache

#: The compilers ``--compile`` takes.
#: What the twins' builds need: build_support/backend.py's requirements of the study's build.
CYTHON, MYPY = "Cython>=3.1", "mypy>=1.10"
TOOLS = ("setuptools>=77", CYTHON, f"{MYPY}; python_version >= '3.10'")
#: The cache's part (build_support/cache.py) of the tools and the twins.
PART = "styles"
#: How many lines of a failed build's output name why.
LAST_LINES = 4
#: A twin's build taking longer than this (seconds) has failed.
TIMEOUT = 900


def chosen(text: str) -> List[str]:
    """The compilers of ``--compile`` (comma-separated); ValueError naming an unknown one."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in COMPILERS]
    if unknown:
        raise ValueError(f"unknown compiler {', '.join(unknown)} (known: {', '.join(COMPILERS)})")
    return list(dict.fromkeys(names))


def folder() -> Path:
    return Path(build_cache.root()) / PART


def tools(label: str, log: envs.Log) -> List[str]:
    """The argv of the python of ``label``'s tools environment (mypy and Cython), made first
    if it is not ready (once, by one process at a time)."""
    key = build_cache.digest(PART, label, *TOOLS)[:16]
    place = folder() / "tools" / f"{label}-{key}"
    with build_cache.locked(place.with_name(place.name + ".lock"), log):
        python, binds = envs.venv(label, place, log)
        if not (place / envs.READY).exists():
            log(f"{label}: installing the compilers of the twins into {place} (once)")
            pip = [*python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            envs.run([*pip, *TOOLS], env=binds, log=log)
            (place / envs.READY).write_text("\n".join(TOOLS) + "\n")  # what it holds
    return python


def command(python: Sequence[str], compiler: str, source: str) -> List[str]:
    """The build of the twin of ``source`` (a file name in the working folder) in place."""
    if compiler == "mypyc":
        return [*python, "-m", "mypyc", source]
    return [*python, "-m", "Cython.Build.Cythonize", "-i", "-q", source]


def why_not(label: str, compiler: str) -> Optional[str]:
    """Why ``compiler`` does not build for interpreter ``label`` at all, or None."""
    row = modes.interpreter(label)
    if row.implementation != "cpython":
        return f"{compiler} makes CPython extension modules, {label} is not CPython"
    version = tuple(int(x) for x in label.rstrip("t").split(".")[:2])
    if compiler == "mypyc" and (version < (3, 10) or label.endswith("t")):
        return "mypyc compiles for CPython 3.10 on with a GIL (current mypy)"
    return None


def last_lines(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-LAST_LINES:]) or "no output"


def build(label: str, compiler: str, path: Path, log: envs.Log) -> Tuple[Optional[Path], str]:
    """(the twin of the styles file ``path`` compiled by ``compiler`` for interpreter
    ``label``, "") or (None, why it did not build); reused where it was built before."""
    why = why_not(label, compiler)
    if why:
        return None, why
    try:
        python = tools(label, log)
    except envs.Unavailable as exc:
        return None, f"no compilers for {label}: {exc}"
    name = module_name(path)
    key = build_cache.digest(PART, compiler, path.read_bytes(), name, *python)[:24]
    done = folder() / "twins" / key
    twin = done / f"{path.stem}.so"
    if twin.is_file():
        return twin, ""
    work = done.with_name(f"{key}.{os.getpid()}.tmp")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copy2(path, work / f"{name}.py")
    # in a Debian tree: the cache (the tools, this folder) and the file's folder bound
    binds = modes.binds(label, str(folder()), str(path.parent))
    env = {**os.environ, **binds, "MYPYPATH": str(path.parent)}
    log(f"{label}{JOIN}{compiler}: compiling {path.name} into {done}")
    try:
        ran = subprocess.run(
            command(python, compiler, f"{name}.py"),
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(work, ignore_errors=True)
        return None, f"{compiler} took over {TIMEOUT} s"
    made = sorted(work.glob(f"{name}.*.so"))
    if ran.returncode or not made:
        shutil.rmtree(work, ignore_errors=True)
        return None, f"{compiler} failed: {last_lines(ran.stdout + ran.stderr)}"
    shutil.rmtree(done, ignore_errors=True)
    done.mkdir(parents=True)
    made[0].replace(twin)
    shutil.rmtree(work, ignore_errors=True)
    return twin, ""


def add(
    columns: Sequence[Column], compilers: Sequence[str], path: Path, log: envs.Log
) -> Tuple[List[Column], Dict[str, str], Dict[str, str]]:
    """``columns``, each followed by its twins' columns; each twin's file by its mode's label;
    each twin that did not build, by its label, with why (PyPy's modes have none)."""
    cpython = {i.label for i in modes.INTERPRETERS if i.implementation == "cpython"}
    wanted = [(c, k) for c in columns for k in compilers if c.mode.interpreter in cpython]
    builds = list(dict.fromkeys((c.mode.interpreter, k) for c, k in wanted))
    with ThreadPoolExecutor(max_workers=2) as pool:
        made = dict(zip(builds, pool.map(lambda b: build(b[0], b[1], path, log), builds)))
    twins: Dict[str, str] = {}
    # an interpreter outside the study's table (a uv 3.14, --python mine=PATH) has no twins yet
    outside = {i.label for i in modes.INTERPRETERS}
    failed: Dict[str, str] = {
        label_of(c.label, k): "no twins yet of an interpreter outside the study's table "
        f"({c.mode.interpreter})"
        for c in columns
        for k in compilers
        if c.mode.interpreter not in outside and not c.label.startswith("pypy")
    }
    out: List[Column] = []
    for column in columns:  # each mode followed by its twins
        out.append(column)
        for compiler in (k for c, k in wanted if c is column):
            twin, why = made[(column.mode.interpreter, compiler)]
            label = label_of(column.label, compiler)
            if twin is None:
                failed[label] = why
            else:
                twins[label] = str(twin)
                out.append(replace(column, mode=replace(column.mode, label=label)))
    return out, twins, failed
