"""The wheels: the sdist, then a wheel per interpreter built from it, repaired and tagged by
auditwheel, installed where no compiler is and checked (``nox -s wheels``).

    python tools/wheels.py --out dist                 # every interpreter found here
    python tools/wheels.py --out dist --only 3.12,pypy3

The sdist is built in an isolated build (``python -m build --sdist``) and every wheel from the
sdist alone (``pip wheel SDIST``, isolated: setuptools fetched into a fresh environment), the
default build (``VARIANTS_BUILD=default``) with ``VARIANTS_REQUIRE_ALL=1``, so that a kernel
that fails to compile fails the wheel instead of leaving the native variant out.

**The tag.** A wheel compiled on this Debian 12 asks for glibc 2.34 (auditwheel: ``pthread``'s
symbols moved into libc then, ``stat``'s in 2.33), hence ``manylinux_2_34``. The extensions are
compiled instead by the GCC and against the glibc of the oldest Debian tree that the archive
this machine reaches still serves, bullseye (GCC 10, glibc 2.31; buster's 2.28 has moved to
archive.debian.org, which it cannot reach), made by ``tools/debian.py``: the compiler the build
is given (``CC``) is a script, written here, that runs the tree's ``gcc`` through a nestable
copy of the tree's entry script (the interpreters of the sid tree build inside that tree and
enter bullseye from there), with the interpreter's headers copied to where the tree sees them.
The interpreters and their headers stay their own, as in the manylinux images. Each wheel is
then tagged with the lowest tag ``auditwheel show`` finds its symbols consistent with, and
``auditwheel repair`` checks it against that policy.

**The check.** A fresh virtual environment of the same interpreter, the wheel installed with
``--no-index`` (nothing can be built), pytest and hypothesis from wheels, ``PATH`` holding only
the environment's ``bin``, then ``tools/check_wheel.py --no-compiler``: no C compiler on PATH,
the drop-in is the native variant, ``variants.native.describe()`` (the kernels chosen), and
the suite's quick part. A summary per wheel (tag, size, result, seconds) ends the run and
``wheels.json`` in the output folder keeps it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # last: the checkout's unbuilt variants/ must not shadow any

from bench.catalog import modes  # noqa: E402
from bench.conduct import envs  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
import debian  # noqa: E402

#: The Debian tree whose compiler and C library build the extensions (the oldest one served).
TREE = "bullseye"
#: Installed beside the wheel for the check, from wheels only (PyPy 7.3 as the test extra says).
CHECK_REQUIREMENTS = ("pytest>=7", "hypothesis>=6")
PYPY_HYPOTHESIS = "hypothesis>=6,<=6.155.7"
#: The check (also cibuildwheel's test command), run in the wheel's environment.
CHECK = ROOT / "tools" / "check_wheel.py"

#: The compiler the wheels' builds are given: the tree's gcc, each of the interpreter's include
#: folders named in $VARIANTS_WHEEL_INCLUDES (colon-separated) replaced by its copy under
#: $VARIANTS_WHEEL_STAGE (the tree has its own /usr, so /usr/include/python3.14 is not bound).
CC_SCRIPT = r"""#!/bin/sh
# Written by tools/wheels.py: gcc of the Debian {suite} tree, for the wheels' builds.
for arg; do
    shift
    new=$arg
    case "$arg" in
        -I/*)
            IFS=:
            for dir in ${{VARIANTS_WHEEL_INCLUDES:-}}; do
                [ "$arg" = "-I$dir" ] && new="-I${{VARIANTS_WHEEL_STAGE}}$dir"
            done
            unset IFS
            ;;
    esac
    set -- "$@" "$new"
done
exec /bin/sh {entry} gcc "$@"
"""

#: Prints the interpreter's include folders, one a line.
INCLUDES = (
    "import sysconfig as s; print(*sorted({s.get_path('include'), s.get_path('platinclude')}))"
)


def lowest_tag(shown: str) -> str:
    """The platform tag ``auditwheel show`` says a wheel is consistent with (the lowest its
    symbols allow), e.g. "manylinux_2_17_x86_64"; ValueError if it names none."""
    found = re.search(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"(\w+)"', shown)
    if not found:
        raise ValueError(f"auditwheel show names no platform tag: {shown.strip()[-300:]!r}")
    return found[1]


def cc_script(entry: Path, suite: str = TREE) -> str:
    """The text of the compiler script that runs the tree's gcc through ``entry``."""
    return CC_SCRIPT.format(entry=shlex.quote(str(entry)), suite=suite)


def labels() -> List[str]:
    """The interpreters a wheel is built for: every CPython and PyPy of the table."""
    return [r.label for r in modes.INTERPRETERS if r.implementation in ("cpython", "pypy")]


def host_path(label: str, path: str) -> Path:
    """Where the host sees ``path`` of interpreter ``label`` (inside its Debian tree, if any)."""
    where = modes.interpreter(label).where
    return Path(path) if where in modes.HOST_PLACES else modes.tree_path(where) / path.lstrip("/")


@dataclass
class Result:
    """One interpreter's wheel: its file, tag, size, the check's result and its times."""

    label: str
    wheel: str = ""
    tag: str = ""
    size: int = 0
    outcome: str = ""  # "ok", or why not
    kernels: str = ""  # variants.native.describe() in the check
    tests: str = ""  # pytest's last line
    seconds: float = 0.0


class Builder:
    """The run's shared state: the output and work folders, the sdist, the compiler script."""

    def __init__(self, out: Path, work: Path, log: debian.Log) -> None:
        self.out, self.work, self.log = out, work, log
        self.sdist = Path()
        self.glibc = ""  # of the tree that compiles the extensions
        self.cc = work / "cc"
        self.stage = work / "headers"

    def run(
        self, argv: Sequence[str], env: Mapping[str, str], output: Path, cwd: Optional[Path] = None
    ) -> str:
        """Run ``argv`` with ``env`` added, its output added to the log ``output``; the
        output's text, or RuntimeError with its last lines."""
        started = time.monotonic()
        done = subprocess.run(
            list(argv),
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            text=True,
            errors="replace",
        )
        with output.open("a") as log:
            log.write(f"$ {shlex.join(argv)}\n{done.stdout}({time.monotonic() - started:.1f} s)\n")
        if done.returncode:
            tail = "\n".join(done.stdout.splitlines()[-25:])
            raise RuntimeError(f"{shlex.join(argv)[:200]} exited {done.returncode}:\n{tail}")
        return done.stdout

    def prepare(self) -> None:
        """The sdist, the tree, the tag and the compiler script."""
        self.out.mkdir(parents=True, exist_ok=True)
        for old in self.out.glob("*"):
            if old.suffix in (".whl", ".gz", ".json"):
                old.unlink()
        self.log("the sdist, in an isolated build")
        build = [sys.executable, "-m", "build", "--sdist", "--outdir", str(self.out), str(ROOT)]
        self.run(build, {}, self.work / "sdist.log")
        (self.sdist,) = self.out.glob("*.tar.gz")
        tree = debian.ensure_tree(TREE, self.log)
        entry = self.work / f"enter-{TREE}"
        entry.write_text(debian.entry_text(tree, TREE, nestable=True))
        self.glibc = subprocess.run(
            ["/bin/sh", str(entry), "getconf", "GNU_LIBC_VERSION"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        shutil.rmtree(self.stage, ignore_errors=True)  # headers of an earlier run
        self.cc.write_text(cc_script(entry))
        self.cc.chmod(0o755)
        self.log(f"the extensions are compiled in the {TREE} tree ({self.glibc})")

    def one(self, label: str) -> Result:
        """Build, repair and check the wheel of interpreter ``label``."""
        result = Result(label)
        started = time.monotonic()
        argv, why = modes.find(label)
        if argv is None:
            result.outcome = f"not here: {why}"
            return result
        folder = self.work / label
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        log = folder / "log.txt"
        try:
            self._build(label, folder, log, result)
            self._check(label, folder, log, result)
            result.outcome = "ok"
        except (RuntimeError, OSError, ValueError, subprocess.CalledProcessError) as error:
            result.outcome = f"FAILED ({log}): {error}"
        result.seconds = round(time.monotonic() - started, 1)
        self.log(f"{label}: {result.outcome.splitlines()[0]} ({result.seconds} s)")
        return result

    def _build(self, label: str, folder: Path, log: Path, result: Result) -> None:
        # the build's own environment is pip's and kept (the build itself is isolated)
        python, binds = envs.venv(label, self.work / "pip" / label, self.log)
        includes = self.run([*python, "-c", INCLUDES], binds, folder / "includes.txt").split()
        for include in includes:
            copy = self.stage / include.lstrip("/")
            if not copy.exists():
                shutil.copytree(host_path(label, include), copy, dirs_exist_ok=True)
                # Debian's pyconfig.h includes <x86_64-linux-gnu/python3.14/pyconfig.h>: found
                # through the same -I when that folder is copied below it
                system = host_path(label, "/usr/include")
                for arch in system.glob(f"*-linux-*/{Path(include).name}"):
                    shutil.copytree(arch, copy / arch.relative_to(system), dirs_exist_ok=True)
        env = {
            **binds,
            "CC": str(self.cc),
            "VARIANTS_WHEEL_INCLUDES": ":".join(includes),
            "VARIANTS_WHEEL_STAGE": str(self.stage),
            "VARIANTS_BUILD": "default",
            "VARIANTS_REQUIRE_ALL": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        if modes.interpreter(label).where not in modes.HOST_PLACES:  # bullseye seen from sid
            bound = [binds.get(modes.BINDS_ENV, ""), str(modes.tree_path(TREE)), str(self.work)]
            env[modes.BINDS_ENV] = ":".join(b for b in bound if b)
        raw = folder / "raw"
        self.run(
            [*python, "-m", "pip", "wheel", "--no-deps", "-w", str(raw), str(self.sdist)], env, log
        )
        (built,) = raw.glob("*.whl")
        auditwheel = [sys.executable, "-m", "auditwheel"]
        result.tag = lowest_tag(self.run([*auditwheel, "show", str(built)], {}, log))
        repair = [*auditwheel, "repair", "--plat", result.tag, "-w", str(self.out), str(built)]
        self.run(repair, {}, log)
        name = built.name.rsplit("-", 1)[0]  # less the platform tag, which repair replaces
        (wheel,) = self.out.glob(f"{name}-*.whl")
        result.wheel, result.size = wheel.name, wheel.stat().st_size

    def _check(self, label: str, folder: Path, log: Path, result: Result) -> None:
        """A fresh environment without pip (the kept one's pip installs into it: --python)."""
        fresh = folder / "check"
        pips = self.work / "pip" / label
        binds = modes.binds(label, str(fresh), str(pips))
        self.run([*envs.ensure(label), "-m", "venv", "--without-pip", str(fresh)], binds, log)
        # PATH only the environment's bin, set inside a Debian tree (its entry script needs
        # the host's PATH to enter)
        bare = [*modes.launcher(modes.interpreter(label)), "/usr/bin/env", f"PATH={fresh / 'bin'}"]
        python = [*bare, str(fresh / "bin" / "python")]
        wanted = list(CHECK_REQUIREMENTS)
        if label == "pypy3":  # PyPy 7.3: the test extra's pin
            wanted[1] = PYPY_HYPOTHESIS
        env = {**binds, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        pip = [*bare, str(pips / "bin" / "python"), "-m", "pip", "--python", python[-1]]
        pip += ["install", "-q"]
        self.run([*pip, "--only-binary", ":all:", *wanted], env, log)
        self.run([*pip, "--no-index", "--no-deps", str(self.out / result.wheel)], env, log)
        check = [*python, str(CHECK), str(ROOT / "tests"), "--no-compiler"]
        said = self.run(check, env, folder / "check.txt").strip().splitlines()
        result.kernels, result.tests = said[0], said[-1]


def summary(results: Sequence[Result], glibc: str, seconds: float) -> str:
    """The run's table: a line per interpreter."""
    lines = [f"wheels compiled against {glibc} ({TREE}), in {seconds:.0f} s:"]
    for r in results:
        if r.wheel:
            lines.append(
                f"  {r.label:7s} {r.wheel} ({r.size / 1024:.0f} KiB, {r.tag}): {r.outcome}"
            )
            lines.append(f"          {r.kernels}; {r.tests}")
        else:
            lines.append(f"  {r.label:7s} {r.outcome}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="the wheels' folder")
    parser.add_argument("--work", type=Path, help="the builds' folder (default: a temporary one)")
    parser.add_argument("--only", help="interpreter labels, comma-separated (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="interpreters at once (default 2)")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else labels()
    started = time.monotonic()
    work = args.work or Path(tempfile.mkdtemp(prefix="variants-wheels-"))
    work.mkdir(parents=True, exist_ok=True)
    builder = Builder(args.out.absolute(), work.absolute(), debian.log_stderr)
    builder.prepare()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(builder.one, chosen))
    seconds = time.monotonic() - started
    report = {
        "glibc": builder.glibc,
        "seconds": round(seconds),
        "wheels": [asdict(r) for r in results],
    }
    (builder.out / "wheels.json").write_text(json.dumps(report, indent=1) + "\n")
    print(summary(results, builder.glibc, seconds))
    built = [r for r in results if not r.outcome.startswith("not here")]
    return 0 if built and all(r.outcome == "ok" for r in built) else 1


if __name__ == "__main__":
    sys.exit(main())
