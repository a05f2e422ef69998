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

**aarch64.** A wheel per interpreter of ``ARM64``: Debian's arm64 builds of CPython 3.9,
3.11, 3.13, 3.14, 3.15, PyPy 7.3 and 8, each in an arm64 Debian tree (``tools/debian.py ensure
bookworm-arm64``: made once, run under qemu-user through binfmt_misc). pip runs there, under
emulation; the C is crossed, by bullseye's ``aarch64-linux-gnu-gcc`` (GCC 10, the arm64
glibc 2.31 of ``libc6-dev-arm64-cross`` as its sysroot) through the same kind of script,
entered from inside the arm64 tree. aarch64's glibc began at 2.17, so ``manylinux_2_17`` is
the lowest tag there is for it. The check runs under qemu's ``-cpu max`` (``QEMU_CPU``: SHA1,
SHA2 and SHA512; ``debian.EMULATED_CPU``, its pointer authentication made cheap) with
``--kernels`` (every kernel forced and checked against hashlib) and ``--expect`` (the kernels
dispatch must choose, ``CPUS``), then twice more without the quick tests: on ``cortex-a53`` (no
SHA512 extension) and on ``cortex-a53`` with the crypto extension's bits masked out of
``AT_HWCAP`` (``MASK_C``, preloaded: no qemu 7.2 model lacks SHA1 and SHA2), where dispatch
must fall back to NEON and portable kernels.

**The check.** A fresh virtual environment of the same interpreter, the wheel installed with
``--no-index`` (nothing can be built), pytest and hypothesis from wheels (for aarch64 those
of a kept folder per interpreter, ``CHECK_TOOLS``, on its path), ``PATH`` holding only
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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

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

#: The aarch64 wheels' interpreters, labelled "3.11-aarch64": the arm64 Debian tree each lives
#: in (tools/debian.py) and its program there.
ARM64: Dict[str, Tuple[str, str]] = {
    "3.9": ("bullseye-arm64", "python3.9"),
    "3.11": ("bookworm-arm64", "python3.11"),
    "pypy3": ("bookworm-arm64", "pypy3"),  # PyPy 7.3.11 (Python 3.9)
    "3.13": ("trixie-arm64", "python3.13"),
    "3.14": ("sid-arm64", "python3.14"),
    "3.15": ("sid-arm64", "python3.15"),
    "pypy8": ("sid-arm64", "pypy3"),  # PyPy 8 (Python 3.11)
}
AARCH64 = "-aarch64"
#: pip under emulation: no version check, no byte-compiling what it installs (pip itself in
#: ensurepip, setuptools in each isolated build: minutes under qemu; imports compile what they
#: use). ``PIP_COMPILE=0``, not ``PIP_NO_COMPILE=1``: pip reads a boolean from the environment
#: into its option's destination as it is, so PIP_NO_COMPILE=1 sets ``compile`` true.
EMULATED_PIP = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_COMPILE": "0"}
#: Beside each aarch64 interpreter's kept pip environment: pytest and hypothesis, installed
#: there once (byte-compiled) and put on the check's fresh environment's path by a .pth file,
#: not installed into each fresh environment (3 to 4 minutes a wheel under qemu).
CHECK_TOOLS = "-check-tools"
#: The cross compiler (in the bullseye tree) that compiles the aarch64 wheels' C.
CROSS_GCC = "aarch64-linux-gnu-gcc"

#: What dispatch must choose (check_wheel.py --expect) on each qemu CPU model an aarch64 wheel
#: is checked on (QEMU_CPU), as tests/cross/run.py's runs of the C driver say: "max" has SHA1,
#: SHA2 and SHA512, the Cortex-A53 model SHA1 and SHA2 only; "cortex-a53" with MASK_C
#: preloaded none of them (the A53's crypto extension is optional: a Raspberry Pi 3 or 4 has
#: none), so that dispatch falls back to the NEON lanes and the portable kernels.
LANELESS = ",sha1-many=portable,sha512-many=portable"  # no AArch64 lanes for these cores
MAX = "md5=arm64,sha256=sha2,md5-many=neon-x8,sha256-many=sha2-x2,sha1=sha1,sha512=sha512"
MAX += LANELESS
A53 = MAX.replace("sha512=sha512", "sha512=portable")
NO_CRYPTO = "md5=arm64,sha256=portable,md5-many=neon-x8,sha256-many=portable,sha1=portable"
NO_CRYPTO += ",sha512=portable" + LANELESS
#: (QEMU_CPU, the crypto bits masked, what dispatch must choose, whether the quick tests run)
CPUS: Tuple[Tuple[str, bool, str, bool], ...] = (
    (debian.EMULATED_CPU, False, MAX, True),  # "max", its pointer authentication cheap
    ("cortex-a53", False, A53, False),
    ("cortex-a53", True, NO_CRYPTO, False),
)

