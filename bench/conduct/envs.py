"""The study's environments: one virtualenv per interpreter, made once per state of the sources.

    python -m bench envs                              # every study interpreter found here
    python -m bench envs --interpreters 3.12,pypy8    # those (an error if one is not here)
    python -m bench envs --modes '3.14*'              # the interpreters of those modes

Each environment holds this tree installed with the study's build (every variant,
``VARIANTS_BUILD=study``) and pyperf. It lives in the per-user cache folder
(build_support/cache.py: ``$XDG_CACHE_HOME/variants/envs``, else ``~/.cache/variants/envs``;
``$VARIANTS_CACHE`` moves the whole cache, ``--cache`` or ``$VARIANTS_ENVS`` the environments
alone) as ``<label>-<digest>``, the digest being of what the build reads: an environment
whose folder exists and is marked ready is reused as it is, by this checkout or any other
(a second clone, CI's) with the same sources; a change to the sources makes a new one. Once
it is ready, the other environments of that interpreter go, but the ``KEEP`` used last and
any used in the last ``IN_USE_HOURS`` (another checkout's run may be using it); any
environment unused for ``STALE_DAYS`` goes too. Removing the folder loses only time. The
build runs from a copy of those files only, so nothing built or cached in the checkout
(``build/``, ``*.egg-info``) reaches it; it compiles through the build's object cache (the
same cache folder), so the native kernels are compiled once per compiler, not once per
environment. ``--build-jobs N`` makes N environments at once.

The interpreters and how to start them come from ``bench/catalog/modes.py``; one of a Debian
tree makes its venv and builds inside the tree (the cache folder is at the same path there).
What is ready is recorded in ``results/envs/pythons.json`` (``{label: python}``, printed too;
``python -m bench run --pythons`` reads it) and
``results/envs/<label>.json`` (the python and the build's times, which the report shows).
Standard library only: the noxfile's suite sessions make their venvs with ``venv`` too.
``python -m bench.conduct.envs`` is the same command.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import store
from ..catalog import modes
from ..store import RESULTS, ROOT

Log = Callable[[str], None]


def _build_cache() -> ModuleType:
    """build_support/cache.py, loaded by its path (standard library only): where the per-user
    cache is, for the environments here and the build's objects (the installed styles tool
    carries a copy in its package: tools/stylebench.py puts it there)."""
    path = ROOT / "build_support" / "cache.py"
    if not path.is_file():
        path = Path(__file__).resolve().parent.parent / "_build_cache.py"
    spec = importlib.util.spec_from_file_location("_variants_build_cache", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_cache = _build_cache()
#: Names the environments' folder (``--cache`` too); else ``<the per-user cache>/envs``.
ENVS_ENV = "VARIANTS_ENVS"
#: After a new environment of an interpreter is ready, its others go but those used last...
KEEP = 2
#: ... and those used this recently (a run of another checkout may be using one).
IN_USE_HOURS = 6
#: An environment of any interpreter unused this long goes.
STALE_DAYS = 30
#: The record of the ready ones, ``{label: python}``, in ``<results>/envs``.
PYTHONS = "pythons.json"
#: The environment of a build with every variant of the study (variants/_settings.py).
STUDY_BUILD = {"VARIANTS_BUILD": "study"}
#: What ``pip install .`` builds from: a new digest of these makes new environments. Of
#: tools/ only the generator that writes the compiled twins' sources (build_support/compiled.py
#: loads it) and its helper: tools/debian.py and the rest change no build.
BUILD_INPUTS = (
    "variants",
    "build_support",
    "setup.py",
    "pyproject.toml",
    "MANIFEST.in",
    "tools/gen_streamlined.py",
    "tools/generated.py",
)
#: The package's long description: copied for the build but not in the digest (it changes
#: no code, and every study run rewrites its results section).
README = "README.md"
#: Written into an environment once its install has finished: the install's record.
READY = "variants-env.json"
#: How tools/debian.py makes an interpreter of this kind (``where``) that is not here yet.
MAKE = {"sid": ["ensure", "sid"], "built": ["freethreaded"]}
#: The kinds made unasked when the study takes every interpreter (a few minutes, once); the
#: free-threaded 3.13 takes 5 to 9 minutes to build, so only when named or already there.
MADE_UNASKED = ("sid",)


class Unavailable(Exception):
    """An interpreter that is not here, or whose environment could not be made."""


def log_stderr(message: str) -> None:
    print(f"envs: {message}", file=sys.stderr, flush=True)


def default_cache() -> Path:
    """Where the environments are made: ``$VARIANTS_ENVS``, else the per-user cache's part."""
    given = os.environ.get(ENVS_ENV)
    return Path(given) if given else Path(build_cache.root()) / build_cache.ENVS


