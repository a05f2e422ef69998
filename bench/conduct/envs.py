"""The study's environments: one virtualenv per interpreter, made once per state of the sources.

    python -m bench envs                              # every study interpreter found here
    python -m bench envs --interpreters 3.12,pypy8    # those (an error if one is not here)
    python -m bench envs --modes '3.14*'              # the interpreters of those modes

Each environment holds this tree installed with the study's build (every variant,
``VARIANTS_BUILD=study``) and pyperf. It lives in the cache folder (``.nox/envs`` in the
checkout; ``--cache``, or ``$VARIANTS_ENVS``, puts it elsewhere) as ``<label>-<digest>``, the digest
being of what the build reads: an environment whose folder exists and is marked ready is
reused as it is; a change to the sources makes a new one, and the older ones of that
interpreter go once it is ready. The build runs from a copy of those files only, so nothing
built or cached in the checkout (``build/``, ``*.egg-info``) reaches it.

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
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from bench import store
from bench.catalog import modes
from bench.store import RESULTS, ROOT

Log = Callable[[str], None]

#: Where the environments are made (``--cache`` and ``$VARIANTS_ENVS`` override it).
CACHE = ROOT / ".nox" / "envs"
#: The record of the ready ones, ``{label: python}``, in ``<results>/envs``.
PYTHONS = "pythons.json"
#: The environment of a build with every variant of the study (variants/_settings.py).
STUDY_BUILD = {"VARIANTS_BUILD": "study"}
#: What ``pip install .`` builds from: a new digest of these makes new environments. Of
#: tools/ only the generator that writes the compiled twins' sources (build_support/compiled.py
#: loads it) and its helper: tools/debian.py and the rest change no build.
BUILD_INPUTS = ("variants", "build_support", "setup.py", "pyproject.toml", "MANIFEST.in",
                "tools/gen_streamlined.py", "tools/generated.py")  # fmt: skip
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
    binds = modes.binds(label, str(folder))
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
    ready = folder / READY
    if ready.exists():
        log(f"{label}: reusing {folder} (the sources have not changed since it was made)")
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
    for old in cache.glob(f"{label}-*"):
        if old != folder and re.fullmatch(re.escape(label) + r"-[0-9a-f]{16}", old.name):
            log(f"{label}: removing {old}, made from older sources")
            shutil.rmtree(old, ignore_errors=True)
    return {**record, "reused": False}


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
    return {**record, "reused": False}


def prepare(
    labels: Sequence[str],
    cache: Path = CACHE,
    results: Path = RESULTS,
    log: Log = log_stderr,
    extra: Sequence[str] = (),
) -> Dict[str, object]:
    """Make or reuse the environment of each of ``labels`` (with the packages ``extra`` too);
    record and return ``{label: python}`` (a JDK's: ``{"program": java, "classpath": ...}``).

    An interpreter that is not here or whose environment fails is left out with a warning.
    """
    cache.mkdir(parents=True, exist_ok=True)
    files = project_files()
    digest = source_digest(files)
    records = results / "envs"
    records.mkdir(parents=True, exist_ok=True)
    pythons: Dict[str, object] = {}
    for label in labels:
        (records / f"{label}.json").unlink(missing_ok=True)
        try:
            if modes.interpreter(label).implementation == "openjdk":
                record = jdk_env(label, cache, log)
                pythons[label] = {k: record[k] for k in ("program", "classpath")}
                store.write_record(records / f"{label}.json", record)
                continue
            record = study_env(label, cache, files, digest, log)
            if extra:
                python, binds = venv(label, Path(str(record["python"])).parent.parent, log)
                run([*python, "-m", "pip", "install", "-q", *extra], env=binds, log=log)
        except Unavailable as why:
            log(f"{label} left out: {why}")
            continue
        store.write_record(records / f"{label}.json", record)
        pythons[label] = str(record["python"])
    pythons_file(results).write_text(json.dumps(pythons, indent=1))
    return pythons


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
    cache = Path(os.environ.get("VARIANTS_ENVS") or CACHE)
    parser.add_argument("--cache", type=Path, default=cache, help="where environments are made")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where they are recorded")
    parser.add_argument("--extra", action="append", default=[], help="also install (repeat)")
    return parser


def main(argv: Sequence[str]) -> int:
    # The study's other options may come along (nox -s bench -- ...): they are not ours.
    args, _ = parser().parse_known_args(argv)
    try:
        labels = chosen(args.interpreters)
    except ValueError as error:
        raise SystemExit(f"python -m bench envs: {error}") from None
    pythons = prepare(labels, args.cache, args.results, extra=args.extra)
    print(json.dumps(pythons, indent=1))
    missing = [label for label in labels if label not in pythons]
    return 1 if not pythons or (args.interpreters and missing) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
