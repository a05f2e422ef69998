"""The Python interpreters a user has, found where people keep them, as the modes they run in.

``bench.catalog.modes`` is the study's fixed table; a styles file is asked on anyone's machine,
so its modes are made from what is found. Where it looks, in this order (the first find of a
label is its mode; a later find of the same label is listed as not used):

1. pyenv's versions (``$PYENV_ROOT/versions/*/bin``, newest first): CPython, PyPy, free-threaded;
2. uv's managed Pythons (``$UV_PYTHON_INSTALL_DIR``, else ``$XDG_DATA_HOME/uv/python``, else
   ``~/.local/share/uv/python``; ``uv python dir`` where that says otherwise);
3. asdf's and mise's installs (``~/.asdf/installs/python``,
   ``~/.local/share/mise/installs/python``);
4. conda's environments (``~/miniconda3``, ``~/anaconda3``, ``~/miniforge3``, ``~/mambaforge``,
   their ``envs/*``, and those ``~/.conda/environments.txt`` lists);
5. PATH: ``python3``, ``python3.X``, ``python3.Xt``, ``pypy3``, ``pypy3.X``; a shim stands for
   the binary it runs: pyenv's read as ``pyenv which`` finds it (``pyenv_shim``, no process),
   asdf's or mise's run (``sys.executable``);
6. this project's: the free-threaded 3.13 built by ``tools/debian.py freethreaded`` and the
   Debian trees (``tools/debian.py ensure sid``), whose interpreters run through the tree's
   entry script.

Every candidate is asked what it is by one small program (``PROBE``: implementation, version,
free-threaded or not, whether a JIT is built in and comes on with ``PYTHON_JIT=1``), all at
once in threads, and the answers are kept in the per-user cache keyed by file, size and mtime,
so a second look costs no process. Two finds of one interpreter (a symlink, a hard link, a
shim, a venv of it) are one: the same file as ``sys.executable`` and the same answers.
Labels: ``3.12``, ``3.13t`` (a free-threaded build), ``pypy3`` (PyPy 7) and ``pypy8`` (PyPy 8)
as in the study's table, a second PyPy of one major by its Python (``pypy3.10``). Modes: each
CPython's label (its JIT off), ``LABEL-jit`` where ``sys._jit.is_available()`` and the JIT is
on under ``PYTHON_JIT=1``; each PyPy's label (its JIT on) and ``LABEL-nojit`` (``--jit off``).
Standard library only; nothing is made, nothing needs root.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import modes

#: What a candidate prints about itself: one JSON line (Python 2 answers with a SyntaxError).
#: It leaves the working folder off its path (what ``-P`` does, from 3.11 only), so that no file
#: there stands for json or sysconfig.
PROBE = (
    "import sys\n"
    "if sys.path and sys.path[0] == '': del sys.path[0]\n"
    "import json, os, sysconfig\n"
    "j = getattr(sys, '_jit', None)\n"
    "p = getattr(sys, 'pypy_version_info', None)\n"
    "print(json.dumps({'implementation': sys.implementation.name,"
    " 'version': list(sys.version_info[:3]), 'pypy': list(p[:3]) if p else None,"
    " 'freethreaded': bool(sysconfig.get_config_var('Py_GIL_DISABLED')),"
    " 'jit_available': bool(j and j.is_available()), 'jit_enabled': bool(j and j.is_enabled()),"
    " 'executable': os.path.realpath(sys.executable)}))\n"
)
#: Why a candidate is not used: another path to an interpreter found.
SAME = "the same interpreter as "
#: The oldest Python the worker runs under.
OLDEST = (3, 9)
#: The names looked for in a bin folder or on PATH.
NAMES = re.compile(r"(python3(\.\d+t?)?|pypy3(\.\d+)?)")
#: A probe taking longer than this (seconds) is a candidate that does not answer.
TIMEOUT = 20.0
#: How a candidate runs the probe: without ``site`` (``-S``: no site-packages, no ``.pth``
#: files run; what the probe asks does not depend on them, and a CPython with many packages
#: installed starts several times faster without). Not ``-I``: its ``-E`` would hide
#: ``PYTHON_JIT=1`` (``modes.JIT_ON``), and a JIT that is off by default (Debian's 3.14 and
#: 3.15) would say it never comes on; the environment is cleaned instead (``probe``).
PROBE_FLAGS = ("-S",)
#: The cache of probes, in the per-user cache (``$XDG_CACHE_HOME``, default ~/.cache), named
#: by the probe: an answer to another probe (another question, other flags) is not reused.
CACHE_NAME = (
    "interpreters-"
    + hashlib.sha256(" ".join([*PROBE_FLAGS, PROBE]).encode()).hexdigest()[:12]
    + ".json"
)


@dataclass(frozen=True)
class Candidate:
    """A place an interpreter may be: where it was found, the path, and how it starts."""

    source: str  # "pyenv", "uv", "asdf", "mise", "conda", "PATH", "built", "sid" (a tree)
    path: str  # the path on the host (inside a Debian tree: the tree's copy)
    argv: Tuple[str, ...]  # what starts it: the path, or a tree's entry script and its path there

    @property
    def shim(self) -> bool:
        """A shim of pyenv, asdf or mise: it runs whatever its tool's setting names."""
        return Path(self.path).parent.name == "shims"