def run(
    argv: Sequence[str], env: Optional[Mapping[str, str]] = None, log: Log = log_stderr
) -> None:
    """Run ``argv`` (with ``env`` added to this process's environment); Unavailable if it fails."""
    log("$ " + " ".join(argv))
    done = subprocess.run(list(argv), env={**os.environ, **(env or {})})
    if done.returncode:
        raise Unavailable(f"{argv[0]} ... exited with {done.returncode}")


def ensure(label: str, log: Log = log_stderr) -> List[str]:
    """The argv that starts interpreter ``label``, made first by tools/debian.py if it can be."""
    where = modes.interpreter(label).where
    base, why = modes.find(label)
    if base is None and where in MAKE:
        run([sys.executable, str(ROOT / "tools" / "debian.py"), *MAKE[where]], log=log)
        base, why = modes.find(label)
    if base is None:
        raise Unavailable(why)
    return base


def venv(
    label: str, folder: Path, log: Log = log_stderr, fresh: bool = False
) -> Tuple[List[str], Dict[str, str]]:
    """(argv, environment) that start the python of a virtualenv of interpreter ``label`` at
    ``folder``, made first if it is not there (anew if ``fresh``); for an interpreter of a
    Debian tree, the environment has the tree's entry script bind that folder."""
    base = ensure(label, log)
    folder = folder.absolute()
    python = str(folder / "bin" / "python")  # not resolved: the link is what makes it the venv's
    row = modes.interpreter(label)
    # in a tree, the build's object cache is bound too (the host's, at the same path)
    objects = Path(build_cache.root())
    objects.mkdir(parents=True, exist_ok=True)  # the entry script binds only what exists
    binds = modes.binds(label, str(folder), str(objects))
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
    if not (folder / "pyvenv.cfg").exists():
        folder.mkdir(parents=True, exist_ok=True)  # for the entry script to bind
        run([*base, "-m", "venv", str(folder)], env=binds, log=log)
    return [*modes.launcher(row), python], binds