#: Preloaded, a CPU without the crypto extension as the kernels' dispatch sees it (cpu.c reads
#: getauxval(AT_HWCAP)): AES, PMULL, SHA1, SHA2, SHA3, SM3, SM4 and SHA512 cleared.
MASK_C = r"""/* Written by tools/wheels.py: AT_HWCAP without the crypto extension's bits. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/auxv.h>

unsigned long getauxval(unsigned long type) {
    unsigned long (*real)(unsigned long) =
        (unsigned long (*)(unsigned long))dlsym(RTLD_NEXT, "getauxval");
    unsigned long value = real(type);
    if (type == AT_HWCAP)
        value &= ~((1UL << 3) | (1UL << 4) | (1UL << 5) | (1UL << 6) | (7UL << 17) | (1UL << 21));
    return value;
}
"""

#: The compiler the wheels' builds are given: the tree's gcc, each of the interpreter's include
#: folders named in $VARIANTS_WHEEL_INCLUDES (colon-separated) replaced by its copy under
#: $VARIANTS_WHEEL_STAGE (the tree has its own /usr, so /usr/include/python3.14 is not bound).
CC_SCRIPT = r"""#!/bin/sh
# Written by tools/wheels.py: {compiler} of the Debian {suite} tree, for the wheels' builds.
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
exec {launch} "$@"
"""
#: How CC_SCRIPT starts the compiler: through the tree's entry script (a namespace and its
#: mounts per call), or, for the aarch64 builds, by chroot alone into the tree, whose mounts
#: the build made once (``BIND_TREE``): each of an entry's dozen programs costs a start under
#: emulation there, for each of the build's hundred calls.
THROUGH_ENTRY = "/bin/sh {entry} {compiler}"
BY_CHROOT = '/usr/sbin/chroot {tree} /bin/sh -c \'cd "$0" && exec "$@"\' "$PWD" {compiler}'

