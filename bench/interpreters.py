"""The interpreters and the modes they run in: the one table the tests, the study and CI read.

An ``Interpreter`` is one binary and the world it lives in: a pyenv CPython, the host's PyPy,
the free-threaded CPython 3.13 built from source (``tools/debian.py freethreaded``), or a
CPython 3.14/3.15 and PyPy 8 from the Debian sid tree (``tools/debian.py ensure sid``). A
``Mode`` is one column of the study: an interpreter run a certain way (its JIT on or off, the
native variant's portable kernels), with the JDK execution mode it plays (OpenJDK's SHA-2 review
measured the streamlined style per JDK mode: Server, intrinsics off, ``-Xint``, Zero).

To add an interpreter or a mode, add one row to ``INTERPRETERS`` or ``MODES``. Everything else
(which exist here, how to start one) is read from those rows::

    from bench import interpreters
    argv, why = interpreters.find("3.14")  # ([".../enter-sid", "/usr/bin/python3.14"], "")
    mode = interpreters.mode("3.14-jit")
    argv, env = interpreters.command(mode, "/work/.../venv-3.14/bin/python", "-m", "pytest")

The sid interpreters need a newer C library than the host's, so they run inside the tree: their
argv starts with the tree's entry script, which chroots into the tree in a private mount
namespace with the host's working paths (/work, /tmp, the current directory, ...) bound at the
same places, so a venv made in /tmp by ``python3.14 -m venv`` is at the same path inside and
out. Standard library only (the noxfile imports this module).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Tuple, TypeVar


@dataclass(frozen=True)
class Interpreter:
    """One interpreter binary and the world it lives in."""

    label: str  # "3.9".."3.13", "3.13t", "pypy3", "3.14", "3.15", "pypy8"
    implementation: str  # "cpython" | "pypy"
    where: str  # "pyenv" | "host" | "sid" | "built"
    program: str  # the executable's name where it lives ("python3.14", "pypy3")
    study: bool  # measured by nox -s bench


@dataclass(frozen=True)
class Mode:
    """One column of the study: an interpreter run a certain way."""

    label: str  # "3.11", "3.14-jit", "pypy8-nojit", "3.11-portable"
    interpreter: str  # the label of the Interpreter whose environment (venv) it runs in
    env: Mapping[str, str] = field(hash=False)  # extra environment, e.g. {"PYTHON_JIT": "1"}
    args: Tuple[str, ...]  # interpreter options, e.g. ("--jit", "off")
    variants: Optional[str]  # a glob of the variants this mode measures; None: all of them
    jdk: str  # the JDK execution mode it plays


#: The JDK execution modes the study's modes play (seed 002's columns).
INTERPRETED = "-Xint"  # an interpreter alone: CPython's eval loop, PyPy with --jit off
COMPILED = "Server (JIT)"  # a JIT compiles the hot code: PyPy, CPython with PYTHON_JIT=1
INTRINSICS_OFF = "intrinsics off"  # the native variant's portable C instead of its CPU kernels

#: The environment of each kind of mode.
JIT_ON: Mapping[str, str] = {"PYTHON_JIT": "1"}
PORTABLE: Mapping[str, str] = {"VARIANTS_NATIVE_PORTABLE": "1"}
JIT_OFF_ARGS: Tuple[str, ...] = ("--jit", "off")


def _cpython(label: str, where: str, study: bool = True, program: str = "") -> Interpreter:
    return Interpreter(label, "cpython", where, program or f"python{label}", study)


INTERPRETERS: Tuple[Interpreter, ...] = (
    _cpython("3.9", "pyenv", study=False),  # no mypyc for 3.9: half the twins
    _cpython("3.10", "pyenv"),
    _cpython("3.11", "pyenv"),
    _cpython("3.12", "pyenv"),
    _cpython("3.13", "pyenv"),
    _cpython("3.13t", "built"),  # free-threaded, built from Debian 13's python3.13 source
    Interpreter("pypy3", "pypy", "host", "pypy3", True),  # the host's PyPy (7.3, Python 3.9)
    _cpython("3.14", "sid"),
    _cpython("3.15", "sid"),
    Interpreter("pypy8", "pypy", "sid", "pypy3", True),  # PyPy 8 (Python 3.11)
)


def _mode(
    label: str,
    interpreter: str,
    jdk: str,
    env: Mapping[str, str] = MappingProxyType({}),
    args: Tuple[str, ...] = (),
    variants: Optional[str] = None,
) -> Mode:
    return Mode(label, interpreter, MappingProxyType(dict(env)), args, variants, jdk)


def _portable(interpreter: str) -> Mode:
    """The native variant with its portable C kernels on ``interpreter`` ("intrinsics off")."""
    return _mode(f"{interpreter}-portable", interpreter, INTRINSICS_OFF, PORTABLE, (), "native*")


MODES: Tuple[Mode, ...] = (
    _mode("3.10", "3.10", INTERPRETED),
    _mode("3.11", "3.11", INTERPRETED),
    _mode("3.12", "3.12", INTERPRETED),
    _mode("3.13", "3.13", INTERPRETED),
    _mode("3.13t", "3.13t", INTERPRETED),
    _mode("3.14", "3.14", INTERPRETED),
    _mode("3.14-jit", "3.14", COMPILED, JIT_ON),
    _mode("3.15", "3.15", INTERPRETED),
    _mode("3.15-jit", "3.15", COMPILED, JIT_ON),
    _mode("pypy3", "pypy3", COMPILED),
    _mode("pypy3-nojit", "pypy3", INTERPRETED, args=JIT_OFF_ARGS),
    _mode("pypy8", "pypy8", COMPILED),
    _mode("pypy8-nojit", "pypy8", INTERPRETED, args=JIT_OFF_ARGS),
    _portable("3.10"),
    _portable("3.11"),
    _portable("3.12"),
    _portable("3.13"),
    _portable("3.13t"),
    _portable("3.14"),
    _portable("3.15"),
)


# --- looking rows up ------------------------------------------------------------------------


_Row = TypeVar("_Row", Interpreter, Mode)


def _by_label(rows: Tuple[_Row, ...], label: str, kind: str) -> _Row:
    for row in rows:
        if row.label == label:
            return row
    raise KeyError(f"no {kind} {label!r}; known: {', '.join(row.label for row in rows)}")


def interpreter(label: str) -> Interpreter:
    """The Interpreter called ``label``; KeyError naming the known ones otherwise."""
    return _by_label(INTERPRETERS, label, "interpreter")


def mode(label: str) -> Mode:
    """The Mode called ``label``; KeyError naming the known ones otherwise."""
    return _by_label(MODES, label, "mode")


def modes_of(interpreter_label: str) -> Tuple[Mode, ...]:
    """The modes that run in ``interpreter_label``'s environment, in table order."""
    interpreter(interpreter_label)  # a KeyError for a label that is not in the table
    return tuple(row for row in MODES if row.interpreter == interpreter_label)


