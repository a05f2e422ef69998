"""Build the native kernels' C test driver per architecture and run it on CPUs with and without
their extensions: natively, and under qemu-user.

    python tests/cross/run.py              # what the installed tools allow (nox -s cross)
    CI=true python tests/cross/run.py      # a missing compiler or qemu is an error
    python tests/cross/run.py --target windows   # MinGW-w64's build under Wine (nox -s windows)

Needs gcc, and for the foreign targets (Debian package names) gcc-aarch64-linux-gnu,
gcc-riscv64-linux-gnu, libc6-dev-arm64-cross, libc6-dev-riscv64-cross and qemu-user.
The foreign drivers are linked statically, so qemu needs no sysroot. The Windows target
(gcc-mingw-w64-x86-64, wine: only with --target windows) is the x86-64 driver built by
MinGW-w64, statically, and run on this CPU under Wine: the same kernels but the SHA-512
assembly, which is ELF's and left out of a Windows build (dispatch chooses the C kernel).
One driver, driver.c, checks every core's kernels (MD5, SHA-1, SHA-256 and the SHA-512
core; the single-message and many-message ones) against the portable kernels and hashlib's
digests. Each run names the kernels dispatch must choose on its CPU model (the many-message
cores by kernel id) and the kernels that CPU must run (so that a model missing an extension
cannot pass by testing less); where every model has an extension (all of qemu's AArch64 models
have SHA2) the portable path is forced with VARIANTS_NATIVE_PORTABLE=1, and single kernels
with VARIANTS_NATIVE_KERNELS, the same switches the Python module honours. The
driver itself runs every kernel the CPU has; a forced run checks the choice
and the plain entry points (vn_digest_many, vn_absorb_many) on that kernel.
On an x86-64 host with AVX2 the driver is built twice more with x86-64's SHA512 instructions
as C (no machine here has them): the model right, whose kernel dispatch must choose, and one
bit off, which dispatch's verification must refuse (Run.model).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import time
from argparse import ArgumentParser
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "variants" / "native"

sys.path.insert(0, str(ROOT))  # for build_support, the project's (stdlib-only) build helpers
from build_support import cache, load  # noqa: E402
from variants._algorithms import ALGORITHMS as TABLE  # noqa: E402

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.c"
BUILD = ROOT / "build" / "cross"
#: -Wextra without its missing-field-initializers: dispatch.c's older table entries are
#: positional and leave the fields added since (the SHA-512 core's) to C's zero.
CFLAGS = [
    *("-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-missing-field-initializers", "-Werror"),
    "-pthread",
]
PORTABLE = {"VARIANTS_NATIVE_PORTABLE": "1"}
#: MinGW-w64's x86-64 build, run under Wine on this machine's CPU.
WINDOWS = "windows"


def forced(kernels: str) -> Dict[str, str]:
    """The environment that forces kernels: ``core=id,core=id``."""
    return {"VARIANTS_NATIVE_KERNELS": kernels}


@dataclass(frozen=True)
class Target:
    """An architecture: how to compile for it and how to run the result here."""

    name: str
    compiler: str
    qemu: Optional[str]  # None: runs natively on this machine
    static: bool
    runner: Tuple[str, ...] = ()  # what runs its binary on this CPU (wine), if not the system
    suffix: str = ""  # of its programs' names (MinGW adds .exe where -o names none)


@dataclass(frozen=True)
class Sha:
    """What dispatch must choose for SHA-1 and the SHA-512 core on a CPU: kernel names or ids."""

    sha1: str = "portable"
    sha512: str = "portable"
    sha1_many: str = "portable"
    sha512_many: str = "portable"


@dataclass(frozen=True)
class Run:
    """One run of a target's driver: the CPU model, the environment, the kernels expected."""

    target: str
    cpu: Optional[str]  # qemu's -cpu; None: this machine's CPU, natively
    md5: str
    sha256: str
    md5_many: str  # kernel ids
    sha256_many: str
    env: Dict[str, str] = field(default_factory=dict)
    many_only: bool = False  # only the many-message cores (a second run of one CPU)
    sha: Sha = Sha()
    #: the kernels this CPU must run, "core=id" (the driver's --require)
    required: Tuple[str, ...] = ()
    #: "right": built with x86-64's SHA512 instructions as C (MODEL_DEFINES), which AVX2 runs;
    #: "wrong": the model one bit off, whose kernel dispatch must verify, refuse and report
    model: str = ""

    def label(self) -> str:
        where = (
            f"qemu -cpu {self.cpu}" if self.cpu else "wine" if self.target == WINDOWS else "native"
        )
        if self.env == PORTABLE:
            where += " (portable forced)"
        elif self.env:
            where += f" ({', '.join(self.env.values())})"
        if self.model:
            where += f" (the SHA512 instructions modelled {self.model})"
        return f"{self.target:8s} {where}"


