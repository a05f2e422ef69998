"""Find or build a free-threaded CPython 3.13 ("3.13t"), cached outside every clone.

No Debian release packages a free-threaded 3.13, so this builds one from Debian 13's own
python3.13 source package (the upstream tarball inside it, ``python3.13_<ver>.orig.tar.xz``, with
no Debian patches) on the host, with the host's compiler and libraries::

    ./configure --disable-gil --prefix=<cache> --with-ensurepip=install
    make -j$(nproc) && make install

From Python (stdlib only; the noxfile can do this)::

    sys.path.insert(0, "tools")
    import freethreaded
    python = freethreaded.find_or_build(log=session.log)   # a Path to python3.13t
    python = freethreaded.find()                            # the same, or None: never builds

``find_or_build`` returns an executable ``python3.13t`` that is CPython 3.13 built with
``Py_GIL_DISABLED``, running with the GIL off, and that imports ssl, _hashlib, zlib, _ctypes,
sqlite3, bz2, lzma, readline, venv and ensurepip (``REQUIRED_MODULES``). It looks on PATH, then in
the cache, ``/var/cache/variants/cpython-3.13t`` (``$VARIANTS_FREETHREADED_CACHE`` overrides it),
and builds into the cache only when neither has one. A build raises ``BuildError`` with the reason.

From a shell::

    python3 tools/freethreaded.py          # print the path, building it first if needed
    python3 tools/freethreaded.py --check  # print the path, or exit 1: never builds

Getting the source: on Debian 13 with ``apt-get source --download-only python3.13`` (through a
private deb-src list on the host's mirror if the host's apt has no deb-src line); on another
release (Debian 12) in the Debian 13 tree of ``tools/trixie.py``, made once and kept. The build
needs root (apt-get for the headers, debootstrap, chroot), happens in a temporary directory beside
the cache, is installed with DESTDIR into that directory, checked there and renamed into place, so
an interrupted build leaves no half interpreter (its directory is removed, by this run or the
next); a lock keeps two builds from racing. A build takes minutes (most of it make); once
cached, the command returns at once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import trixie  # the sibling tools/trixie.py: the Debian 13 tree
from trixie import Log, TreeError, log_stderr, run

CACHE_ENV = "VARIANTS_FREETHREADED_CACHE"
DEFAULT_CACHE = trixie.CACHE_ROOT / "cpython-3.13t"
EXECUTABLE = "python3.13t"
SOURCE_PACKAGE = "python3.13"

#: Standard-library modules the interpreter must import, besides the GIL being off.
REQUIRED_MODULES: Tuple[str, ...] = (
    "ssl",
    "_hashlib",
    "zlib",
    "_ctypes",
    "sqlite3",
    "bz2",
    "lzma",
    "readline",
    "venv",
    "ensurepip",
)

#: Host packages the build needs: the toolchain and the headers of the modules above, plus
#: gdbm, ncurses and uuid for dbm.gnu, curses and _uuid. (tkinter is left out on purpose.)
BUILD_PACKAGES: Tuple[str, ...] = (
    "build-essential",
    "pkg-config",
    "xz-utils",
    "libssl-dev",
    "zlib1g-dev",
    "libffi-dev",
    "libbz2-dev",
    "liblzma-dev",
    "libsqlite3-dev",
    "libreadline-dev",
    "libncurses-dev",
    "uuid-dev",
    "libgdbm-dev",
    "libgdbm-compat-dev",
)

#: Run by a candidate interpreter: what ``_probe`` needs to know, as JSON.
PROBE = """
import json, sys, sysconfig
missing = []
for name in sys.argv[1:]:
    try:
        __import__(name)
    except ImportError:
        missing.append(name)