#: Run inside an arm64 tree (its entry's private mount namespace) before the build: the folders
#: the cross compiler reads and writes bound into the bullseye tree (seen at the same path),
#: for as long as the build runs; then the build's command.
BIND_TREE = r"""set -e
tree=$1
shift
for dir in /proc /dev /tmp /var/tmp "$VARIANTS_WHEEL_WORK"; do
    mkdir -p "$tree$dir"
    mount --rbind "$dir" "$tree$dir"
done
exec "$@"
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


def repaired(out: Path, built: Path, arch: str) -> Path:
    """The wheel ``auditwheel repair`` wrote into ``out`` from ``built`` (a wheel of ``arch``,
    "x86_64" or "aarch64"): the same name less its platform tag, which repair replaces, and a
    tag of ``arch`` (both architectures' wheels of one interpreter share the folder and all
    but that tag). ValueError unless exactly one is there."""
    name = built.name.rsplit("-", 1)[0]
    found = sorted(out.glob(f"{name}-*_{arch}.whl"))
    if len(found) != 1:
        listed = ", ".join(p.name for p in found) or "none"
        raise ValueError(f"not one {arch} wheel of {name} in {out} after repair: {listed}")
    return found[0]


def cc_script(
    entry: Path, suite: str = TREE, compiler: str = "gcc", chroot: Optional[Path] = None
) -> str:
    """The text of the compiler script that runs the tree's ``compiler`` through ``entry``,
    or by ``chroot`` into the tree at that path (BY_CHROOT)."""
    if chroot is None:
        launch = THROUGH_ENTRY.format(entry=shlex.quote(str(entry)), compiler=compiler)
    else:
        launch = BY_CHROOT.format(tree=shlex.quote(str(chroot)), compiler=compiler)
    return CC_SCRIPT.format(suite=suite, compiler=compiler, launch=launch)


def labels(arches: Sequence[str] = ("x86_64", "aarch64")) -> List[str]:
    """The interpreters a wheel is built for: for x86-64 every CPython and PyPy of the
    table, for aarch64 those of ``ARM64`` ("3.11-aarch64"); the aarch64 ones first (the
    longest, under emulation)."""
    found = [f"{label}{AARCH64}" for label in ARM64] if "aarch64" in arches else []
    if "x86_64" in arches:
        rows = modes.INTERPRETERS
        found += [r.label for r in rows if r.implementation in ("cpython", "pypy")]
    return found


def arm64(label: str) -> Optional[Tuple[str, str]]:
    """(tree, program) of an aarch64 label ("3.11-aarch64"), None for an x86-64 one;
    KeyError for an aarch64 label ARM64 lacks."""
    if not label.endswith(AARCH64):
        return None
    base = label[: -len(AARCH64)]
    if base not in ARM64:
        raise KeyError(f"no aarch64 interpreter {base!r}; known: {', '.join(ARM64)}")
    return ARM64[base]


def tree_of(label: str) -> Optional[str]:
    """The Debian tree interpreter ``label`` lives in; None for one of the host."""
    found = arm64(label)
    if found:
        return found[0]
    where = modes.interpreter(label).where
    return None if where in modes.HOST_PLACES else where


def host_path(label: str, path: str) -> Path:
    """Where the host sees ``path`` of interpreter ``label`` (inside its Debian tree, if any)."""
    tree = tree_of(label)
    return Path(path) if tree is None else modes.tree_path(tree) / path.lstrip("/")


def launcher(label: str) -> List[str]:
    """What goes before a path of ``label``'s on a command line: its tree's entry script."""
    tree = tree_of(label)
    return [] if tree is None else [str(modes.entry_script(tree))]


def binds(label: str, *places: str) -> Dict[str, str]:
    """The environment that makes ``label``'s tree bind the checkout and ``places``."""
    if arm64(label) is None:
        return modes.binds(label, *places)
    given = os.environ.get(modes.BINDS_ENV)
    bound = [str(modes.CHECKOUT), *places, *([given] if given else [])]
    return {modes.BINDS_ENV: os.pathsep.join(bound)}


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
    ran: str = ""  # aarch64: check_wheel.py --kernels' line under -cpu max
    fallbacks: List[str] = field(default_factory=list)  # aarch64: describe() on the other CPUs

    @property
    def arch(self) -> str:
        return "aarch64" if self.label.endswith(AARCH64) else "x86_64"