def _host_is_x86_64() -> bool:
    return platform.machine() in ("x86_64", "AMD64")


def _has_sha_ni(flags: Sequence[str]) -> bool:
    """SHA-NI with SSSE3 and SSE4.1: what dispatch.c's NEEDS_SHANI asks of the CPU."""
    return all(flag in flags for flag in ("sha_ni", "ssse3", "sse4_1"))


def _has_avx512(flags: Sequence[str]) -> bool:
    """AVX-512 F, VL and BW with AVX2: what dispatch.c's NEEDS_AVX512 asks of the CPU."""
    return "avx2" in flags and all(f in flags for f in ("avx512f", "avx512vl", "avx512bw"))


def _host_flags() -> List[str]:
    """This machine's CPU flags, from /proc/cpuinfo (the kernel lists only what the OS enables)."""
    try:
        return next(
            line.split(":", 1)[1].split()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("flags")
        )
    except (OSError, StopIteration):
        return []


def _sha_lanes_kernel(flags: Sequence[str], avx512: str, avx2: str) -> str:
    """The many-kernel dispatch.c chooses for SHA-256 or SHA-1 on a CPU with these flags:
    zmm lanes or SHA-NI streams with both, then SHA-NI, then AVX-512 lanes, then AVX2's."""
    has_sha_ni = _has_sha_ni(flags)
    has_avx512 = _has_avx512(flags)
    if has_avx512 and has_sha_ni:
        return "avx512-shani"
    if has_sha_ni:
        return "shani-x2"
    return avx512 if has_avx512 else avx2 if "avx2" in flags else "portable"


def _host_kernels() -> Dict[str, str]:
    """What dispatch should choose on this x86-64 machine, by core (the order in dispatch.c)."""
    flags = _host_flags()
    has_sha_ni = _has_sha_ni(flags)
    has_avx2 = "avx2" in flags
    has_avx512 = _has_avx512(flags)
    md5_many = "avx512-x32" if has_avx512 else "avx2-x16" if has_avx2 else "portable"
    sha256_many = _sha_lanes_kernel(flags, "avx512-x16", "avx2-x8")
    return {
        "sha256": "x86-64 SHA-NI" if has_sha_ni else "portable",
        "md5_many": md5_many,
        "sha256_many": sha256_many,
    }


def _host_sha(flags: Sequence[str]) -> Sha:
    """What dispatch should choose for SHA-1 and the SHA-512 core on an x86-64 CPU with these
    flags (the last usable kernel of each table in dispatch.c: SHA-1's as SHA-256's)."""
    has_sha_ni = _has_sha_ni(flags)
    has_avx2, has_avx512 = "avx2" in flags, _has_avx512(flags)
    return Sha(
        sha1="shani" if has_sha_ni else "portable",
        sha512="sha512"
        if has_avx2 and "sha512" in flags
        else "avx2-asm"
        if has_avx2 and "bmi1" in flags and "bmi2" in flags
        else "portable",
        sha1_many=_sha_lanes_kernel(flags, "avx512-x16", "avx2-x8"),
        sha512_many="avx512-x8" if has_avx512 else "avx2-x4" if has_avx2 else "portable",
    )


