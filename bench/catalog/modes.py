"""The interpreters and the modes they run in: the one table the tests, the study and CI read.

An ``Interpreter`` is one runtime and the world it lives in: a pyenv CPython, the host's PyPy,
the free-threaded CPython 3.13 built from source (``tools/debian.py freethreaded``), a CPython
3.14/3.15 and PyPy 8 from the Debian sid tree (``tools/debian.py ensure sid``), or a JDK
(Debian's OpenJDK 17 on the host, OpenJDK 25 in the sid tree). A ``Mode`` is one column of the
study: a runtime run a certain way (its JIT on or off, the native variant's portable kernels,
the JDK's ``-Xint``), with the JDK execution mode it is or plays (OpenJDK's SHA-2 review
measured the streamlined style per JDK mode: Server, intrinsics off, ``-Xint``, Zero).

To add a runtime or a mode, add one row to ``INTERPRETERS`` or ``MODES``. Everything else
(which exist here, how to start one) is read from those rows::

    from . import modes
    argv, why = modes.find("3.14")  # ([".../enter-sid", "/usr/bin/python3.14"], "")
    mode = modes.mode("3.14-jit")
    argv, env = modes.command(mode, "/work/.../venv-3.14/bin/python", "-m", "pytest")

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
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar


@dataclass(frozen=True)
class Interpreter:
    """One interpreter binary and the world it lives in."""

    label: str  # "3.9".."3.13", "3.13t", "pypy3", "3.14", "3.15", "pypy8"
    implementation: str  # "cpython" | "pypy" | "openjdk"
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
    jit: bool = False  # whether a JIT compiles the code it runs (the one test of it)

    @property
    def suffix(self) -> str:
        """What the label adds to its interpreter's: "jit", "portable", "" for none."""
        head = self.interpreter + "-"
        return self.label[len(head) :] if self.label.startswith(head) else ""

    @property
    def cpython_jit(self) -> bool:
        """Whether CPython's JIT compiles the code it runs (``PYTHON_JIT=1``)."""
        return self.jit and self.env.get("PYTHON_JIT") == JIT_ON["PYTHON_JIT"]

    @property
    def how(self) -> str:
        """How it is started, beyond its interpreter: ``PYTHON_JIT=1``, ``--jit off``."""
        return " ".join([*(f"{k}={v}" for k, v in sorted(self.env.items())), *self.args])

    def as_json(self) -> Dict[str, Any]:
        return {"label": self.label, "interpreter": self.interpreter, "env": dict(self.env),
                "args": list(self.args), "variants": self.variants, "jdk": self.jdk,
                "jit": self.jit}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mode:
        return _mode(str(data["label"]), str(data["interpreter"]), str(data["jdk"]),
                     data.get("env") or {}, tuple(data.get("args") or ()),
                     data.get("variants"), bool(data.get("jit")))  # fmt: skip


#: The JDK execution modes the study's modes play (seed 002's columns).
INTERPRETED = "-Xint"  # an interpreter alone: CPython's eval loop, PyPy with --jit off
COMPILED = "Server"  # a JIT compiles the hot code: PyPy, CPython with PYTHON_JIT=1
INTRINSICS_OFF = "intrinsics off"  # the native variant's portable C instead of its CPU kernels
C1 = "C1"  # the JDK's client compiler alone
ZERO = "Zero"  # the JDK's interpreter written in C++, no assembly (a port to a new CPU)
#: What every JDK mode's worker runs with: the diagnostic options unlocked (so that it can say
#: whether the intrinsics are on), and every message of the VM on stderr, so that stdout holds
#: the worker's answers alone (JDK 25's Zero warns on stdout, through the unified log).
JAVA_OPTIONS = ("-XX:+UnlockDiagnosticVMOptions", "-XX:+DisplayVMOutputToStderr",
                "-Xlog:disable", "-Xlog:all=warning:stderr")  # fmt: skip
#: The JDK's intrinsic switches for the study's algorithms (diagnostic options).
NO_INTRINSICS = ("-XX:+UnlockDiagnosticVMOptions", "-XX:-UseMD5Intrinsics",
                 "-XX:-UseSHA1Intrinsics", "-XX:-UseSHA256Intrinsics",
                 "-XX:-UseSHA512Intrinsics")  # fmt: skip

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
    Interpreter("jdk17", "openjdk", "host", "java-17-openjdk", True),  # Debian 12's OpenJDK 17
    Interpreter("jdk25", "openjdk", "sid", "java-25-openjdk", True),  # Debian sid's OpenJDK 25
)


