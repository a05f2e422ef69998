"""The per-user cache: where the study's environments and the build's compiled objects are kept.

The cache folder is ``$VARIANTS_CACHE``, else ``$XDG_CACHE_HOME/variants``, else
``~/.cache/variants``: ``envs/`` holds the study's environments (bench/conduct/envs.py),
``objects/`` the object files of the build's C, ``cython/`` the C that Cython writes.
Removing the folder, or any part, loses nothing but time. Standard library only:
bench/conduct/envs.py loads this file by its path.

**The object cache.** Every C file the build compiles is looked up first by a key of
everything that decides the object: the compiler (its resolved path and what ``cc -v``
says: version, target, configuration), every argument but the include folders and the
file names, and the preprocessed source (which holds every header it includes, from the
project, the interpreter and the system, but not where they were found: file names in line
markers are cut to their last part, so an object found again names, in its debug
information, the files of the build that compiled it). A hit copies the object; a miss
compiles it and keeps a copy. Cython's C is kept too (``cython/``, build_support/compiled.py).

The native kernels (every ``.c`` under ``variants/native`` that includes no Python header,
whichever extension lists it) are compiled with flags of their own rather than the
interpreter's (``KERNEL_FLAGS``, after the compiler command): so each is compiled once per
compiler and shared by the C-API module, the cffi module and every interpreter using that
compiler. The rest (the C-API bridge, the twins' C from mypyc and Cython) is compiled per
interpreter as before, and found again when that interpreter builds the same C again (a
change elsewhere in the sources makes every environment anew).

Why the build's own cache rather than ccache: ccache hashes the whole command line, and
each interpreter gives different C flags (pyenv's 3.10-3.11 ``-fwrapv``, 3.12-3.13
``-fno-strict-overflow``, 3.9 more; Debian's Pythons their hardening flags), so sharing the
kernels needs the build to compile them with flags of its own anyway; with ``-g`` (in
those flags) ccache also hashes the working folder and the paths in line markers, which
differ in every environment (each builds from its own copy of the sources) unless
configured per call; and ccache is one more package on the host and in the Debian tree, with
its folder bound there, and gives a user without it nothing. This cache needs only
the compiler the build uses, runs inside pip's isolated build, and inside the sid tree
sees the same folder when that folder is bound (bench/conduct/envs.py binds it).

``VARIANTS_BUILD_CACHE=0`` turns the object cache off (a cold build, to time one).
Objects unused for ``STALE_DAYS`` are removed when a build starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

#: Moves the whole cache folder.
CACHE_ENV = "VARIANTS_CACHE"
#: "0": no object cache (every C file compiled, nothing kept).
OBJECTS_ENV = "VARIANTS_BUILD_CACHE"
#: The cache's parts.
ENVS = "envs"
OBJECTS = "objects"
#: Objects not used for this many days are removed (a build touches those it uses).
STALE_DAYS = 30
#: Part of every key: a new layout of the cache (or a new way of keying) misses every old entry.
FORMAT = "1"

#: The folder of the native kernels, relative to the project.
NATIVE = Path("variants") / "native"
#: The flags of a native kernel, after the compiler command; then the extension's own
#: (``variants/native/_build.py``: -O2, -fvisibility=hidden, a sanitizer's). Those of the
#: interpreters' builds that matter for position-independent, threaded C, and none of the
#: rest (``-fwrapv`` or ``-fno-strict-overflow``, hardening, ``-g``), which differ from one
#: interpreter to the next.
KERNEL_FLAGS = ("-pthread", "-fPIC", "-DNDEBUG", "-Wall")
#: An include of a Python header: a file with one, or including one, is not a kernel.
PYTHON_HEADER = re.compile(r'^\s*#\s*include\s*[<"]Python\.h[>"]', re.M)
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
#: The line of ``gcc -v`` that names the command it was called by.
CALLED_AS = re.compile(r"COLLECT_GCC=")
#: A line marker of the preprocessed source: ``# 12 "path/to/file.h" 2``.
LINE_MARKER = re.compile(rb'^(#\s*\d+\s+)"([^"]*)"', re.M)


def root() -> Path:
    """The cache folder (see the module's docstring)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "variants"


def objects_enabled() -> bool:
    return os.environ.get(OBJECTS_ENV, "") != "0"


def is_kernel(source: str, cwd: Optional[Path] = None) -> bool:
    """Whether ``source`` (relative to ``cwd``) is a native kernel: a ``.c`` under
    variants/native whose text and quoted includes, followed through, include no Python
    header."""
    path = Path(cwd or os.getcwd()) / source
    try:
        relative = path.resolve().relative_to(Path(cwd or os.getcwd()).resolve())
    except ValueError:
        return False
    if relative.parent != NATIVE or path.suffix != ".c":
        return False
    seen: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen or not current.is_file():
            continue
        seen.add(current)
        text = current.read_text(errors="replace")
        if PYTHON_HEADER.search(text):
            return False
        todo += [current.parent / name for name in QUOTED_INCLUDE.findall(text)]
    return True


def _without_includes(argv: Sequence[str]) -> List[str]:
    """``argv`` less its include folders (``-Idir`` or ``-I dir``), which the preprocessed
    source stands for."""
    kept: List[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "-I":
            skip = True
        elif not arg.startswith("-I"):
            kept.append(arg)
    return kept


def digest(*parts: object) -> str:
    """A key of ``parts`` (texts or bytes) and of this cache's FORMAT."""
    result = hashlib.sha256(FORMAT.encode())
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        result.update(len(data).to_bytes(8, "little") + data)
    return result.hexdigest()


def kept(folder: Path, key: str) -> Path:
    """Where the file of ``key`` is kept in ``folder`` (a part of the cache)."""
    return folder / key[:2] / key[2:]


def fetch(folder: Path, key: str, target: Path) -> bool:
    """Copy the file kept under ``key`` in ``folder`` to ``target``; whether there was one."""
    path = kept(folder, key)
    if not path.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    with contextlib.suppress(OSError):
        os.utime(path)  # used: not stale
    return True


def keep(folder: Path, key: str, source: Path) -> None:
    """Keep a copy of ``source`` under ``key`` in ``folder``, unless one is kept already; the
    copy appears whole or not at all, whoever else writes it."""
    path = kept(folder, key)
    if path.is_file() or not source.is_file():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".partial")
        os.close(handle)
        shutil.copyfile(source, partial)
        os.replace(partial, path)
    except OSError as error:  # a full or read-only disk: only time is lost
        print(f"variants: not keeping {source} in {path.parent}: {error}", file=sys.stderr)


def prune(folder: Path, days: float = STALE_DAYS) -> None:
    """Remove the files kept in ``folder`` (and partial ones) not used for ``days``."""
    limit = time.time() - days * 86400
    for path in folder.glob("*/*"):
        with contextlib.suppress(OSError):  # removed by another build meanwhile
            if path.stat().st_mtime < limit:
                path.unlink()


@contextlib.contextmanager
def locked(path: Path, waiting: Optional[Callable[[str], None]] = None) -> Iterator[None]:
    """An exclusive lock on ``path`` (made if missing, and left) for the ``with`` block;
    ``waiting`` is told when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting:
                waiting(f"waiting for {path}: another process holds it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class ObjectCache:
    """Objects of compiled C by key, in ``folder`` (see the module's docstring).

    Lists the C files it found compiled (``hits``) and compiled (``compiled``), for the
    build's record and the tests.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hits: List[str] = []
        self.compiled: List[str] = []
        self._identities: Dict[str, str] = {}
        self._lock = threading.Lock()

    def identity(self, compiler: str) -> str:
        """What names ``compiler`` (a command, e.g. "gcc"): its resolved path and what ``-v``
        says, less the name it was called by (Debian's CPython calls its gcc
        x86_64-linux-gnu-gcc, its PyPy gcc: the same compiler)."""
        with self._lock:
            if compiler not in self._identities:
                found = shutil.which(compiler) or compiler
                done = subprocess.run([found, "-v"], capture_output=True, text=True, check=False)
                said = (done.stdout + done.stderr).splitlines()
                lines = [os.path.realpath(found), *(s for s in said if not CALLED_AS.match(s))]
                self._identities[compiler] = "\n".join(lines)
            return self._identities[compiler]

    def key(self, argv: Sequence[str], source: str, preprocessed: bytes) -> str:
        """The key of compiling ``source`` with ``argv`` (the whole command but the source
        and the ``-o`` output), given its preprocessed text."""
        normal = LINE_MARKER.sub(
            lambda m: m.group(1) + b'"' + os.path.basename(m.group(2).rstrip(b"/")) + b'"',
            preprocessed,
        )
        flags = "\0".join(_without_includes(argv[1:]))
        return digest(self.identity(argv[0]), flags, Path(source).suffix, normal)

    def compile(
        self, argv: Sequence[str], source: str, obj: str, spawn: Callable[[List[str]], Any]
    ) -> None:
        """Compile ``source`` to ``obj`` with ``argv`` (the command less source and output)
        through the cache; ``spawn`` runs a command (the compiler's, so errors are its)."""
        done = subprocess.run([*argv, source, "-E"], capture_output=True, check=False)
        if done.returncode:  # let the compiler say what is wrong
            spawn([*argv, source, "-o", obj])
            return
        key = self.key(argv, source, done.stdout)
        found = fetch(self.folder, key, Path(obj))
        if not found:
            # Another build (an environment made beside this one) may be compiling it now.
            with locked(kept(self.folder, key).with_suffix(".lock")):
                found = fetch(self.folder, key, Path(obj))
                if not found:
                    spawn([*argv, source, "-o", obj])
                    keep(self.folder, key, Path(obj))
        with self._lock:
            (self.hits if found else self.compiled).append(source)


def kernel_command(compiler_so: Sequence[str], extra_postargs: Sequence[str]) -> List[str]:
    """The compiler command of a native kernel: the compiler (``$CC`` or the interpreter's,
    its own words, e.g. ``gcc -pthread``), then KERNEL_FLAGS, then the extension's flags."""
    import sysconfig

    command = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "")
    command = command or list(compiler_so[:1])
    return [*command, *(f for f in KERNEL_FLAGS if f not in command), *extra_postargs]


def install(compiler: Any, folder: Optional[Path] = None) -> Optional[ObjectCache]:
    """Make ``compiler`` (a distutils UnixCCompiler) compile through an ObjectCache in
    ``folder`` (the cache's objects by default), the native kernels with their own flags;
    the cache, or None if off or not a Unix compiler."""
    if not objects_enabled() or getattr(compiler, "compiler_type", "") != "unix":
        return None
    cache = ObjectCache(folder or root() / OBJECTS)
    try:
        cache.folder.mkdir(parents=True, exist_ok=True)
        prune(cache.folder)
    except OSError as error:  # a read-only home: build without
        print(f"variants: no object cache in {cache.folder}: {error}", file=sys.stderr)
        return None
    original = compiler._compile

    def _compile(
        obj: str,
        src: str,
        ext: str,
        cc_args: List[str],
        extra_postargs: List[str],
        pp_opts: List[str],
    ) -> None:
        if ext != ".c":  # C++ and the like: as before
            original(obj, src, ext, cc_args, extra_postargs, pp_opts)
            return
        if is_kernel(src):
            argv = [*kernel_command(compiler.compiler_so, extra_postargs), *cc_args]
        else:
            argv = [*compiler.compiler_so, *cc_args, *extra_postargs]
        try:
            cache.compile(argv, src, obj, compiler.spawn)
        except Exception as error:  # as distutils' compile says it: a CompileError
            failed = getattr(sys.modules[type(compiler).__module__], "CompileError", None)
            if failed is None or isinstance(error, failed):
                raise
            raise failed(str(error)) from error

    compiler._compile = _compile
    return cache


def summary(cache: Optional[ObjectCache]) -> Dict[str, object]:
    """The cache's part of the build's record: its folder and what it found and compiled."""
    if cache is None:
        return {"folder": None}
    return {"folder": str(cache.folder), "hits": len(cache.hits), "compiled": len(cache.compiled)}