#: x86-64's kernels but the portable ones, "core=id", and the features each needs (dispatch.c's
#: tables: NEEDS_*, as _has tells them from a CPU's flags).
X86_KERNELS: Dict[str, Tuple[str, ...]] = {
    "md5=amd64": (),
    "sha256=shani": ("shani",),
    "sha1=shani": ("shani",),
    "sha512=avx2": ("avx2", "bmi"),
    "sha512=avx2-asm": ("avx2", "bmi"),  # ELF only: not in a Windows build (without_assembly)
    "sha512=sha512": ("sha512",),
    "md5-many=avx2-x8": ("avx2",),
    "md5-many=avx2-x16": ("avx2",),
    "md5-many=avx512-x8": ("avx512",),
    "md5-many=avx512-x16": ("avx512",),
    "md5-many=avx512-x32": ("avx512",),
    "sha256-many=avx2-x8": ("avx2",),
    "sha256-many=avx512-x8": ("avx512",),
    "sha256-many=avx512-x16": ("avx512",),
    "sha256-many=shani-x2": ("shani",),
    "sha256-many=avx512-shani": ("avx512", "shani"),
    "sha1-many=avx2-x8": ("avx2",),
    "sha1-many=shani-x2": ("shani",),
    "sha1-many=avx512-x16": ("avx512",),
    "sha1-many=avx512-shani": ("avx512", "shani"),
    "sha512-many=avx2-x4": ("avx2",),
    "sha512-many=avx512-x8": ("avx512",),
}
#: The flags of qemu's Haswell model that the kernels ask for.
HASWELL_FLAGS = ("avx2", "bmi1", "bmi2", "ssse3", "sse4_1")
#: AArch64's kernels but the portable ones: on every qemu model (which all have SHA1 and SHA2),
#: and the one of ARMv8.2's SHA512, which "max" has and the Cortex-A53 not.
ARM_KERNELS = (
    *("md5=arm64", "sha256=sha2", "sha1=sha1"),
    *("md5-many=neon-x4", "md5-many=neon-x8", "sha256-many=sha2-x2"),
)
ARM_SHA512 = "sha512=sha512"


def _has(feature: str, flags: Sequence[str]) -> bool:
    """Whether a CPU with these flags has what dispatch.c's NEEDS_<feature> asks."""
    return {
        "shani": _has_sha_ni(flags),
        "avx2": "avx2" in flags,
        "bmi": "bmi1" in flags and "bmi2" in flags,
        "avx512": _has_avx512(flags),
        "sha512": "avx2" in flags and "sha512" in flags,
    }[feature]


def x86_required(flags: Sequence[str]) -> Tuple[str, ...]:
    """The x86-64 kernels a CPU with these flags runs (the driver's --require)."""
    return tuple(
        kernel for kernel, needs in X86_KERNELS.items() if all(_has(n, flags) for n in needs)
    )


TARGETS = {
    "x86-64": Target("x86-64", "gcc", None, static=False),
    "aarch64": Target("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64", static=True),
    "riscv64": Target("riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64", static=True),
    WINDOWS: Target(
        WINDOWS, "x86_64-w64-mingw32-gcc", None, static=True, runner=("wine",), suffix=".exe"
    ),
}
#: Run unless --target names others: the Windows target needs Wine, which CI does not install.
DEFAULT_TARGETS = ("x86-64", "aarch64", "riscv64")
#: Wine quiet, with a prefix of its own in the per-user cache (not the user's ~/.wine; not in
#: the checkout, which its drive Z:, a link to /, would make endless to walk).
WINE_ENV = {"WINEDEBUG": "-all", "WINEPREFIX": str(cache.root() / "wine")}


#: The assembly kernel, ELF's only.
ASSEMBLY = "sha512=avx2-asm"