def _mode(
    label: str,
    interpreter: str,
    jdk: str,
    env: Mapping[str, str] = MappingProxyType({}),
    args: Tuple[str, ...] = (),
    variants: Optional[str] = None,
    jit: bool = False,
) -> Mode:
    return Mode(label, interpreter, MappingProxyType(dict(env)), args, variants, jdk, jit)


def _portable(interpreter: str) -> Mode:
    """The native variant with its portable C kernels on ``interpreter`` ("intrinsics off")."""
    return _mode(f"{interpreter}-portable", interpreter, INTRINSICS_OFF, PORTABLE, (), "native*")


def _jdk(label: str) -> Tuple[Mode, ...]:
    """A JDK's five modes: the seeds' four (Server, intrinsics off, -Xint, Zero) and C1."""
    return (
        _mode(label, label, COMPILED, jit=True),
        _mode(f"{label}-c1", label, C1, args=("-XX:TieredStopAtLevel=1",), jit=True),
        _mode(f"{label}-nointrinsics", label, INTRINSICS_OFF, args=NO_INTRINSICS, jit=True),
        _mode(f"{label}-xint", label, INTERPRETED, args=("-Xint",)),
        _mode(f"{label}-zero", label, ZERO, args=("-zero",)),
    )


MODES: Tuple[Mode, ...] = (
    _mode("3.10", "3.10", INTERPRETED),
    _mode("3.11", "3.11", INTERPRETED),
    _mode("3.12", "3.12", INTERPRETED),
    _mode("3.13", "3.13", INTERPRETED),
    _mode("3.13t", "3.13t", INTERPRETED),
    _mode("3.14", "3.14", INTERPRETED),
    _mode("3.14-jit", "3.14", COMPILED, JIT_ON, jit=True),
    _mode("3.15", "3.15", INTERPRETED),
    _mode("3.15-jit", "3.15", COMPILED, JIT_ON, jit=True),
    _mode("pypy3", "pypy3", COMPILED, jit=True),
    _mode("pypy3-nojit", "pypy3", INTERPRETED, args=JIT_OFF_ARGS),
    _mode("pypy8", "pypy8", COMPILED, jit=True),
    _mode("pypy8-nojit", "pypy8", INTERPRETED, args=JIT_OFF_ARGS),
    _portable("3.10"),
    _portable("3.11"),
    _portable("3.12"),
    _portable("3.13"),
    _portable("3.13t"),
    _portable("3.14"),
    _portable("3.15"),
    *_jdk("jdk17"),
    *_jdk("jdk25"),
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


def tree_of(path: str) -> Optional[Tuple[str, str]]:
    """(suite, the path inside its tree) where ``path`` (a path on the host) is inside a
    Debian tree that has its entry script, else None."""
    try:
        parts = Path(os.path.abspath(path)).relative_to(debian_root()).parts
    except ValueError:
        return None
    if len(parts) < 2 or not os.access(entry_script(parts[0]), os.X_OK):
        return None
    return parts[0], "/" + "/".join(parts[1:])


def launcher(row: Interpreter) -> List[str]:
    """What goes before an interpreter's path on a command line: the entry script for an
    interpreter of a Debian tree, nothing otherwise."""
    return [str(entry_script(row.where))] if row.where not in HOST_PLACES else []


def _pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def version_key(name: str) -> Tuple[int, ...]:
    """The numbers in a name, for sorting versions (``3.9.2`` before ``3.11.0``)."""
    return tuple(int(part) for part in re.findall(r"\d+", name))


def executable(path: Path) -> bool:
    """Whether ``path`` is a file this user may run."""
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
        key=version_key,
    )
    programs = [versions / name / "bin" / row.program for name in reversed(names)]
    why = f"no {row.program} in {versions} (pyenv install {row.label}) nor on PATH"
    return _first(programs, row.program, why)


def _first(programs: List[Path], program: str, why: str) -> Tuple[Optional[List[str]], str]:
    """The first of ``programs`` that can run, else ``program`` on PATH, else (None, why)."""
    found = next((str(p) for p in programs if executable(p)), None) or _on_path(program)
    return ([found], "") if found else (None, why)


#: The interpreters a run found or was given for labels of the table (``finding``), which
#: ``find`` answers with first: a styles run's own finds (a uv 3.12, ``--python 3.12=PATH``).
_FOUND: Dict[str, List[str]] = {}