print(json.dumps({
    "version": list(sys.version_info[:2]),
    "implementation": sys.implementation.name,
    "Py_GIL_DISABLED": sysconfig.get_config_var("Py_GIL_DISABLED"),
    "gil_enabled": getattr(sys, "_is_gil_enabled", lambda: True)(),
    "missing": missing,
}))
"""


class BuildError(RuntimeError):
    """Finding or building the interpreter failed; the message says which step and why."""


def default_cache() -> Path:
    """The cache prefix: ``$VARIANTS_FREETHREADED_CACHE`` if set, else ``DEFAULT_CACHE``."""
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE)


def _probe(python: Path) -> Optional[str]:
    """None if ``python`` is a usable free-threaded CPython 3.13, else what is wrong with it."""
    try:
        result = subprocess.run(
            [str(python), "-I", "-c", PROBE, *REQUIRED_MODULES],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"does not run: {error}"
    if result.returncode != 0:
        return f"exits {result.returncode}: {result.stderr.strip()[-500:]}"
    facts = json.loads(result.stdout)
    if facts["implementation"] != "cpython" or facts["version"] != [3, 13]:
        return f"is {facts['implementation']} {facts['version']}, not CPython 3.13"
    if facts["Py_GIL_DISABLED"] != 1 or facts["gil_enabled"]:
        return "is not free-threaded (Py_GIL_DISABLED != 1 or the GIL is on)"
    if facts["missing"]:
        return "cannot import " + ", ".join(facts["missing"])
    return None


def find(cache: Optional[Path] = None, log: Log = print) -> Optional[Path]:
    """A usable ``python3.13t`` on PATH or in the cache, or None. Never builds."""
    candidates: List[Path] = []
    on_path = shutil.which(EXECUTABLE)
    if on_path:
        candidates.append(Path(on_path))
    candidates.append((cache or default_cache()) / "bin" / EXECUTABLE)
    for python in candidates:
        if not python.exists():
            continue
        problem = _probe(python)
        if problem is None:
            return python
        log(f"ignoring {python}: it {problem}")
    return None


def find_or_build(cache: Optional[Path] = None, log: Log = print) -> Path:
    """The path of a free-threaded CPython 3.13 executable, built into ``cache`` if need be.

    ``cache`` is the installation prefix (default ``default_cache()``); the build installs
    ``<cache>/bin/python3.13t``. ``log`` receives one line per step. Raises BuildError when the
    build cannot be done (not root, a download or compile failing, a required module missing).
    """
    cache = (cache or default_cache()).absolute()
    found = find(cache, log)
    if found:
        return found
    if os.geteuid() != 0:
        raise BuildError(
            f"no {EXECUTABLE} on PATH or in {cache}, and building one needs root "
            f"(apt-get, debootstrap, chroot): run `sudo python3 {__file__}` once"
        )
    try:
        with trixie.locked(cache.parent / f".{cache.name}.lock", log):
            found = find(cache, log)  # built by another process while this one waited
            return found or _build(cache, log)
    except TreeError as error:
        raise BuildError(str(error)) from error


# --- the build -----------------------------------------------------------------------------


def _download_source(dest: Path, log: Log) -> Path:
    """Debian 13's python3.13 source package downloaded (and checked) into ``dest``.

    Returns the upstream tarball, ``python3.13_<ver>.orig.tar.xz``, of the newest version there.
    """
    dest.mkdir(parents=True, exist_ok=True)
    download = ["apt-get", "source", "--download-only", SOURCE_PACKAGE]
    if trixie.host_codename() == trixie.SUITE:
        log(f"downloading Debian 13's {SOURCE_PACKAGE} source into {dest}")
        try:
            run(download, log, cwd=dest)
        except TreeError:
            log("the host's apt has no deb-src line for it: using a private source list")
            _download_with_private_list(dest, download, log)
    else:
        release = trixie.host_codename() or "this host"
        log(f"{release} is not Debian 13: downloading the source in the Debian 13 tree")
        root = trixie.ensure_tree(log=log)
        trixie.run_in_tree(root, ["apt-get", "update", "-q"], log=log, to_stderr=True)
        trixie.run_in_tree(
            root, download, binds=[(dest, "/src")], cwd="/src", log=log, to_stderr=True
        )
    tarballs = sorted(
        dest.glob(f"{SOURCE_PACKAGE}_*.orig.tar.xz"),
        key=lambda path: [int(part) for part in re.findall(r"\d+", path.name.split("_")[1])],
    )
    if not tarballs:
        raise BuildError(f"apt-get source left no {SOURCE_PACKAGE}_*.orig.tar.xz in {dest}")
    return tarballs[-1]


def _download_with_private_list(dest: Path, download: Sequence[str], log: Log) -> None:
    """apt-get source with a throw-away deb-src list and index, leaving the host's apt alone."""
    archive, security = trixie.debian_mirrors()
    with tempfile.TemporaryDirectory(prefix="variants-apt-") as tmp:
        state = Path(tmp)
        (state / "lists" / "partial").mkdir(parents=True)
        (state / "parts").mkdir()
        (state / "sources.list").write_text(
            f"deb-src {archive} {trixie.SUITE} main\n"
            f"deb-src {archive} {trixie.SUITE}-updates main\n"
            f"deb-src {security} {trixie.SUITE}-security main\n"
        )
        options = [
            "-o", f"Dir::Etc::SourceList={state / 'sources.list'}",
            "-o", f"Dir::Etc::SourceParts={state / 'parts'}",
            "-o", f"Dir::State::Lists={state / 'lists'}",
        ]  # fmt: skip
        run(["apt-get", *options, "update", "-q"], log)
        run([download[0], *options, *download[1:]], log, cwd=dest)