def without_assembly(sha: Sha) -> Sha:
    """What dispatch chooses for SHA-1 and the SHA-512 core where the ELF-only assembly kernel
    is left out (Windows, Mach-O): the C kernel of the same instructions."""
    return replace(sha, sha512="avx2") if sha.sha512 == "avx2-asm" else sha


#: A model run "wrong": the kernel dispatch must refuse, and the words it must report.
MODEL_REFUSED = "sha512=sha512"
MODEL_PROBLEM = 'kernel "sha512" gave a wrong state on known blocks'


def runs() -> List[Run]:
    """The matrix: each target on CPU models with and without its extensions."""
    matrix: List[Run] = []
    if _host_is_x86_64():
        flags = _host_flags()
        host, host_sha = _host_kernels(), _host_sha(flags)
        haswell = Sha(sha512="avx2-asm", sha1_many="avx2-x8", sha512_many="avx2-x4")
        native = Run(
            "x86-64",
            None,
            "x86-64 scalar",
            host["sha256"],
            host["md5_many"],
            host["sha256_many"],
            sha=host_sha,
            required=x86_required(flags),
        )
        matrix += [
            native,
            Run("x86-64", None, "portable", "portable", "portable", "portable", PORTABLE),
            # qemu's x86 models lack SHA-NI and AVX-512: the detection paths that say no
            Run(
                "x86-64",
                "qemu64",
                "x86-64 scalar",
                "portable",
                "portable",
                "portable",
                required=x86_required(()),
            ),
            Run(
                "x86-64",
                "Haswell",
                "x86-64 scalar",
                "portable",
                "avx2-x16",
                "avx2-x8",
                sha=haswell,
                required=x86_required(HASWELL_FLAGS),
            ),
        ]
        if host["md5_many"] != "portable":
            # the plain entry points on kernels dispatch does not choose here
            md5_many = "avx2-x8" if host["md5_many"] == "avx2-x16" else "avx512-x16"
            sha256_many = "avx512-x8" if "avx512" in host["md5_many"] else "avx2-x8"
            kernels = f"md5=portable,md5-many={md5_many},sha256-many={sha256_many}"
            sha = host_sha
            if host_sha.sha1_many in ("shani-x2", "avx512-shani") and "avx2" in flags:
                kernels += ",sha1-many=avx2-x8"
                sha = replace(host_sha, sha1_many="avx2-x8")
            if host_sha.sha512 == "avx2-asm":
                kernels += ",sha512=avx2"
                sha = replace(sha, sha512="avx2")
            if host_sha.sha512_many == "avx512-x8":
                kernels += ",sha512-many=avx2-x4"
                sha = replace(sha, sha512_many="avx2-x4")
            matrix.append(
                Run(
                    "x86-64",
                    None,
                    "portable",
                    host["sha256"],
                    md5_many,
                    sha256_many,
                    forced(kernels),
                    many_only=True,
                    sha=sha,
                )
            )
        # the same CPU under Wine: the host's native runs, less the assembly kernel
        matrix += [
            replace(
                r,
                target=WINDOWS,
                sha=without_assembly(r.sha),
                required=tuple(k for k in r.required if k != ASSEMBLY),
            )
            for r in matrix
            if r.target == "x86-64" and r.cpu is None
        ]
        # no machine here has the SHA512 extension: its C model, which AVX2 runs, right and wrong
        if "avx2" in flags:
            modelled = [*flags, "sha512"]
            without = [flag for flag in flags if flag != "sha512"]
            matrix += [
                replace(
                    native, sha=_host_sha(modelled), required=x86_required(modelled), model="right"
                ),
                replace(
                    native, sha=_host_sha(without), required=x86_required(without), model="wrong"
                ),
            ]
    full_rv = "rv64,zbb=true,zknh=true"
    # every qemu AArch64 model has SHA1; "max" has SHA512 (ARMv8.2), the A53 not
    arm_max = Sha(sha1="AArch64 SHA1", sha512="AArch64 SHA512")
    matrix += [
        Run(
            "aarch64",
            "max",
            "AArch64 scalar",
            "AArch64 SHA2",
            "neon-x8",
            "sha2-x2",
            sha=arm_max,
            required=(*ARM_KERNELS, ARM_SHA512),
        ),
        Run(
            "aarch64",
            "cortex-a53",
            "AArch64 scalar",
            "AArch64 SHA2",
            "neon-x8",
            "sha2-x2",
            sha=Sha(sha1="AArch64 SHA1"),
            required=ARM_KERNELS,
        ),
        Run("aarch64", "max", "portable", "portable", "portable", "portable", PORTABLE),
        Run(
            "aarch64",
            "max",
            "AArch64 scalar",
            "AArch64 SHA2",
            "neon-x4",
            "sha2-x2",
            forced("md5-many=neon-x4"),
            many_only=True,
            sha=arm_max,
        ),
        Run(
            "riscv64",
            full_rv,
            "RISC-V Zbb",
            "RISC-V Zknh",
            "portable",
            "portable",
            required=("md5=zbb", "sha256=zbb", "sha256=zknh"),
        ),
        Run(
            "riscv64",
            "rv64,zbb=true,zknh=false",
            "RISC-V Zbb",
            "RISC-V Zbb",
            "portable",
            "portable",
            required=("md5=zbb", "sha256=zbb"),
        ),
        Run("riscv64", "sifive-u54", "portable", "portable", "portable", "portable"),
        Run("riscv64", full_rv, "portable", "portable", "portable", "portable", PORTABLE),
    ]
    return matrix