def study_interpreters() -> Tuple[Interpreter, ...]:
    """The interpreters nox -s bench measures, in table order."""
    return tuple(row for row in INTERPRETERS if row.study)


def select(patterns: str) -> Tuple[Mode, ...]:
    """The modes matching a comma-separated list of labels or globs ("3.14*,pypy8"), in table
    order; ValueError for a pattern that matches none."""
    wanted = [part.strip() for part in patterns.split(",") if part.strip()]
    for pattern in wanted:
        if not any(fnmatch.fnmatchcase(row.label, pattern) for row in MODES):
            known = ", ".join(row.label for row in MODES)
            raise ValueError(f"no mode matches {pattern!r}; known: {known}")
    return tuple(row for row in MODES if any(fnmatch.fnmatchcase(row.label, p) for p in wanted))


# --- where the interpreters are ------------------------------------------------------------

#: The ``where`` of interpreters that run on the host; any other ``where`` names a Debian tree.
HOST_PLACES = ("pyenv", "host", "built")
#: The cache every made interpreter and tree lives in, outside every clone.
CACHE_ROOT = Path("/var/cache/variants")
#: Overrides where the Debian trees are (default CACHE_ROOT/debian).
DEBIAN_ROOT_ENV = "VARIANTS_DEBIAN_ROOT"
#: Overrides the free-threaded 3.13's install prefix (default CACHE_ROOT/cpython-3.13t).
FREETHREADED_ENV = "VARIANTS_FREETHREADED_CACHE"


def debian_root() -> Path:
    """Where the Debian trees are: ``$VARIANTS_DEBIAN_ROOT`` or /var/cache/variants/debian."""
    return Path(os.environ.get(DEBIAN_ROOT_ENV) or CACHE_ROOT / "debian")


def tree_path(suite: str) -> Path:
    """The Debian tree of ``suite`` ("sid", "trixie")."""
    return debian_root() / suite


