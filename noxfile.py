"""nox sessions: tests on every interpreter, lint, the C under qemu and sanitizers, the study.

    nox -s ci             # what CI runs (CI_SESSIONS below); set VARIANTS_REQUIRE_ALL=1 as CI does
    nox -s tests          # the study's build, CPython 3.9-3.13 and PyPy, each in its own virtualenv
    nox -s tests-3.12     # one interpreter; -- --slow adds the 4 GiB messages
    nox -s dropin         # the default build (what pip install . gives), every interpreter
    nox -s freethreaded   # the whole suite on a free-threaded CPython 3.13 (built once if missing)
    nox -s lint           # ruff, mypy --strict, generated code up to date
    nox -s cross          # native C kernels on x86-64, AArch64, RISC-V 64 under qemu-user
    nox -s sanitize       # native variants with ASan and UBSan, against hashlib
    nox -s tsan           # native variants with ThreadSanitizer, under the racing tests
    nox -s fuzz           # libFuzzer over the native state machine, against OpenSSL
    nox -s engines        # digest_column in DuckDB, Polars, pandas 3, Dask distributed
    nox -s peers          # digest_column against DuckDB, polars-hash, chdb (bench/peers.py)
    nox -s bench          # the study: every interpreter, variant, length (python -m bench.study)
    nox -s bench -- --mode quick --interpreters 3.12,pypy3 --variants 'helpers*'
    nox -s memory         # memray: peak memory and allocations per variant (CPython)
    nox -s bytecode       # bytecode and machine instructions per block, per interpreter

The pyenv interpreters are found without any setup: nox only sees them when
PYENV_VERSION names them, so this file sets it from ``$(pyenv root)/versions``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import nox

CPYTHONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
#: Whichever PyPy 3 the distribution ships (3.9 on Debian 12, newer on Debian 13).
PYPY = "pypy3"
INTERPRETERS = [*CPYTHONS, PYPY]
#: The interpreters whose study environments nox makes (bench_env): CPython 3.10 on and PyPy.
STUDY_ENVS = [*(version for version in CPYTHONS if version != "3.9"), PYPY]

nox.options.sessions = ["lint", "tests"]

#: The environment of a build with every variant of the study (variants/_settings.py).
STUDY_BUILD = {"VARIANTS_BUILD": "study"}
#: The environment of the default build: what ``pip install .`` gives a user.
DEFAULT_BUILD = {"VARIANTS_BUILD": "default"}
nox.options.error_on_missing_interpreters = True


def _pyenv_root() -> Path:
    root = os.environ.get("PYENV_ROOT")
    if not root:
        try:
            root = subprocess.run(
                ["pyenv", "root"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            root = str(Path.home() / ".pyenv")
    return Path(root)


def _expose_pyenv_versions() -> None:
    """Put every pyenv CPython 3.x on PYENV_VERSION, newest patch release of each minor."""
    versions = _pyenv_root() / "versions"
    if not versions.is_dir():
        return
    newest: Dict[str, Tuple[int, str]] = {}
    for entry in versions.iterdir():
        match = re.fullmatch(r"(3\.\d+)\.(\d+)", entry.name)
        if match and (entry / "bin").is_dir():
            minor, patch = match.group(1), int(match.group(2))
            if minor not in newest or patch > newest[minor][0]:
                newest[minor] = (patch, entry.name)
    names: List[str] = [name for _, name in newest.values()]
    current = [v for v in os.environ.get("PYENV_VERSION", "").split(":") if v]
    os.environ["PYENV_VERSION"] = ":".join(dict.fromkeys([*current, *sorted(names)]))
    shims = str(_pyenv_root() / "shims")
    if shims not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = shims + os.pathsep + os.environ.get("PATH", "")


_expose_pyenv_versions()


def _suite(session: nox.Session, build: Dict[str, str], extras: str) -> None:
    """Install this tree with ``build``'s environment and run the test suite against it."""
    # pyperf: the study's tests read and write its files
    session.install(f".[{extras}]", "pyperf", env=build)
    # Run from the tests folder so that the installed package, not the
    # source tree, is the one imported.
    session.chdir("tests")
    session.run("python", "-m", "pytest", *session.posargs, env={"PYTHONDONTWRITEBYTECODE": "1"})