def kernel_sources() -> List[str]:
    """The kernels, dispatch and state machine, as variants/native/_build.py lists them."""
    return list(load("variants/native/_build.py").KERNEL_SOURCES)


#: Run.model: the compiler's arguments for it. The model is this folder's
#: sha512_instructions.h and sha512_extension.h, which the kernel and dispatch.c include from
#: the include path: this folder, put before variants/native, stands in for their own;
#: VN_SHA512_MODEL_WRONG puts one bit of the model off. The driver itself is the same: what
#: it expects of a model build is in its arguments (command_for).
MODEL_DEFINES = {
    "": [],
    "right": [f"-I{HERE}"],
    "wrong": ["-DVN_SHA512_MODEL_WRONG", f"-I{HERE}"],
}


def build(target: Target, model: str = "") -> Path:
    """Compile the driver with every native source for ``target`` (with ``model``, x86-64's
    SHA512 instructions as C: Run.model)."""
    name = DRIVER.stem + (f"-model-{model}" if model else "") + target.suffix
    out = BUILD / target.name / name
    out.parent.mkdir(parents=True, exist_ok=True)
    sources = [str(DRIVER), *(str(NATIVE / name) for name in kernel_sources())]
    defines = MODEL_DEFINES[model]
    command = [target.compiler, *CFLAGS, *defines, f"-I{NATIVE}", *sources, "-o", str(out)]
    if target.static:
        command.insert(1, "-static")
    subprocess.run(command, check=True)
    return out


#: The algorithms by their numbers in native.h (VN_MD5 ...), as driver.c's --expected reads them:
#: variants/_algorithms.py's order, which tools/gen_constants.py numbers them in.
ALGORITHMS = tuple(algorithm.name for algorithm in TABLE)
#: The seed of driver.c's generated bytes (EXPECTED_SEED) and the lengths hashed: every one to
#: 1100 bytes, and block edges past it.
EXPECTED_SEED = 0x2545F491
EXPECTED_LENGTHS = [*range(1101), 4095, 4096, 4097, 65535, 65536, 65537, 1 << 17, (1 << 17) + 1]
EXPECTED = BUILD / "expected.txt"


def generated(length: int) -> bytes:
    """driver.c's generated bytes: xorshift32 from EXPECTED_SEED, the top byte of each step."""
    out = bytearray(length)
    x = EXPECTED_SEED
    for i in range(length):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x >> 24
    return bytes(out)