@dataclass(frozen=True)
class Found:
    """One interpreter found, and what it said of itself."""

    label: str
    candidate: Candidate
    facts: Mapping[str, Any] = field(hash=False)

    @property
    def implementation(self) -> str:
        return str(self.facts["implementation"])

    @property
    def version(self) -> str:
        return ".".join(str(x) for x in self.facts["version"])

    @property
    def executable(self) -> str:
        """The binary a mode runs: the real one behind a shim, else the path found."""
        return str(self.facts["executable"]) if self.candidate.shim else self.candidate.path

    @property
    def argv(self) -> Tuple[str, ...]:
        return (self.executable,) if self.candidate.shim else self.candidate.argv

    @property
    def title(self) -> str:
        """ "CPython 3.12.1", "CPython 3.13.0 free-threaded", "PyPy 7.3.11 (Python 3.9.16)"."""
        pypy = self.facts.get("pypy")
        if pypy:
            return f"PyPy {'.'.join(str(x) for x in pypy)} (Python {self.version})"
        extra = " free-threaded" if self.facts.get("freethreaded") else ""
        jit = ", JIT built in" if self.facts.get("jit_available") else ""
        return f"CPython {self.version}{extra}{jit}"

    def interpreter(self) -> modes.Interpreter:
        """Its row: the study's table's own where it is the table's interpreter (the same
        label, found in the same world: the host or the tree), else a row of its own."""
        try:
            row = modes.interpreter(self.label)
        except KeyError:
            row = None
        tree = self.candidate.source not in HOST_SOURCES
        if row is not None and (
            row.where == self.candidate.source if tree else row.where in modes.HOST_PLACES
        ):
            return row
        implementation = "pypy" if self.facts.get("pypy") else "cpython"
        place = self.candidate.source if tree else "host"
        # a label of the table found elsewhere ("3.14" from uv) is told apart from the table's
        own = self.label if row is None else f"{self.label}@{self.candidate.source}"
        return modes.Interpreter(own, implementation, place, self.executable, False)

    def modes(self) -> List[modes.Mode]:
        """Its modes: JIT off and (where built in) on for a CPython, on and off for a PyPy."""
        inner = self.interpreter().label
        if self.facts.get("pypy"):
            return [
                modes.Mode(self.label, inner, {}, (), None, modes.COMPILED, True),
                modes.Mode(
                    f"{self.label}-nojit", inner, {}, modes.JIT_OFF_ARGS, None, modes.INTERPRETED
                ),
            ]
        plain = [modes.Mode(self.label, inner, {}, (), None, modes.INTERPRETED)]
        if self.facts.get("jit_enabled"):
            plain.append(
                modes.Mode(
                    f"{self.label}-jit", inner, dict(modes.JIT_ON), (), None, modes.COMPILED, True
                )
            )
        return plain


#: The sources that find interpreters on the host (the others are Debian trees).
HOST_SOURCES = ("pyenv", "uv", "asdf", "mise", "conda", "PATH", "built", "--python")