class Builder:
    """The run's shared state: the output and work folders, the sdist, the compiler script."""

    def __init__(self, out: Path, work: Path, log: debian.Log) -> None:
        self.out, self.work, self.log = out, work, log
        self.sdist = Path()
        self.glibc = ""  # of the tree that compiles the extensions
        self.cc = work / "cc"
        self.cross_cc = work / "cc-aarch64"
        self.cross_glibc = ""  # of the cross compiler's arm64 sysroot
        self.mask = work / "no-crypto.so"  # MASK_C, for aarch64
        self.stage = work / "headers"
        self.arm_ready = False

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

    def prepare_arm(self, labels: Sequence[str]) -> None:
        """The cross compiler's script and the preloaded mask, for the aarch64 wheels, and the
        arm64 trees of ``labels`` made or brought up to date first (their entry scripts too:
        a kept pip environment's build would otherwise run through an older entry, and its
        CPU, before the check's ``base`` rewrites it)."""
        for tree in sorted({found[0] for found in map(arm64, labels) if found}):
            debian.ensure_tree(tree, self.log)
        entry = self.work / f"enter-{TREE}"
        self.cross_cc.write_text(cc_script(entry, compiler=CROSS_GCC, chroot=modes.tree_path(TREE)))
        self.cross_cc.chmod(0o755)
        query = ["dpkg-query", "-W", "-f=${Version}", "libc6-dev-arm64-cross"]
        version = subprocess.run(
            ["/bin/sh", str(entry), *query], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.cross_glibc = f"glibc {version.split('-')[0]}"
        source = self.work / "no-crypto.c"
        source.write_text(MASK_C)
        compile_mask = ["/bin/sh", str(entry), CROSS_GCC, "-shared", "-fPIC", "-O2"]
        self.run(
            [*compile_mask, "-o", str(self.mask), str(source), "-ldl"], {}, self.work / "mask.log"
        )
        self.log(f"the aarch64 extensions are crossed by {CROSS_GCC} ({self.cross_glibc})")

    def one(self, label: str) -> Result:
        """Build, repair and check the wheel of interpreter ``label``."""
        result = Result(label)
        started = time.monotonic()
        argv, why = (None, "") if arm64(label) else modes.find(label)  # arm64 trees are made
        if arm64(label) is None and argv is None:
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

    def base(self, label: str) -> List[str]:
        """The argv that starts interpreter ``label`` (its tree made first, if need be)."""
        found = arm64(label)
        if found is None:
            return envs.ensure(label, self.log)
        tree, program = found
        debian.ensure_tree(tree, self.log)
        return [*launcher(label), f"/usr/bin/{program}"]

    def stage_of(self, label: str) -> Path:
        """Where interpreter ``label``'s include folders are copied for the compiler script: a
        folder per tree (and one for the host's), since the sid tree's and sid-arm64's
        python3.14 both say /usr/include/python3.14, each holding its own architecture's
        pyconfig.h (the aarch64 wheel's copy had made the x86-64 build look for x86-64's in it)."""
        return self.stage / (tree_of(label) or "host")

    def pip_env(self, label: str) -> Path:
        """Where the kept environment of ``label`` is: the work folder's, or for an aarch64
        interpreter the per-user cache's (``wheels/``: nox makes its session's folder anew
        each run, and making one takes minutes under emulation)."""
        if arm64(label) is None:
            return self.work / "pip" / label
        return Path(envs.build_cache.root()) / "wheels" / label

    def tools_env(self, label: str) -> Path:
        """Where aarch64 interpreter ``label``'s kept ``CHECK_TOOLS`` are: beside its pip
        environment."""
        pips = self.pip_env(label)
        return pips.with_name(pips.name + CHECK_TOOLS)

    def venv(self, label: str, log: Path) -> Tuple[List[str], Dict[str, str]]:
        """The kept environment of ``label`` whose pip builds and installs: (its python's
        argv, the environment that binds it). An aarch64 one gets the latest pip (Debian's
        ensurepip of bullseye has pip 20.3, before ``pip --python``)."""
        folder = self.pip_env(label)
        if arm64(label) is None:
            return envs.venv(label, folder, self.log)
        objects = Path(envs.build_cache.root())  # the build's object cache, as envs binds it
        objects.mkdir(parents=True, exist_ok=True)
        bound = binds(label, str(folder), str(objects))
        python = [*launcher(label), str(folder / "bin" / "python")]
        if not (folder / "pyvenv.cfg").exists():
            folder.mkdir(parents=True, exist_ok=True)  # for the entry script to bind
            try:
                venv = [*self.base(label), "-m", "venv", str(folder)]
                self.run(venv, {**bound, **EMULATED_PIP}, log)  # ensurepip's pip uncompiled
                upgrade = ["-m", "pip", "install", "-q", "--upgrade", "pip"]
                self.run([*python, *upgrade], {**bound, **EMULATED_PIP}, log)
            except RuntimeError:
                shutil.rmtree(folder, ignore_errors=True)  # made again next time
                raise
        return python, bound

    def _build(self, label: str, folder: Path, log: Path, result: Result) -> None:
        # the build's own environment is pip's and kept (the build itself is isolated)
        python, binds = self.venv(label, log)
        includes = self.run([*python, "-c", INCLUDES], binds, folder / "includes.txt").split()
        stage = self.stage_of(label)
        for include in includes:
            copy = stage / include.lstrip("/")
            if not copy.exists():
                shutil.copytree(host_path(label, include), copy, dirs_exist_ok=True)
                # Debian's pyconfig.h includes <x86_64-linux-gnu/python3.14/pyconfig.h>: found
                # through the same -I when that folder is copied below it
                system = host_path(label, "/usr/include")
                for arch in system.glob(f"*-linux-*/{Path(include).name}"):
                    shutil.copytree(arch, copy / arch.relative_to(system), dirs_exist_ok=True)
        env = {
            **binds,
            "CC": str(self.cc if arm64(label) is None else self.cross_cc),
            "VARIANTS_WHEEL_INCLUDES": ":".join(includes),
            "VARIANTS_WHEEL_STAGE": str(stage),
            "VARIANTS_BUILD": "default",
            "VARIANTS_REQUIRE_ALL": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **(EMULATED_PIP if arm64(label) else {}),
        }
        if tree_of(label) is not None:  # bullseye seen from sid or an arm64 tree
            bound = [binds.get(modes.BINDS_ENV, ""), str(modes.tree_path(TREE)), str(self.work)]
            env[modes.BINDS_ENV] = ":".join(b for b in bound if b)
        raw = folder / "raw"
        pip_wheel = [python[-1], "-m", "pip", "wheel", "--no-deps", "-w", str(raw), str(self.sdist)]
        if arm64(label) is None:
            self.run([*python[:-1], *pip_wheel], env, log)
        else:  # the bullseye tree's mounts made once, for BY_CHROOT's compiler calls
            bind = ["/bin/sh", "-c", BIND_TREE, "bind", str(modes.tree_path(TREE))]
            self.run(
                [*python[:-1], *bind, *pip_wheel],
                {**env, "VARIANTS_WHEEL_WORK": str(self.work)},
                log,
            )
        (built,) = raw.glob("*.whl")
        auditwheel = [sys.executable, "-m", "auditwheel"]
        result.tag = lowest_tag(self.run([*auditwheel, "show", str(built)], {}, log))
        # --plat names only this machine's architecture's policies; "auto" (the wheel's own,
        # the lowest its symbols allow) for another's, whose tag is checked below
        plat = result.tag if arm64(label) is None else "auto"
        repair = [*auditwheel, "repair", "--plat", plat, "-w", str(self.out), str(built)]
        self.run(repair, {}, log)
        wheel = repaired(self.out, built, result.arch)
        if result.tag not in wheel.name:
            raise ValueError(f"auditwheel repair made {wheel.name}, not a {result.tag} wheel")
        result.wheel, result.size = wheel.name, wheel.stat().st_size

    def check_tools(self, label: str, wanted: Sequence[str], log: Path) -> Path:
        """The kept folder of ``CHECK_TOOLS`` beside aarch64 interpreter ``label``'s pip
        environment: ``wanted`` installed there from wheels by that environment's pip, once
        (again when ``wanted`` changes, which its ``requirements.txt`` records)."""
        pips, tools = self.pip_env(label), self.tools_env(label)
        record = tools / "requirements.txt"
        if record.is_file() and record.read_text().split() == list(wanted):
            return tools
        shutil.rmtree(tools, ignore_errors=True)
        tools.mkdir(parents=True)
        pip = [*launcher(label), str(pips / "bin" / "python"), "-m", "pip", "install", "-q"]
        pip += ["--target", str(tools), "--only-binary", ":all:", *wanted]
        bound = binds(label, str(pips), str(tools))
        try:
            self.run(pip, {**bound, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, log)
        except RuntimeError:
            shutil.rmtree(tools, ignore_errors=True)  # installed again next time
            raise
        record.write_text("\n".join(wanted) + "\n")
        return tools

    def _check(self, label: str, folder: Path, log: Path, result: Result) -> None:
        """A fresh environment without pip (the kept one's pip installs into it: --python)."""
        fresh = folder / "check"
        pips = self.pip_env(label)
        tools = [str(self.tools_env(label))] if arm64(label) else []
        bound = binds(label, str(fresh), str(pips), *tools)
        self.run([*self.base(label), "-m", "venv", "--without-pip", str(fresh)], bound, log)
        # PATH only the environment's bin, set inside a Debian tree (its entry script needs
        # the host's PATH to enter)
        bare = [*launcher(label), "/usr/bin/env", f"PATH={fresh / 'bin'}"]
        python = [*bare, str(fresh / "bin" / "python")]
        wanted = list(CHECK_REQUIREMENTS)
        if label in ("pypy3", f"pypy3{AARCH64}"):  # PyPy 7.3: the test extra's pin
            wanted[1] = PYPY_HYPOTHESIS
        env = {**bound, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        pip = [*bare, str(pips / "bin" / "python"), "-m", "pip", "--python", python[-1]]
        pip += ["install", "-q"]
        if arm64(label) is None:
            self.run([*pip, "--only-binary", ":all:", *wanted], env, log)
        else:  # the kept tools on the fresh environment's path (its site-packages' .pth)
            (site,) = fresh.glob("lib/*/site-packages")
            (site / "check-tools.pth").write_text(f"{self.check_tools(label, wanted, log)}\n")
        self.run([*pip, "--no-index", "--no-deps", str(self.out / result.wheel)], env, log)
        check = [str(CHECK), str(ROOT / "tests"), "--no-compiler"]
        if arm64(label) is None:
            said = self.run([*python, *check], env, folder / "check.txt").strip().splitlines()
            result.kernels, result.tests = said[0], said[-1]
            return
        for cpu, masked, expected, tests in CPUS:
            # the mask preloaded inside the tree only (the host's entry script is x86-64)
            preload = [f"LD_PRELOAD={self.mask}"] if masked else []
            argv = [*bare, *preload, python[-1], *check, "--kernels", "--expect", expected]
            argv += [] if tests else ["--no-tests"]
            model = cpu.split(",")[0]  # the name, less its properties ("max,pauth-impdef=on")
            name = f"check-{model}{'-masked' if masked else ''}.txt"
            said = self.run(argv, {**env, "QEMU_CPU": cpu}, folder / name).strip().splitlines()
            if tests:
                result.kernels, result.ran, result.tests = said[0], said[1], said[-1]
            else:
                result.fallbacks.append(f"{model}{', crypto masked' if masked else ''}: {said[0]}")


def summary(results: Sequence[Result], glibc: str, seconds: float, cross: str = "") -> str:
    """The run's table: a line per interpreter, the aarch64 ones' kernels and fallbacks, and
    the seconds each architecture's wheels took (their sum: two build at once)."""
    against = f"{glibc} ({TREE})" + (
        f", aarch64 against {cross} ({TREE}'s cross GCC)" if cross else ""
    )
    lines = [f"wheels compiled against {against}, in {seconds:.0f} s:"]
    for r in results:
        if r.wheel:
            size = f"{r.size / 1024:.0f} KiB"
            lines.append(f"  {r.label:13s} {r.wheel} ({size}, {r.tag}): {r.outcome}")
            lines.append(f"                {r.kernels}; {r.tests}")
            lines += [f"                {line}" for line in [r.ran, *r.fallbacks] if line]
        else:
            lines.append(f"  {r.label:13s} {r.outcome}")
    for arch in ("x86_64", "aarch64"):
        mine = [r for r in results if r.arch == arch and not r.outcome.startswith("not here")]
        if mine:
            total = sum(r.seconds for r in mine)
            lines.append(f"{arch}: {len(mine)} interpreters, {total:.0f} s of the two jobs' time")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="the wheels' folder")
    parser.add_argument("--work", type=Path, help="the builds' folder (default: a temporary one)")
    parser.add_argument(
        "--only", help="interpreter labels, comma-separated (default: all): 3.12,3.11-aarch64"
    )
    parser.add_argument(
        "--arch", default="x86_64,aarch64", help="x86_64, aarch64 or both (default), for all"
    )
    parser.add_argument("--jobs", type=int, default=2, help="interpreters at once (default 2)")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else labels(args.arch.split(","))
    started = time.monotonic()
    work = args.work or Path(tempfile.mkdtemp(prefix="variants-wheels-"))
    work.mkdir(parents=True, exist_ok=True)
    builder = Builder(args.out.absolute(), work.absolute(), debian.log_stderr)
    builder.prepare()
    if any(arm64(label) for label in chosen):
        builder.prepare_arm(chosen)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(builder.one, chosen))
    seconds = time.monotonic() - started
    report = {
        "glibc": builder.glibc,
        "aarch64 glibc": builder.cross_glibc,
        "seconds": round(seconds),
        "wheels": [asdict(r) for r in results],
    }
    (builder.out / "wheels.json").write_text(json.dumps(report, indent=1) + "\n")
    print(summary(results, builder.glibc, seconds, builder.cross_glibc))
    built = [r for r in results if not r.outcome.startswith("not here")]
    return 0 if built and all(r.outcome == "ok" for r in built) else 1


if __name__ == "__main__":
    sys.exit(main())