def project_files(root: Path = ROOT) -> List[Path]:
    """The build's input files, relative to ``root``: tracked or new, not ignored."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "--", *BUILD_INPUTS, README],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        files = [Path(name) for name in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = [
            p.relative_to(root) for name in (*BUILD_INPUTS, README) for p in _walk(root / name)
        ]
    return sorted(p for p in files if (root / p).is_file() and "__pycache__" not in p.parts)


def _walk(path: Path) -> List[Path]:
    return [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]


def source_digest(files: Sequence[Path], root: Path = ROOT) -> str:
    """A digest of ``files``' names and contents, the README left out."""
    digest = hashlib.sha256()
    for path in (p for p in files if str(p) != README):
        digest.update(str(path).encode() + b"\0" + (root / path).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _requirements(label: str, source: Path) -> List[str]:
    # The [study] extra asks for cffi on every CPython, and cffi does not build on the
    # free-threaded 3.13 (whose build leaves native-cffi out): there, its other requirement.
    if label.endswith("t"):
        return ["pyperf", "mypy_extensions", str(source)]
    return ["pyperf", f"{source}[study]"]


def study_env(
    label: str, cache: Path, files: Sequence[Path], digest: str, log: Log = log_stderr
) -> Dict[str, object]:
    """The ready environment of ``label`` for sources of ``digest``: reused, or made now.

    Returns its record: ``python``, ``reused``, ``install_seconds``, ``build`` (the times the
    build wrote, setup.py's BuildExt).
    """
    folder = (cache / f"{label}-{digest}").absolute()
    # one maker of an environment at a time, from any checkout
    with build_cache.locked(folder.with_name(folder.name + ".lock"), log):
        return _study_env(label, cache, folder, files, log)


def _study_env(
    label: str, cache: Path, folder: Path, files: Sequence[Path], log: Log
) -> Dict[str, object]:
    ready = folder / READY
    if ready.exists():
        log(f"{label}: reusing {folder} (the sources have not changed since it was made)")
        os.utime(ready)  # used now: see tidy
        return {**json.loads(ready.read_text()), "reused": True}
    started = time.perf_counter()
    shutil.rmtree(folder, ignore_errors=True)  # an install that did not finish
    log(f"{label}: making {folder}: compiling the study's build takes minutes")
    python, binds = venv(label, folder, log)
    source = folder / "source"
    for path in files:
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, source / path)
    times = folder / "build-times.json"
    # Every variant this interpreter can build is required: one that fails to build fails
    # the environment, rather than leaving the study without its row.
    env = {**binds, **STUDY_BUILD, "VARIANTS_REQUIRE_ALL": "1", "VARIANTS_BUILD_TIMES": str(times)}
    pip = [*python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run([*pip, *_requirements(label, source)], env=env, log=log)
    shutil.rmtree(source)
    record = {
        "python": python[-1],
        "install_seconds": round(time.perf_counter() - started, 1),
        "build": json.loads(times.read_text()) if times.exists() else None,
    }
    ready.write_text(json.dumps(record, indent=1))
    tidy(cache, label, log)
    return {**record, "reused": False}


def tidy(cache: Path, label: str, log: Log = log_stderr, now: Optional[float] = None) -> None:
    """Remove the environments of ``label`` but the ``KEEP`` used last and those used in the
    last ``IN_USE_HOURS``, and any environment unused for ``STALE_DAYS`` (an environment's
    use: when it was last made or reused, its READY file's time)."""
    now = time.time() if now is None else now
    made: List[Tuple[float, Path]] = []
    for folder in cache.iterdir() if cache.is_dir() else ():
        match = re.fullmatch(r"(.+)-[0-9a-f]{16}", folder.name)
        if not match or not folder.is_dir():
            continue
        try:
            used = (folder / READY).stat().st_mtime
        except OSError:  # not ready: being made, or its making was cut short
            used = folder.stat().st_mtime
        if now - used > STALE_DAYS * 86400:
            log(f"removing {folder}: unused for {STALE_DAYS} days")
            _remove(folder)
        elif match.group(1) == label and (folder / READY).exists():
            made.append((used, folder))
    for used, folder in sorted(made, reverse=True)[KEEP:]:
        if now - used > IN_USE_HOURS * 3600:
            log(f"{label}: removing {folder}, made from other sources and not used lately")
            _remove(folder)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.with_name(folder.name + ".lock").unlink(missing_ok=True)


#: The Java sources of the JDK's worker and styles, compiled into each JDK's environment.
JAVA = ROOT / "bench" / "jdk"


def jdk_env(label: str, cache: Path, log: Log = log_stderr) -> Dict[str, object]:
    """A JDK's environment: bench/jdk/ compiled by its javac (for Java 17, so that every JDK
    of the study runs it), reused while the sources stay the same."""
    argv = ensure(label, log)
    sources = sorted(JAVA.glob("*.java"))
    if not sources:
        raise Unavailable(f"no Java sources in {JAVA}")
    digest = source_digest([p.relative_to(ROOT) for p in sources])
    folder = (cache / f"{label}-{digest}").absolute()
    if (folder / READY).exists():
        log(f"{label}: reusing {folder}")
        os.utime(folder / READY)  # used now: see tidy
        return {**json.loads((folder / READY).read_text()), "reused": True}
    started = time.perf_counter()
    shutil.rmtree(folder, ignore_errors=True)
    classes = folder / "classes"
    classes.mkdir(parents=True)
    # in a tree, javac must see the sources (the checkout) and the folder it writes to
    binds = modes.binds(label, str(folder))
    javac = str(Path(argv[-1]).with_name("javac"))
    run(
        [*argv[:-1], javac, "--release", "17", "-d", str(classes), *map(str, sources)],
        env=binds,
        log=log,
    )
    seconds = round(time.perf_counter() - started, 1)
    record = {"program": argv[-1], "classpath": str(classes), "install_seconds": seconds}
    (folder / READY).write_text(json.dumps(record, indent=1))
    tidy(cache, label, log)
    return {**record, "reused": False}


def prepare(
    labels: Sequence[str],
    cache: Optional[Path] = None,
    results: Path = RESULTS,
    log: Log = log_stderr,
    extra: Sequence[str] = (),
    jobs: int = 1,
) -> Dict[str, object]:
    """Make or reuse the environment of each of ``labels`` (with the packages ``extra`` too),
    ``jobs`` at once, in ``cache`` (default_cache()); record and return ``{label: python}``
    (a JDK's: ``{"program": java, "classpath": ...}``).

    An interpreter that is not here or whose environment fails is left out with a warning.
    """
    cache = default_cache() if cache is None else cache
    cache.mkdir(parents=True, exist_ok=True)
    files = project_files()
    digest = source_digest(files)
    records = results / "envs"
    records.mkdir(parents=True, exist_ok=True)
    for label in labels:
        (records / f"{label}.json").unlink(missing_ok=True)

    def make(label: str) -> Optional[Dict[str, object]]:
        try:
            if modes.interpreter(label).implementation == "openjdk":
                return jdk_env(label, cache, log)
            record = study_env(label, cache, files, digest, log)
            if extra:
                python, binds = venv(label, Path(str(record["python"])).parent.parent, log)
                run([*python, "-m", "pip", "install", "-q", *extra], env=binds, log=log)
            return record
        except Unavailable as why:
            log(f"{label} left out: {why}")
            return None

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        made = list(pool.map(make, labels))
    pythons: Dict[str, object] = {}
    for label, record in zip(labels, made):
        if record is None:
            continue
        store.write_record(records / f"{label}.json", record)
        if "classpath" in record:  # a JDK's
            pythons[label] = {k: record[k] for k in ("program", "classpath")}
        else:
            pythons[label] = str(record["python"])
    pythons_file(results).write_text(json.dumps(pythons, indent=1))
    return pythons


def default_jobs() -> int:
    """How many environments ``prepare`` makes at once unless told: two where there are two
    cores. Each build already compiles on every core, but much of it keeps one busy (the
    venv, pip, mypyc writing C, the largest twin's compile at its end), and the other build
    fills the gaps: on 2 cores (AMD EPYC Zen 3, shared) three environments took 473 s made
    two at once against 732 s one after another, the CPU time the same (393 s, 383 s)."""
    return min(2, os.cpu_count() or 1)


def pythons_file(results: Path = RESULTS) -> Path:
    """The file of ``{label: python}`` of the environments the last ``prepare`` made ready."""
    return results / "envs" / PYTHONS


def chosen(text: str, log: Log = log_stderr) -> List[str]:
    """The interpreters named in ``text`` (comma-separated labels of interpreters or globs of
    modes: "3.14-jit" needs 3.14's environment), or every study interpreter here."""
    if text:
        labels: List[str] = []
        for part in (part.strip() for part in text.split(",") if part.strip()):
            if any(row.label == part for row in modes.INTERPRETERS):
                labels.append(part)
            else:  # a ValueError naming the known modes if it matches none
                labels.extend(mode.interpreter for mode in modes.select(part))
        return list(dict.fromkeys(labels))
    here = []
    for row in modes.study_interpreters():
        argv, why = modes.find(row.label)
        if argv is None and row.where not in MADE_UNASKED:
            log(f"{row.label} left out: {why}")
        else:
            here.append(row.label)
    return here


def parser() -> argparse.ArgumentParser:
    # No abbreviations: the study's --mode (among the options not ours) is not --modes.
    parser = argparse.ArgumentParser(
        prog="python -m bench envs", description=__doc__, allow_abbrev=False
    )
    parser.add_argument(
        "--interpreters", "--modes", default="", help="labels or mode globs, comma-separated"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help=f"where environments are made (default: ${ENVS_ENV}, else {default_cache()})",
    )
    parser.add_argument(
        "--build-jobs",
        type=int,
        default=default_jobs(),
        help="environments made at once (default: %(default)s)",
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="where they are recorded")
    parser.add_argument("--extra", action="append", default=[], help="also install (repeat)")
    return parser


#: This command's own options (each with a value), which the study's other commands do not take.
OWN_OPTIONS = ("--build-jobs", "--cache")


def not_its_own(args: Sequence[str]) -> List[str]:
    """``args`` without ``OWN_OPTIONS`` and their values (``--opt V``, ``--opt=V``): what of
    ``nox -s bench -- ARGS`` goes on to ``python -m bench run`` after ``envs`` took its own."""
    kept: List[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in OWN_OPTIONS:
            skip = True
        elif not arg.startswith(tuple(f"{option}=" for option in OWN_OPTIONS)):
            kept.append(arg)
    return kept


def main(argv: Sequence[str]) -> int:
    # The study's other options may come along (nox -s bench -- ...): they are not ours.
    args, _ = parser().parse_known_args(argv)
    try:
        labels = chosen(args.interpreters)
    except ValueError as error:
        raise SystemExit(f"python -m bench envs: {error}") from None
    pythons = prepare(labels, args.cache, args.results, extra=args.extra, jobs=args.build_jobs)
    print(json.dumps(pythons, indent=1))
    missing = [label for label in labels if label not in pythons]
    return 1 if not pythons or (args.interpreters and missing) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