@dataclass
class Search:
    """What a search found: the interpreters by label, in search order, and what was not used."""

    found: Dict[str, Found] = field(default_factory=dict)
    #: Each candidate not used, with why (another find of one interpreter, too old, no answer).
    skipped: List[Tuple[Candidate, str]] = field(default_factory=list)
    #: Each place looked in where nothing was, with what to do.
    empty: List[str] = field(default_factory=list)

    def modes(self) -> List[Tuple[modes.Mode, Found]]:
        """Every mode found: the study's table's in its order, then the others by version."""
        order = [m.label for m in modes.MODES]
        every = [(m, f) for f in self.found.values() for m in f.modes()]

        def key(pair: Tuple[modes.Mode, Found]) -> Tuple[int, bool, Tuple[int, ...], str]:
            m, f = pair
            at = order.index(m.label) if m.label in order else len(order)
            return at, bool(f.facts.get("pypy")), tuple(f.facts["version"]), m.label

        return sorted(every, key=key)


# --- where to look ------------------------------------------------------------------------


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or _home() / ".local" / "share")


def _in_bin(folder: Path) -> List[Path]:
    """The interpreters' names in a bin folder, python3.Xt before python3.X (a free-threaded
    install's two names of one binary: the first find names it) before python3."""
    try:
        names = sorted(
            (p.name for p in folder.iterdir() if NAMES.fullmatch(p.name)),
            key=lambda n: (n in ("python3", "pypy3"), not n.endswith("t"), n),
        )
    except OSError:
        return []
    return [folder / n for n in names if modes.executable(folder / n)]


def _installs(root: Path) -> List[Path]:
    """Each install's bin folder under ``root`` (pyenv's versions, uv's), newest first."""
    try:
        kids = [p for p in root.iterdir() if (p / "bin").is_dir()]
    except OSError:
        return []
    return [p / "bin" for p in sorted(kids, key=lambda p: modes.version_key(p.name), reverse=True)]