@nox.session(python=INTERPRETERS)
def tests(session: nox.Session) -> None:
    """The test suite against the study's build: every variant this interpreter runs.

    ``-- --slow`` adds the tests marked slow (a 4 GiB message through each native bridge).
    """
    _suite(session, STUDY_BUILD, "test,study")


@nox.session(python=INTERPRETERS)
def dropin(session: nox.Session) -> None:
    """The test suite against the default build (the native variant and pure Python): what
    ``pip install .`` gives a user, in seconds where the study's build takes minutes."""
    _suite(session, DEFAULT_BUILD, "test")


@nox.session(python="3.12")
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, and the generated sources up to date."""
    session.install("ruff", "mypy", "nox", "pytest", "hypothesis")
    # What bench/ and build_support/ import, so that mypy checks their use of it.
    session.install("pyperf", "matplotlib", "memray", "cython", "cffi", "setuptools>=75")
    session.install("types-setuptools")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "tools/gen_streamlined.py", "--check")
    session.run("python", "tools/gen_constants.py", "--check")


@nox.session(python=False)
def cross(session: nox.Session) -> None:
    """The native C kernels on x86-64, AArch64 and RISC-V 64 (qemu-user), with and without
    their CPU extensions (tests/cross/run.py; with CI=true a missing tool is an error)."""
    session.run(sys.executable, "tests/cross/run.py", external=True)


def _sanitized(session: nox.Session, sanitizer: str, options: Dict[str, str]) -> Dict[str, str]:
    """Build the native extensions with ``sanitizer`` beside a copy of the package; the
    environment that runs the tests against them (CPython is not built with the
    sanitizers, so their runtime is preloaded)."""
    session.install("cffi", "setuptools", "pytest", "hypothesis")
    target = os.path.abspath(os.path.join(session.create_tmp(), f"native-{sanitizer}"))
    session.run("python", "-m", "build_support.native", "--into", target, "--sanitize", sanitizer)
    runtime = "libasan.so" if sanitizer == "address" else "libtsan.so"
    preload = str(
        session.run("gcc", f"-print-file-name={runtime}", external=True, silent=True)
    ).strip()
    env = {
        "PYTHONPATH": target,
        "LD_PRELOAD": preload,
        "PYTHONDONTWRITEBYTECODE": "1",
        # Both bridges must have been built: a failed build fails the tests.
        "VARIANTS_REQUIRE_ALL": "1",
        **options,
    }
    # From the tests folder, so that the sanitized build, not the source tree, is imported.
    session.chdir("tests")
    check = (
        "import sys, variants.native._capi as a, variants.native._cffi as b, variants.native as n\n"
        "assert all(m.__file__.startswith(sys.argv[1]) for m in (a, b))\n"
        "print(n.describe())"
    )
    session.run("python", "-c", check, target, env=env)
    return env


#: What CI runs (.ci/run, and the README's test command): the study's build on two
#: CPythons and PyPy, the default build on the other CPythons, the C on every
#: architecture, sanitizers and a fuzzer. The free-threaded 3.13 is left to
#: nox -s freethreaded by hand: building it takes 5 to 9 minutes here.
CI_SESSIONS: List[Tuple[str, List[str]]] = [
    ("lint", []),
    ("tests-3.11", ["--slow"]),  # the 4 GiB messages, once
    ("tests-3.13", []),
    (f"tests-{PYPY}", []),
    ("dropin-3.9", []),
    ("dropin-3.10", []),
    ("dropin-3.12", []),
    ("cross", []),
    ("sanitize", []),
    ("tsan", []),
    ("fuzz", []),
    ("engines", []),
]


@nox.session(python=False)
def ci(session: nox.Session) -> None:
    """Everything CI runs, in turn (see CI_SESSIONS)."""
    for name, posargs in CI_SESSIONS:
        session.notify(name, posargs)


def _tool(name: str) -> Any:
    """A module of tools/ (stdlib-only scripts), loaded by path."""
    tools = str(Path(__file__).resolve().parent / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)  # tools/freethreaded.py imports its sibling trixie.py
    return importlib.import_module(name)


@nox.session(python=False)
def freethreaded(session: nox.Session) -> None:
    """The study's build and the whole suite on a free-threaded CPython 3.13 (3.13t).

    The interpreter is found on PATH or in /var/cache/variants, or built there
    from Debian 13's python3.13 source (tools/freethreaded.py: minutes, once
    per machine). Options after -- go to pytest.
    """
    python = str(_tool("freethreaded").find_or_build(log=session.log))
    venv = Path(session.create_tmp()).resolve() / "venv-3.13t"
    if not (venv / "bin" / "python").exists():
        session.run(python, "-m", "venv", str(venv), external=True)
    bin_python = str(venv / "bin" / "python")
    pip = [bin_python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # hypothesis has no wheel for 3.13t after 6.155.7 and its source needs Rust crates
    test_tools = ["pytest", "hypothesis", "pyperf", "mypy_extensions"]
    session.run(*pip, "--only-binary", "hypothesis", *test_tools, external=True)
    session.run(*pip, "--force-reinstall", "--no-deps", ".[study]", env=STUDY_BUILD, external=True)
    session.chdir("tests")
    env = {"PYTHONDONTWRITEBYTECODE": "1"}
    session.run(bin_python, "-m", "pytest", *session.posargs, env=env, external=True)


#: The tests that run against the sanitized builds: both native bridges' cases.
NATIVE_TESTS = [
    "test_native.py",
    "test_many.py",
    "test_agreement.py",
    "test_vectors.py",
    "test_behaviour.py",
    "test_column.py",
]


@nox.session(python="3.11")
def sanitize(session: nox.Session) -> None:
    """The native variants (both bridges) with AddressSanitizer and UBSan, against hashlib.

    PYTHONMALLOC=malloc puts every Python object in memory ASan watches, so an
    overrun of a small one (a digest's bytes) is caught too. Leak detection is
    off: the interpreter keeps memory at exit (test_native checks leaks itself).
    """
    options = {
        "PYTHONMALLOC": "malloc",
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }
    env = _sanitized(session, "address", options)
    pytest = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-k", "native", *NATIVE_TESTS]
    session.run(*pytest, *session.posargs, env=env)
    session.run(*pytest, *session.posargs, env={**env, "VARIANTS_NATIVE_PORTABLE": "1"})


@nox.session(python="3.11")
def tsan(session: nox.Session) -> None:
    """The native variants with ThreadSanitizer, under the tests that race threads.

    CPython 3.11 takes its GIL and PyThread locks through pthreads, which TSan
    sees; -s shows a report before TSan ends the process.
    """
    env = _sanitized(session, "thread", {"TSAN_OPTIONS": "halt_on_error=1"})
    races = "native and (thread or race or concurrent)"
    pytest = ["python", "-m", "pytest", "-s", "-p", "no:cacheprovider", "-k", races, *NATIVE_TESTS]
    session.run(*pytest, *session.posargs, env=env)


@nox.session(python=False)
def fuzz(session: nox.Session) -> None:
    """The native state machine and kernels under libFuzzer against OpenSSL, for 60 s
    (tests/fuzz/fuzz.py; ``-- --seconds N`` for longer)."""
    session.run(sys.executable, "tests/fuzz/fuzz.py", *session.posargs, external=True)


# --- columns in the engines: nox -s engines (CI), nox -s peers (the benchmark, by hand) ---

#: The engines of the README's Columns recipes (tests/test_engines.py): not in the other
#: test environments (Dask alone brings a dozen packages).
ENGINES = ["duckdb", "polars", "pandas>=3", "pyarrow", "dask[distributed]"]
#: The peers of bench/peers.py; chdb unpacks to about 530 MB, so it lives here only.
PEERS = ["duckdb", "polars", "polars-hash", "pyarrow", "chdb"]
ENGINES_PYTHON = "3.11"


@nox.session(python=ENGINES_PYTHON)
def engines(session: nox.Session) -> None:
    """digest_column inside DuckDB, Polars, pandas 3 and Dask's distributed scheduler
    (tests/test_engines.py, a missing engine a failure), and the peer benchmark on a tiny
    column, against the default build."""
    session.install(".[test]", *ENGINES, env=DEFAULT_BUILD)
    session.chdir("tests")
    env = {"PYTHONDONTWRITEBYTECODE": "1", "VARIANTS_REQUIRE_ENGINES": "1"}
    session.run("python", "-m", "pytest", "test_engines.py", *session.posargs, env=env)


@nox.session(python=ENGINES_PYTHON, reuse_venv=True)
def peers(session: nox.Session) -> None:
    """digest_column against DuckDB, polars-hash and chdb, one process per thread setting
    (python -m bench.peers --write: results/peers/<date-time>/ and the README's table);
    options after -- go to it (--rows, --rounds, --only, --report)."""
    session.install(".", *PEERS, env=DEFAULT_BUILD)
    session.run("python", "-m", "bench.peers", "--require-all", "--write", *session.posargs)


# --- the study: nox -s bench, memory, bytecode ------------------------------------------
#
# Each interpreter gets one environment, ``bench_env-<version>`` (the package
# installed from this tree with the study's build, and pyperf), reused between
# runs and reinstalled only when the sources change. ``bench``, ``memory`` and
# ``bytecode`` queue those, then a session that drives them all: the study
# interleaves interpreters, so no single nox session can hold it. The
# free-threaded CPython 3.13 ("3.13t") joins when it is present (it is never
# built here: ``tools/freethreaded.py`` does that); its environment is made by
# ``bench_env_ft`` with that interpreter's own venv module.

STUDY_PYTHON = "3.12"  # runs the study's driver and report (pyperf, matplotlib)
MEMORY_PYTHON = "3.11"  # memray's interpreter: the fastest CPython here for pure Python
FREE_THREADED = "3.13t"
ENVS = Path("results") / "envs"
_STAMP = ".variants-source-digest"
#: The JSON file the build writes its times to (setup.py's BuildExt reads the variable).
_BUILD_TIMES = ".variants-build-times.json"
_BUILD_TIMES_ENV = "VARIANTS_BUILD_TIMES"


def _free_threaded_python() -> Optional[str]:
    """The free-threaded CPython 3.13 if it is present (never built here), else None.

    ``tools/freethreaded.py --check`` prints its path or fails; without that
    tool, ``python3.13t`` on PATH.
    """
    tool = Path("tools") / "freethreaded.py"
    if tool.exists():
        done = subprocess.run(
            [sys.executable, str(tool), "--check"], capture_output=True, text=True
        )
        lines = done.stdout.strip().splitlines()
        return lines[-1].strip() if done.returncode == 0 and lines else None
    return shutil.which("python3.13t")


def _interpreter_available(label: str) -> bool:
    if label == FREE_THREADED:
        return _free_threaded_python() is not None
    name = label if label.startswith("pypy") else f"python{label}"
    path = shutil.which(name)
    return bool(path) and subprocess.run([str(path), "-c", ""], capture_output=True).returncode == 0


def _take_option(args: List[str], name: str) -> Tuple[List[str], Optional[str]]:
    """``args`` without ``name VALUE`` (or ``name=VALUE``), and that value."""
    rest: List[str] = []
    value: Optional[str] = None
    it = iter(args)
    for arg in it:
        if arg == name:
            value = next(it, None)
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return rest, value


#: The study's interpreters: CPython 3.10 on (3.9 has no mypyc, so half the twins), PyPy,
#: and the free-threaded 3.13 where it is present.
STUDY_INTERPRETERS = [*STUDY_ENVS, FREE_THREADED]


def _study_interpreters(session: nox.Session, default: List[str]) -> Tuple[List[str], List[str]]:
    """(posargs without --interpreters, the interpreters to use: asked for, or available)."""
    rest, chosen = _take_option(list(session.posargs), "--interpreters")
    if chosen:
        labels = [label.strip() for label in chosen.split(",") if label.strip()]
        unknown = [label for label in labels if label not in STUDY_INTERPRETERS]
        if unknown:
            known = ", ".join(STUDY_INTERPRETERS)
            session.error(f"unknown interpreters {unknown}; known: {known}")
        return rest, labels
    labels = [label for label in default if _interpreter_available(label)]
    missing = [label for label in default if label not in labels]
    for label in missing:
        why = (
            "no free-threaded CPython 3.13 here (`python3 tools/freethreaded.py` builds one)"
            if label == FREE_THREADED
            else "interpreter not found"
        )
        session.warn(f"{label} left out: {why}")
    if not labels:
        session.error("no interpreter found")
    return rest, labels


#: What ``pip install .`` builds from: the environments are reinstalled when it changes.
_BUILD_INPUTS = (
    "variants",
    "build_support",
    "tools",  # the generator renders the annotated twins' sources during the build
    "setup.py",
    "pyproject.toml",
    "MANIFEST.in",
    "README.md",
)


def _project_files() -> List[Path]:
    """The project's files: tracked or new, not ignored (build output, results, caches)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        files = [Path(name) for name in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        skip = {".git", ".nox", "build", "results", "__pycache__"}
        files = [p for p in Path().rglob("*") if not skip.intersection(p.parts)]
    return sorted(p for p in files if p.is_file())


def _keep_envs(args: List[str]) -> Tuple[List[str], List[str]]:
    """``--keep-envs``: use the environments as installed, even if the tree changed since."""
    rest = [arg for arg in args if arg != "--keep-envs"]
    return rest, ["--keep-envs"] if len(rest) < len(args) else []


#: The README's section that ``nox -s bench`` regenerates (bench/docs.py).
_GENERATED = re.compile(rb"<!-- results:start -->.*?<!-- results:end -->", re.S)


def _source_digest(files: List[Path]) -> str:
    """A digest of the build inputs among ``files``.

    Not of the README's generated results section: each study run rewrites it,
    and it would otherwise make the next run reinstall every environment.
    """
    digest = hashlib.sha256()
    for path in files:
        if path.parts[0] in _BUILD_INPUTS and "__pycache__" not in path.parts:
            content = path.read_bytes()
            if path.name == "README.md":
                content = _GENERATED.sub(b"", content)
            digest.update(str(path).encode() + b"\0" + content)
    return digest.hexdigest()


def _installed(labels: List[str], session: nox.Session) -> List[str]:
    """The interpreters among ``labels`` whose environment is ready (others: warned, left out)."""
    ready = [label for label in labels if (ENVS / f"{label}.json").exists()]
    for label in labels:
        if label not in ready:
            session.warn(f"{label} left out: its environment failed to install (bench_env-{label})")
    if not ready:
        session.error("no environment is ready")
    return ready


def _env_python(session: nox.Session, label: str) -> str:
    record = ENVS / f"{label}.json"
    if not record.exists():
        session.error(f"no environment recorded for {label}: run nox -s bench_env-{label}")
    return str(json.loads(record.read_text())["python"])


def _install_study_env(session: nox.Session, label: str, venv: Path, python: List[str]) -> None:
    """Install this tree (the study's build) and pyperf into ``venv``; record it in ENVS.

    ``python`` runs the venv's interpreter. The build writes how long each
    extension took to a JSON file (setup.py's BuildExt), which the record keeps.
    """
    started = time.perf_counter()
    (ENVS / f"{label}.json").unlink(missing_ok=True)  # written back once installed
    stamp = venv / _STAMP
    times = venv / _BUILD_TIMES
    files = _project_files()
    digest = _source_digest(files)
    keep = "--keep-envs" in session.posargs and stamp.exists()
    reinstalled = not keep and (not stamp.exists() or stamp.read_text() != digest)
    if keep and stamp.read_text() != digest:
        session.warn("--keep-envs: the package installed here is older than this tree")
    if reinstalled:
        session.log("installing this tree: compiling the compiled variants takes minutes")
        # From a copy of the project's files only (git's list): nothing built or
        # cached in the checkout (build/, egg-info, __pycache__) reaches the build.
        copy = Path(session.create_tmp()).resolve() / f"source-{label}"
        shutil.rmtree(copy, ignore_errors=True)
        for path in files:
            (copy / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy / path)
        times.unlink(missing_ok=True)
        env = {**STUDY_BUILD, _BUILD_TIMES_ENV: str(times.resolve())}
        # The [study] extra asks for cffi on every CPython, and cffi does not
        # build on the free-threaded 3.13 (whose build leaves native-cffi out):
        # there, its other requirement alone.
        extra = ["mypy_extensions", str(copy)] if label == FREE_THREADED else [f"{copy}[study]"]
        pip = [*python, "-m", "pip", "install", "-q", "pyperf", *extra]
        session.run(*pip, env=env, external=True)
        stamp.write_text(digest)
    else:
        session.log("package up to date in this environment: not reinstalled")
    ENVS.mkdir(parents=True, exist_ok=True)
    record = {
        "python": python[0],
        "reinstalled": reinstalled,
        "install_seconds": round(time.perf_counter() - started, 1),
        # of the build that installed the package, now or in an earlier run
        "build": json.loads(times.read_text()) if times.exists() else None,
    }
    (ENVS / f"{label}.json").write_text(json.dumps(record))


@nox.session(python=STUDY_ENVS, reuse_venv=True)
def bench_env(session: nox.Session) -> None:
    """(Run by bench, memory, bytecode.) The package and pyperf in a reused environment."""
    assert isinstance(session.python, str)
    venv = Path(session.virtualenv.location)
    _install_study_env(session, session.python, venv, [str(Path(session.bin) / "python")])


@nox.session(python=False)
def bench_env_ft(session: nox.Session) -> None:
    """(Run by bench when present.) The free-threaded 3.13's environment.

    Made with that interpreter's own venv module under .nox/bench_env_ft: nox
    finds interpreters by name, and it is not on PATH.
    """
    base = _free_threaded_python()
    if base is None:
        session.error("no free-threaded CPython 3.13 (python3 tools/freethreaded.py builds one)")
    venv = (Path(".nox") / "bench_env_ft").absolute()
    python = venv / "bin" / "python"  # not resolved: the link is what makes it the venv's
    if not python.exists():
        session.run(base, "-m", "venv", str(venv), external=True)
    _install_study_env(session, FREE_THREADED, venv, [str(python)])


def _queue_study(session: nox.Session, driver: str, default: List[str]) -> None:
    """Queue each chosen interpreter's environment, then ``driver`` with the options."""
    rest, labels = _study_interpreters(session, default)
    rest, keep = _keep_envs(rest)
    for label in labels:
        env_session = "bench_env_ft" if label == FREE_THREADED else f"bench_env-{label}"
        session.notify(env_session, keep)
    session.notify(driver, [*rest, "--interpreters", ",".join(labels)])


def _pythons(session: nox.Session, chosen: Optional[str]) -> List[str]:
    """``--python LABEL=PATH`` for every chosen interpreter whose environment is ready."""
    labels = _installed((chosen or ",".join(STUDY_INTERPRETERS)).split(","), session)
    return [f"--python={label}={_env_python(session, label)}" for label in labels]


@nox.session(python=False)
def bench(session: nox.Session) -> None:
    """The interpreter-overhead study (python -m bench.study); options after --."""
    _queue_study(session, "bench_study", STUDY_INTERPRETERS)


@nox.session(python=STUDY_PYTHON, reuse_venv=True)
def bench_study(session: nox.Session) -> None:
    """(Run by bench.) Measure on every environment, interleaved; report, plots, docs."""
    session.install("pyperf", "matplotlib")
    rest, chosen = _take_option(list(session.posargs), "--interpreters")
    session.run("python", "-m", "bench.study", *_pythons(session, chosen), *rest)
    # The README's headline section and docs/study.md, from the newest runs (JSON).
    session.run("python", "-m", "bench.docs", "--write")


@nox.session(python=False)
def memory(session: nox.Session) -> None:
    """memray: peak memory and allocations of every variant (python -m bench.memory)."""
    rest, label = _take_option(list(session.posargs), "--interpreter")
    label = label or MEMORY_PYTHON
    if label not in CPYTHONS:
        session.error("memray runs on CPython only (it has no PyPy build)")
    rest, keep = _keep_envs(rest)
    session.notify(f"bench_env-{label}", keep)
    session.notify("memory_study", [*rest, "--interpreter", label])


@nox.session(python=False)
def memory_study(session: nox.Session) -> None:
    """(Run by memory.) memray in the environment if needed; bench.memory drives it."""
    rest, label = _take_option(list(session.posargs), "--interpreter")
    python = _env_python(session, label or MEMORY_PYTHON)
    if subprocess.run([python, "-c", "import memray"], capture_output=True).returncode:
        session.run(python, "-m", "pip", "install", "-q", "memray", external=True)
    session.run(sys.executable, "-m", "bench.memory", "--python", python, *rest, external=True)


@nox.session(python=False)
def bytecode(session: nox.Session) -> None:
    """Bytecode and machine instructions per block, per interpreter (python -m bench.bytecode)."""
    _queue_study(session, "bytecode_study", STUDY_INTERPRETERS)


@nox.session(python=False)
def bytecode_study(session: nox.Session) -> None:
    """(Run by bytecode.) Count and time under each interpreter; one JSON and report."""
    rest, chosen = _take_option(list(session.posargs), "--interpreters")
    pythons = _pythons(session, chosen)
    session.run(sys.executable, "-m", "bench.bytecode", *pythons, *rest, external=True)