def entry_script(suite: str) -> Path:
    """The script that runs its arguments as a command inside ``suite``'s tree."""
    return debian_root() / f"enter-{suite}"


def freethreaded_prefix() -> Path:
    """The free-threaded CPython 3.13's install prefix."""
    return Path(os.environ.get(FREETHREADED_ENV) or CACHE_ROOT / "cpython-3.13t")


def launcher(row: Interpreter) -> List[str]:
    """What goes before an interpreter's path on a command line: the entry script for an
    interpreter of a Debian tree, nothing otherwise."""
    return [str(entry_script(row.where))] if row.where not in HOST_PLACES else []


def _pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def _version_key(name: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name))


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _on_path(program: str) -> Optional[str]:
    """``program`` on PATH, skipping pyenv's shims (they run what PYENV_VERSION names)."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if directory and Path(directory).name != "shims":
            found = shutil.which(program, path=directory)
            if found:
                return found
    return None


def _find_pyenv(row: Interpreter) -> Tuple[Optional[List[str]], str]:
    versions = _pyenv_root() / "versions"
    exact = re.compile(re.escape(row.label) + r"(\.\d+)?")
    names = sorted(
        (path.name for path in versions.glob(row.label + "*") if exact.fullmatch(path.name)),
        key=_version_key,
    )
    programs = [versions / name / "bin" / row.program for name in reversed(names)]
    why = f"no {row.program} in {versions} (pyenv install {row.label}) nor on PATH"
    return _first(programs, row.program, why)


def _first(programs: List[Path], program: str, why: str) -> Tuple[Optional[List[str]], str]:
    """The first of ``programs`` that can run, else ``program`` on PATH, else (None, why)."""
    found = next((str(p) for p in programs if _executable(p)), None) or _on_path(program)
    return ([found], "") if found else (None, why)


def find(label: str) -> Tuple[Optional[List[str]], str]:
    """(the argv that starts interpreter ``label``, "") or (None, why it is not here).

    Never makes anything (``tools/debian.py`` does). The argv is the program's path, preceded
    for a Debian tree's interpreter by the tree's entry script (the path is inside the tree).
    """
    row = interpreter(label)
    if row.where == "pyenv":
        return _find_pyenv(row)
    if row.where == "host":
        found = _on_path(row.program)
        return ([found], "") if found else (None, f"no {row.program} on PATH")
    if row.where == "built":
        program = freethreaded_prefix() / "bin" / row.program
        why = f"no {program} (python3 tools/debian.py freethreaded builds it)"
        return _first([program], row.program, why)
    tree, entry = tree_path(row.where), entry_script(row.where)
    inside = Path("/usr/bin") / row.program
    if not _executable(entry):
        return None, f"no {row.where} tree at {tree} (python3 tools/debian.py ensure {row.where})"
    if not _executable(tree / inside.relative_to("/")):
        return None, f"no {inside} in {tree} (python3 tools/debian.py ensure {row.where})"
    return [*launcher(row), str(inside)], ""


#: The checkout this module is in: bound inside a tree wherever the command runs from.
CHECKOUT = Path(__file__).resolve().parent.parent
#: The entry script binds these host directories (colon-separated) besides its own list.
BINDS_ENV = "VARIANTS_DEBIAN_BINDS"


def tree_binds(python: str) -> Dict[str, str]:
    """The environment that makes a tree's entry script bind the checkout and the environment
    ``python`` belongs to (``<venv>/bin/python``: the venv), with the caller's own binds."""
    places = [str(CHECKOUT)]
    if os.path.isabs(python) and Path(python).parent.name == "bin":
        places.append(str(Path(python).parent.parent))
    given = os.environ.get(BINDS_ENV)
    return {BINDS_ENV: os.pathsep.join([*places, *([given] if given else [])])}


def command(mode: Mode, python: str, *args: str) -> Tuple[List[str], Dict[str, str]]:
    """argv and extra environment that run ``python`` (a path to an environment's interpreter
    of ``mode.interpreter``, e.g. a venv's bin/python) in ``mode`` with ``args``; for an
    interpreter of a Debian tree the argv starts with the tree's entry script, and the
    environment has it bind the checkout and that environment (``tree_binds``)."""
    row = interpreter(mode.interpreter)
    binds = tree_binds(python) if row.where not in HOST_PLACES else {}
    return [*launcher(row), python, *mode.args, *args], {**mode.env, **binds}