def write_expected() -> Path:
    """hashlib's digests of the generated bytes at every length in EXPECTED_LENGTHS, for
    every algorithm, as the driver's --expected reads them (an answer independent of the C)."""
    data = generated(max(EXPECTED_LENGTHS))
    lines = [
        f"{number} {length} {hashlib.new(name, data[:length]).hexdigest()}"
        for number, name in enumerate(ALGORITHMS)
        for length in EXPECTED_LENGTHS
    ]
    EXPECTED.parent.mkdir(parents=True, exist_ok=True)
    EXPECTED.write_text("\n".join(lines) + "\n")
    return EXPECTED


def command_for(run: Run, target: Target, binary: Path) -> List[str]:
    """The driver's command line for ``run``: what it expects, under qemu or Wine if needed."""
    expectations = [
        *("--expect", f"md5={run.md5}", "--expect", f"sha256={run.sha256}"),
        *("--expect", f"md5-many={run.md5_many}", "--expect", f"sha256-many={run.sha256_many}"),
        *("--expect", f"sha1={run.sha.sha1}", "--expect", f"sha512={run.sha.sha512}"),
        *("--expect", f"sha1-many={run.sha.sha1_many}"),
        *("--expect", f"sha512-many={run.sha.sha512_many}"),
        *(["--many-only"] if run.many_only else ["--expected", str(EXPECTED)]),
        *(argument for kernel in run.required for argument in ("--require", kernel)),
    ]
    if run.model == "wrong":
        expectations += ["--unusable", MODEL_REFUSED, "--setup-problem", MODEL_PROBLEM]
    if run.cpu is None:
        return [*target.runner, str(binary), *expectations]
    qemu = target.qemu or f"qemu-{platform.machine()}"
    return [qemu, "-cpu", run.cpu, str(binary), *expectations]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--target",
        action="append",
        choices=sorted(TARGETS),
        help=f"a target to build and run (repeatable; default: {', '.join(DEFAULT_TARGETS)})",
    )
    chosen = parser.parse_args(argv).target or DEFAULT_TARGETS
    strict = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    matrix = runs()
    write_expected()
    results: List[List[str]] = []
    failed = False

    def missing(tool: str, labels: Sequence[str]) -> bool:
        """Report a missing tool: an error under CI, else the runs needing it are skipped."""
        if shutil.which(tool):
            return False
        if strict:
            print(f"error: {tool} is missing (CI=true: install it, see .ci/run)", file=sys.stderr)
            sys.exit(2)
        results.extend([label, f"skipped: no {tool}"] for label in labels)
        return True

    def execute(label: str, command: List[str], env: Dict[str, str]) -> None:
        nonlocal failed
        started = time.perf_counter()
        result = subprocess.run(
            command,
            env={**os.environ, **WINE_ENV, **env},
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        summary = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
        ok = result.returncode == 0
        failed = failed or not ok
        print(f"{'ok  ' if ok else 'FAIL'} {label}: {summary} ({seconds:.1f} s)")
        if not ok:
            print(result.stdout + result.stderr)
        results.append([label, "ok" if ok else "FAILED"])

    for target in (TARGETS[name] for name in chosen):
        target_runs = [r for r in matrix if r.target == target.name]
        labels = [r.label() for r in target_runs]
        if not labels or missing(target.compiler, labels):
            continue
        if target.runner and missing(target.runner[0], labels):
            continue
        binaries = {model: build(target, model) for model in sorted({r.model for r in target_runs})}
        for run in target_runs:
            command = command_for(run, target, binaries[run.model])
            if run.cpu and missing(command[0], [run.label()]):
                continue
            execute(run.label(), command, run.env)
    print()
    width = max(len(label) for label, _ in results) if results else 0
    for label, outcome in results:
        print(f"  {label:{width}s}  {outcome}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