@contextmanager
def finding(found: Mapping[str, Sequence[str]]) -> Iterator[None]:
    """Within it, ``find(label)`` is ``found[label]`` for each label given (labels of the
    table): the interpreters a styles run measures, by which its twins are built too."""
    for label in found:
        interpreter(label)  # a KeyError for a label that is not in the table
    before = dict(_FOUND)
    _FOUND.update({label: list(argv) for label, argv in found.items()})
    try:
        yield
    finally:
        _FOUND.clear()
        _FOUND.update(before)


def find(label: str) -> Tuple[Optional[List[str]], str]:
    """(the argv that starts interpreter ``label``, "") or (None, why it is not here).

    Never makes anything (``tools/debian.py`` does). The argv is the program's path, preceded
    for a Debian tree's interpreter by the tree's entry script (the path is inside the tree);
    the interpreter a run found itself (``finding``) first.
    """
    row = interpreter(label)
    if label in _FOUND:
        return list(_FOUND[label]), ""
    if row.implementation == "openjdk":
        return _find_jdk(row)
    if row.where == "pyenv":
        return _find_pyenv(row)
    if row.where == "host":
        found = _on_path(row.program)
        why = f"no {row.program} on PATH (Debian: apt-get install {row.program})"
        return ([found], "") if found else (None, why)
    if row.where == "built":
        program = freethreaded_prefix() / "bin" / row.program
        why = f"no {program} (as root: python3 tools/debian.py freethreaded builds it)"
        return _first([program], row.program, why)
    tree, entry = tree_path(row.where), entry_script(row.where)
    inside = Path("/usr/bin") / row.program
    make = f"as root: python3 tools/debian.py ensure {row.where}"
    if not executable(entry):
        return None, f"no {row.where} tree at {tree} ({make})"
    if not executable(tree / inside.relative_to("/")):
        return None, f"no {inside} in {tree} ({make})"
    return [*launcher(row), str(inside)], ""


def jdk_home(row: Interpreter, root: Path = Path("/")) -> Optional[Path]:
    """The JDK of ``row`` under ``root`` (a tree, or the host): /usr/lib/jvm/<program>-<arch>."""
    found = sorted((root / "usr/lib/jvm").glob(f"{row.program}-*"))
    return next((p for p in found if executable(p / "bin" / "java")), None)


def _find_jdk(row: Interpreter) -> Tuple[Optional[List[str]], str]:
    """A JDK's java: the host's (Debian's package), or the one inside its tree."""
    package = row.program.replace("java-", "openjdk-").replace("-openjdk", "") + "-jdk-headless"
    if row.where in HOST_PLACES:
        home = jdk_home(row)
        why = f"no /usr/lib/jvm/{row.program}-* (apt-get install {package})"
        return ([str(home / "bin" / "java")], "") if home else (None, why)
    tree = tree_path(row.where)
    make = f"as root: python3 tools/debian.py ensure {row.where}"
    if not executable(entry_script(row.where)):
        return None, f"no {row.where} tree at {tree} ({make})"
    home = jdk_home(row, tree)
    if home is None:
        return None, f"no {package} in {tree} ({make})"
    return [*launcher(row), str(Path("/") / home.relative_to(tree) / "bin" / "java")], ""


#: The checkout this module is in: bound inside a tree wherever the command runs from.
CHECKOUT = Path(__file__).resolve().parent.parent.parent
#: The entry script binds these host directories (colon-separated) besides its own list.
BINDS_ENV = "VARIANTS_DEBIAN_BINDS"


def binds(label: str, *places: str) -> Dict[str, str]:
    """The environment that makes the tree of ``label`` (nothing on the host) bind the
    checkout, ``places`` and the caller's own binds (``BINDS_ENV``)."""
    if interpreter(label).where in HOST_PLACES:
        return {}
    given = os.environ.get(BINDS_ENV)
    return {BINDS_ENV: os.pathsep.join([str(CHECKOUT), *places, *([given] if given else [])])}


def command(
    mode: Mode, python: str, *args: str, bound: Sequence[str] = ()
) -> Tuple[List[str], Dict[str, str]]:
    """argv and extra environment that run ``python`` (a path to an environment's interpreter
    of ``mode.interpreter``, e.g. a venv's bin/python) in ``mode`` with ``args``; for an
    interpreter of a Debian tree the argv starts with the tree's entry script, and the
    environment has it bind the checkout, the environment ``python`` belongs to
    (``<venv>/bin/python``: the venv) and the folders ``bound`` (``binds``)."""
    row = interpreter(mode.interpreter)
    at = Path(python)
    venv = [str(at.parent.parent)] if at.is_absolute() and at.parent.name == "bin" else []
    extra = binds(mode.interpreter, *venv, *bound)
    return [*launcher(row), python, *mode.args, *args], {**mode.env, **extra}