def uv_root() -> Path:
    """uv's managed Pythons: ``$UV_PYTHON_INSTALL_DIR``, else ``uv python dir`` (where uv is
    on PATH), else its default, ``$XDG_DATA_HOME/uv/python``."""
    given = os.environ.get("UV_PYTHON_INSTALL_DIR")
    if given:
        return Path(given)
    default = _data_home() / "uv" / "python"
    uv = shutil.which("uv")
    if uv and not default.is_dir():
        try:
            said = subprocess.run([uv, "python", "dir"], capture_output=True, text=True, timeout=5)
            if said.returncode == 0 and said.stdout.strip():
                return Path(said.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    return default


def conda_envs() -> List[Path]:
    """conda's base installs and their environments, and those environments.txt lists."""
    home = _home()
    found: List[Path] = []
    for base in ("miniconda3", "anaconda3", "miniforge3", "mambaforge"):
        root = home / base
        if root.is_dir():
            found.append(root)
            found.extend(sorted((root / "envs").glob("*")))
    listed = home / ".conda" / "environments.txt"
    if listed.is_file():
        found.extend(Path(line.strip()) for line in listed.read_text().splitlines() if line.strip())
    return list(dict.fromkeys(found))


#: Debian's names of the machines (``platform.machine()``: Debian's), the suffix of a tree
#: made for another (``bookworm-arm64``: the cross tests', run under qemu-user).
DEBIAN_ARCHES = {"x86_64": "amd64", "aarch64": "arm64", "i686": "i386", "ppc64le": "ppc64el"}
FOREIGN = ("amd64", "arm64", "armhf", "armel", "i386", "riscv64", "ppc64el", "s390x", "loong64")


def foreign(suite: str) -> str:
    """The machine a Debian tree named ``suite`` was made for where it is not this one's
    (its interpreters would run emulated: no answer about this machine), else ""."""
    arch = suite.rpartition("-")[2]
    here = DEBIAN_ARCHES.get(platform.machine(), platform.machine())
    return arch if arch in FOREIGN and arch != here else ""


def candidates() -> Tuple[List[Candidate], List[str]]:
    """Every place an interpreter may be, in search order, and the places that held none."""
    out: List[Candidate] = []
    empty: List[str] = []

    def add(source: str, folders: Iterable[Path], where: str) -> None:
        before = len(out)
        for folder in folders:
            out.extend(Candidate(source, str(p), (str(p),)) for p in _in_bin(folder))
        if len(out) == before:
            empty.append(f"{source}: nothing in {where}")

    pyenv = Path(os.environ.get("PYENV_ROOT") or _home() / ".pyenv") / "versions"
    add("pyenv", _installs(pyenv), str(pyenv))
    uv = uv_root()
    add("uv", _installs(uv), str(uv))
    asdf = Path(os.environ.get("ASDF_DATA_DIR") or _home() / ".asdf") / "installs" / "python"
    add("asdf", _installs(asdf), str(asdf))
    mise = _data_home() / "mise" / "installs" / "python"
    add("mise", _installs(mise), str(mise))
    add(
        "conda",
        [env / "bin" for env in conda_envs()],
        "~/miniconda3, ~/anaconda3, ~/miniforge3, ~/mambaforge, ~/.conda/environments.txt",
    )
    path = [Path(d) for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    add("PATH", list(dict.fromkeys(path)), "PATH")
    built = modes.freethreaded_prefix() / "bin" / "python3.13t"
    if modes.executable(built):
        out.append(Candidate("built", str(built), (str(built),)))
    else:
        empty.append(
            f"built: no {built} (as root, in a clone: python3 tools/debian.py freethreaded)"
        )
    root = modes.debian_root()
    suites = sorted(p.name[len("enter-") :] for p in root.glob("enter-*")) if root.is_dir() else []
    for suite in suites:
        arch = foreign(suite)
        if arch:
            empty.append(f"Debian tree {suite}: {arch}'s, run by emulation here, not searched")
            continue
        tree, entry = modes.tree_path(suite), modes.entry_script(suite)
        inside = [p for p in _in_bin(tree / "usr" / "bin") if p.name != "python3"]
        if not inside:
            empty.append(f"Debian tree {suite}: no python3.X nor pypy3 in {tree / 'usr' / 'bin'}")
        out.extend(
            Candidate(suite, str(p), (str(entry), "/" + str(p.relative_to(tree)))) for p in inside
        )
    if not suites:
        make = "as root, in a clone: python3 tools/debian.py ensure sid"
        empty.append(f"Debian trees: none under {root} ({make})")
    return out, empty


# --- asking each what it is ---------------------------------------------------------------


def cache_file() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or _home() / ".cache")
    return base / "variants" / "styles" / CACHE_NAME


def _key(c: Candidate) -> Optional[str]:
    """The cache's key of a candidate: the file it is (``identity``: a symlink's target, one
    file under each of its hard links), size and mtime (a shim of asdf's or mise's: its path
    and the working folder, what decides what it runs). Two candidates of one key are one
    binary (a symlink, ``/bin`` and ``/usr/bin``, ``python3.13`` and ``python3.13t``): asked
    once."""
    if c.shim:
        return f"shim {c.path} {os.getcwd()}"
    try:
        st = os.stat(c.path)
    except OSError:
        return None
    file = f"{st.st_dev}:{st.st_ino}"
    return f"{' '.join(c.argv[:-1])} {file} {st.st_size} {st.st_mtime_ns}"


#: Why a shim of pyenv's is not used: the versions pyenv selects have no such program.
NOT_SELECTED = "not in the versions pyenv selects here: "


def pyenv_versions(root: Path) -> List[str]:
    """The versions pyenv selects in the working folder, read as pyenv reads them: the first
    ``.python-version`` from the folder up, else ``$PYENV_ROOT/version`` (one version a line,
    ``#`` a comment); none: ``system``. ``PYENV_VERSION`` is not read: ``pyenv exec`` sets it
    for whatever it runs (this tool itself, started by a shim), so it is not the user's."""
    here = Path(os.getcwd())
    files = [d / ".python-version" for d in (here, *here.parents)] + [root / "version"]
    for file in files:
        try:
            lines = file.read_text().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        words = [line.split()[0] for line in lines if line.split()]
        versions = [w for w in words if not w.startswith("#")]
        if versions:
            return versions
    return ["system"]


def pyenv_shim(c: Candidate) -> Optional[Tuple[Optional[str], str]]:
    """What a shim of pyenv's would run, found as ``pyenv which`` finds it, without starting
    pyenv (a bash program, a tenth of a second a shim): each selected version's
    ``versions/<v>/bin/NAME``, then ``system`` (PATH without the shims). (the program, "") or
    (None, why: none there); None where ``c`` is no shim of pyenv's or a version is not an
    install's name (a prefix such as ``3.12``, a virtualenv's: the shim is run instead)."""
    root = Path(os.environ.get("PYENV_ROOT") or _home() / ".pyenv")
    shims = root / "shims"
    if Path(c.path).parent != shims:
        return None
    name = Path(c.path).name
    versions = pyenv_versions(root)
    for version in [*versions, "system"]:
        if version == "system":
            for folder in os.environ.get("PATH", "").split(os.pathsep):
                if folder and Path(folder) != shims and modes.executable(Path(folder) / name):
                    return str(Path(folder) / name), ""
            continue
        install = root / "versions" / version
        if not install.is_dir():
            return None
        if modes.executable(install / "bin" / name):
            return str(install / "bin" / name), ""
    return None, NOT_SELECTED + ", ".join(versions)


def probe(argv: Sequence[str]) -> Tuple[Optional[Dict[str, Any]], str]:
    """(what the interpreter ``argv`` says of itself, "") or (None, why it said nothing)."""
    # the user's PYTHON* settings left out, as -E would, but the JIT's asked for
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update({**modes.JIT_ON, "PYTHONDONTWRITEBYTECODE": "1"})
    env.pop("PYENV_VERSION", None)
    try:
        done = subprocess.run(
            [*argv, *PROBE_FLAGS, "-c", PROBE],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"did not answer ({exc})"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        said = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return None, f"did not answer: {said[:120]}"
    facts: Dict[str, Any] = json.loads(lines[-1])
    return facts, ""


def older_by_name(c: Candidate) -> str:
    """Why ``c`` is too old for the worker, said by its binary's own name (``python3.8``,
    ``pypy3.8``: that Python), not asked; "" where its name does not say so."""
    try:
        name = Path(os.path.realpath(c.path)).name
    except OSError:
        return ""
    match = re.fullmatch(r"(?:python|pypy)(\d+)\.(\d+)t?", name)
    if not match or (int(match[1]), int(match[2])) >= OLDEST:
        return ""
    oldest = ".".join(map(str, OLDEST))
    return f"Python {match[1]}.{match[2]} (by its name, {name}): the worker needs {oldest} or newer"


def probe_all(found: Sequence[Candidate]) -> List[Tuple[Optional[Dict[str, Any]], str]]:
    """Every candidate's probe, in parallel, through the cache: each binary asked once (two
    paths to it, one key), a shim of pyenv's read as the binary it runs (``pyenv_shim``), one
    whose name says it is too old not asked (``older_by_name``)."""
    cache = cache_file()
    try:
        known: Dict[str, Any] = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    asked: List[Candidate] = []  # what is probed for each: itself, or the program a shim runs
    not_run: Dict[int, str] = {}  # a shim that would run nothing: why
    for i, c in enumerate(found):
        resolved = pyenv_shim(c)
        if resolved is None:
            asked.append(c)
            continue
        program, why = resolved
        if program is None:
            not_run[i] = why
        asked.append(Candidate(c.source, program or c.path, (program or c.path,)))
    for i, c in enumerate(asked):
        old = older_by_name(c)
        if old and i not in not_run:
            not_run[i] = old
    keys = [_key(c) for c in asked]
    todo: Dict[str, Candidate] = {}  # the probes to run, one a key ("#i": a candidate's own)
    for i, (key, c) in enumerate(zip(keys, asked)):
        if i not in not_run and (key is None or key not in known):
            todo.setdefault(f"#{i}" if key is None else key, c)
    with ThreadPoolExecutor(max_workers=8) as pool:
        fresh = dict(zip(todo, pool.map(lambda c: probe(c.argv), todo.values())))
    answers: List[Tuple[Optional[Dict[str, Any]], str]] = []
    for i, key in enumerate(keys):
        if i in not_run:
            answers.append((None, not_run[i]))
        elif key is None or key in fresh:
            answers.append(fresh[f"#{i}" if key is None else key])
        else:
            said = dict(known[key])
            answers.append((None, str(said["error"])) if "error" in said else (said, ""))
    new = {k: a or {"error": why} for k, (a, why) in fresh.items() if not k.startswith("#")}
    if new:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(f"{cache.name}.{os.getpid()}")
            tmp.write_text(json.dumps({**known, **new}, indent=1, sort_keys=True))
            os.replace(tmp, cache)
        except OSError:
            pass  # a cache that cannot be written: the next look probes again
    return answers


def identity(path: str) -> str:
    """A binary's identity: its device and inode, so that hard links to it (a free-threaded
    install's ``python3.13`` and ``python3.13t``) are one; its path where it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return path
    return f"{st.st_dev}:{st.st_ino}"


def label_of(facts: Mapping[str, Any]) -> str:
    """ "3.12", "3.13t", "pypy3" (PyPy 7), "pypy8" (PyPy 8)."""
    major, minor = facts["version"][:2]
    if facts.get("pypy"):
        first = int(facts["pypy"][0])
        return "pypy3" if first < 8 else f"pypy{first}"
    return f"{major}.{minor}" + ("t" if facts.get("freethreaded") else "")


def too_old(facts: Mapping[str, Any]) -> bool:
    return tuple(facts["version"][:2]) < OLDEST


def search() -> Search:
    """Every interpreter found, by label, in search order (the module's docstring)."""
    found, empty = candidates()
    result = Search(empty=empty)
    seen: Dict[Tuple[str, str], str] = {}  # (real executable, version): the label it got
    for c, (facts, why) in zip(found, probe_all(found)):
        if facts is None:
            result.skipped.append((c, why))
            continue
        version = ".".join(str(x) for x in facts["version"])
        if too_old(facts):
            result.skipped.append(
                (c, f"Python {version}: the worker needs {'.'.join(map(str, OLDEST))} or newer")
            )
            continue
        same = (
            f"{c.source}:{facts['executable']}"
            if c.source not in HOST_SOURCES
            else identity(facts["executable"]),
            json.dumps({k: v for k, v in facts.items() if k != "executable"}),
        )
        if same in seen:
            result.skipped.append((c, SAME + seen[same]))
            continue
        label = label_of(facts)
        if label in result.found and facts.get("pypy"):
            label = f"pypy{facts['version'][0]}.{facts['version'][1]}"  # a second PyPy of one major
        if label in result.found:
            other = result.found[label]
            said = f"{label} is {other.candidate.path} ({other.candidate.source}, {other.version})"
            result.skipped.append((c, f"{said}; --python {label}=PATH picks this one"))
            seen[same] = c.path  # its other paths: the same as this one, not as the label's
            continue
        seen[same] = label
        result.found[label] = Found(label, c, facts)
    return result


# --- --python LABEL=PATH ------------------------------------------------------------------

#: A label's parts: "3.14", "3.13t", "pypy8", with "-jit" or "-nojit".
JIT_SUFFIXES = ("-jit", "-nojit")


def given(label: str, path: str) -> Tuple[List[modes.Mode], Found]:
    """The modes of ``--python LABEL=PATH`` (ValueError, one line, where it cannot be): a
    plain label is the interpreter's modes (a CPython's JIT off, a PyPy's JIT on) named
    LABEL; ``LABEL-jit`` its JIT on (an error where it has none), ``LABEL-nojit`` a PyPy's off.
    A path inside a Debian tree runs through the tree's entry script."""
    inside = modes.tree_of(path)
    if inside:
        suite, there = inside
        candidate = Candidate(suite, path, (str(modes.entry_script(suite)), there))
    else:
        where = shutil.which(path) if os.sep not in path else path
        if not where or not modes.executable(Path(where)):
            raise ValueError(f"--python {label}={path}: {not_a_program(where or path)}")
        candidate = Candidate("--python", os.path.abspath(where), (os.path.abspath(where),))
    facts, why = probe(candidate.argv)
    if facts is None:
        raise ValueError(f"--python {label}={path}: no Python interpreter: it {why}")
    base, suffix = label, ""
    for s in JIT_SUFFIXES:
        if label.endswith(s):
            base, suffix = label[: -len(s)], s
    found = Found(base, candidate, facts)
    if too_old(facts):
        oldest = ".".join(map(str, OLDEST))
        raise ValueError(
            f"--python {label}={path}: that is {found.title}; the worker needs {oldest} or newer"
        )
    natural = label_of(facts)
    accepted = {natural}
    if facts.get("pypy"):
        accepted.add(f"pypy{facts['version'][0]}.{facts['version'][1]}")
    if re.fullmatch(r"(pypy)?\d+(\.\d+)?t?", base) and base not in accepted:
        # a label that names a version must be that interpreter's version
        raise ValueError(
            f"--python {label}={path}: that is {found.title}, not {base} (name it "
            f"{natural}, or give a label that is not a version, e.g. mine)"
        )
    inner = found.interpreter().label
    pypy = bool(facts.get("pypy"))
    if suffix == "-jit":
        if pypy:
            return [modes.Mode(label, inner, {}, (), None, modes.COMPILED, True)], found
        if not facts.get("jit_available"):
            raise ValueError(
                f"--python {label}={path}: {found.title} has no JIT "
                f"(sys._jit.is_available() is not true); drop -jit from the label"
            )
        if not facts.get("jit_enabled"):
            raise ValueError(
                f"--python {label}={path}: its JIT did not come on with "
                f"PYTHON_JIT=1 (sys._jit.is_enabled() was false)"
            )
        return [modes.Mode(label, inner, dict(modes.JIT_ON), (), None, modes.COMPILED, True)], found
    if suffix == "-nojit":
        if not pypy:
            return [modes.Mode(label, inner, {}, (), None, modes.INTERPRETED)], found
        return [modes.Mode(label, inner, {}, modes.JIT_OFF_ARGS, None, modes.INTERPRETED)], found
    if pypy:
        return [modes.Mode(label, inner, {}, (), None, modes.COMPILED, True)], found
    return [modes.Mode(label, inner, {}, (), None, modes.INTERPRETED)], found


def not_a_program(path: str) -> str:
    """Why ``path`` (of ``--python``) cannot be run: a folder, a file without the right to
    run it, or nothing there (a name not on PATH)."""
    at = Path(path)
    if at.is_dir():
        return "a folder, not a program (give the interpreter in it: bin/python3.X)"
    if at.is_file():
        return "not executable (give the path of a Python interpreter)"
    return "no such program" + ("" if os.sep in path else " on PATH")


def listing(result: Search, took: float) -> List[str]:
    """What ``--list-modes`` prints: the modes found and from where, then what was not used
    (other paths to an interpreter found, shims of a version not selected, on one line each)."""
    out = [
        f"Interpreters found: {len(result.found)} in {took:.2f} s (modes, interpreter, "
        "where found, how it starts):"
    ]
    for f in dict.fromkeys(f for _, f in result.modes()):
        names = ", ".join(m.label for m in f.modes())
        out.append(f"  {names:<20} {f.title:<34} {f.candidate.source:<6} {' '.join(f.argv)}")
    also: Dict[str, Dict[str, None]] = {}
    shims: List[str] = []
    other: List[str] = []
    for c, why in result.skipped:
        if why.startswith(SAME):
            also.setdefault(why[len(SAME) :], {})[c.path] = None
        elif c.shim and why.startswith(("did not answer", NOT_SELECTED)):
            shims.append(Path(c.path).name)
        else:
            other.append(f"  {c.path} ({c.source}): {why}")
    if also or shims or other:
        out.append("Not used:")
    out += [f"  {label} also at {', '.join(paths)}" for label, paths in also.items()]
    if shims:
        out.append(
            f"  shims of versions not selected (their installs are searched): {', '.join(shims)}"
        )
    out += other
    if result.empty:
        out.append("Looked in, nothing there:")
        out += [f"  {line}" for line in result.empty]
    return out


def main_list() -> int:  # pragma: no cover - the command line's own
    import time

    start = time.perf_counter()
    result = search()
    print("\n".join(listing(result, time.perf_counter() - start)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main_list())