def _configure_and_make(source: Path, prefix: Path, build_log: Path, log: Log) -> None:
    """configure, make and check the built interpreter in the source tree."""
    jobs = os.cpu_count() or 1
    steps: List[Sequence[str]] = [
        ["./configure", "--disable-gil", f"--prefix={prefix}", "--with-ensurepip=install"],
        ["make", f"-j{jobs}"],
    ]
    with build_log.open("ab") as output:
        for step in steps:
            started = time.monotonic()
            try:
                run(step, log, cwd=source, output=output)
            except TreeError as error:
                tail = build_log.read_text(errors="replace").splitlines()[-30:]
                raise BuildError(f"{error}; the end of {build_log}:\n" + "\n".join(tail)) from None
            log(f"  took {time.monotonic() - started:.0f} s")
    _report_missing_modules(build_log, log)
    result = subprocess.run(
        ["./python", "-I", "-c", PROBE, *REQUIRED_MODULES],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BuildError(f"the built interpreter does not start: {result.stderr.strip()}")
    facts = json.loads(result.stdout)
    if facts["missing"]:
        raise BuildError(
            f"the build lacks required modules: {', '.join(facts['missing'])}; see {build_log}"
            " (a header package missing from BUILD_PACKAGES?)"
        )


def _report_missing_modules(build_log: Path, log: Log) -> None:
    """Log make's own list of optional modules it could not build (check_extension_modules)."""
    lines = build_log.read_text(errors="replace").splitlines()
    for index, line in enumerate(lines):
        if line.startswith(("The necessary bits", "Failed to build", "Following modules built")):
            names = []
            for follow in lines[index + 1 :]:
                if not follow.startswith(" ") or not follow.strip():
                    break
                names.extend(follow.split())
            log(f"  make: {line.strip()} {' '.join(names)}")


def _check_installed(python: Path, log: Log) -> None:
    """Probe the installed interpreter and make a venv with pip from it."""
    problem = _probe(python)
    if problem:
        raise BuildError(f"the installed {python} {problem}")
    with tempfile.TemporaryDirectory(prefix="variants-venv-") as tmp:
        venv = Path(tmp) / "venv"
        run([str(python), "-m", "venv", str(venv)], log)
        run([str(venv / "bin" / "python"), "-m", "pip", "--version"], log)
        problem = _probe(venv / "bin" / "python")
        if problem:
            raise BuildError(f"a venv made by {python} {problem}")


def _build_and_stage(tarball: Path, work: Path, prefix: Path, log: Log) -> Path:
    """Unpack, configure, make and ``make install`` into ``work``; return the checked prefix.

    The result is ``prefix`` as installed under ``work/stage`` (DESTDIR), ready to be renamed.
    """
    build_log = prefix.parent / f"{prefix.name}-build.log"
    build_log.write_text("")
    log(f"unpacking {tarball.name} into {work} (the output of each step goes to {build_log})")
    run(["tar", "-xJf", str(tarball), "-C", str(work)], log)
    sources = [path for path in work.iterdir() if (path / "configure").exists()]
    if len(sources) != 1:
        raise BuildError(f"{tarball} does not hold one source tree with a configure script")
    _configure_and_make(sources[0], prefix, build_log, log)
    stage = work / "stage"
    with build_log.open("ab") as output:
        run(["make", "install", f"DESTDIR={stage}"], log, cwd=sources[0], output=output)
    staged = stage / prefix.relative_to(prefix.anchor)
    log("checking the staged interpreter")
    _check_installed(staged / "bin" / EXECUTABLE, log)
    return staged


def _build(prefix: Path, log: Log) -> Path:
    """Download, build, install into a staging directory, check and move into ``prefix``."""
    started = time.monotonic()
    work_root = prefix.parent
    work_root.mkdir(parents=True, exist_ok=True)
    for stale in work_root.glob(f".build-{prefix.name}-*"):  # left by an interrupted build
        trixie.remove_tree(stale, log)
    log(f"building free-threaded CPython 3.13 into {prefix}")
    trixie.ensure_host_packages(BUILD_PACKAGES, log)
    tarball = _download_source(work_root / "src", log)
    work = Path(tempfile.mkdtemp(prefix=f".build-{prefix.name}-", dir=work_root))
    try:  # the build directory goes whatever happens (the next run removes it after a kill -9)
        staged = _build_and_stage(tarball, work, prefix, log)
        if prefix.exists() or prefix.is_symlink():
            log(f"replacing the unusable {prefix}")
            prefix.rename(work / "previous")
        staged.rename(prefix)
    finally:
        trixie.remove_tree(work, log)
    python = prefix / "bin" / EXECUTABLE
    problem = _probe(python)
    if problem:
        raise BuildError(f"{python} {problem} once moved into place")
    log(f"built {python} in {time.monotonic() - started:.0f} s")
    return python


# --- command line --------------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the interpreter's path (building it if needed); ``--check`` never builds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="print the path, or exit 1 if there is none"
    )
    parser.add_argument(
        "--cache", type=Path, help=f"the install prefix (default ${CACHE_ENV} or {DEFAULT_CACHE})"
    )
    args = parser.parse_args(argv)
    # On SIGTERM unwind like on ^C: subprocess.run then kills the running step (make).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    if args.check:
        found = find(args.cache, log_stderr)
        if found is None:
            print(f"no free-threaded {EXECUTABLE} on PATH or in the cache", file=sys.stderr)
            return 1
        print(found)
        return 0
    try:
        print(find_or_build(args.cache, log_stderr))
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
