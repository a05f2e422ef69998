"""The CPU, the running interpreter and the checkout, as the reports name them.

Standard library only: it runs under every interpreter of the study. ``PYPY`` is the one
test of whether this process is PyPy, ``jit_on()`` of whether a JIT compiles its code.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Tuple, Union

PYPY = sys.implementation.name == "pypy"
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def jit_on() -> bool:
    """Whether a JIT compiles this process's hot code: PyPy's, or CPython's where it is on
    (3.14+ with ``PYTHON_JIT=1``: ``sys._jit.is_enabled()``). A mode's process is told by
    its mode (``Mode.jit``); this is for a process run without one (``bench check`` here)."""
    if PYPY:
        return True
    jit = getattr(sys, "_jit", None)
    return bool(jit is not None and jit.is_enabled())


def cpu_model() -> str:
    """The CPU's model name, as /proc/cpuinfo (or the platform module) gives it."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


#: The x86-64 flags the reports name.
FLAGS = {"avx2": "AVX2", "avx512f": "AVX-512", "sha_ni": "SHA-NI"}


def cpu_flags() -> Dict[str, bool]:
    """Whether this CPU has AVX2, AVX-512 and SHA-NI (/proc/cpuinfo's flags)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    line = next((x for x in text.splitlines() if x.startswith("flags")), ":")
    found = set(line.split(":", 1)[1].split())
    return {label: flag in found for flag, label in FLAGS.items()}


def cpu_label() -> str:
    """CPU model, what tells it apart where the name does not (x86-64: family and model), its
    widest SIMD, and the core count: "AMD EPYC (family 25 model 17, AVX-512), 2 cores"."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    fields = dict(re.findall(r"^(cpu family|model)\s*:\s*(\S+)$", text, re.M))
    flags = cpu_flags()
    simd = next((name for name in ("AVX-512", "AVX2") if flags.get(name)), "")
    detail = [f"family {fields['cpu family']} model {fields['model']}"] if len(fields) == 2 else []
    detail += [simd] if simd else []
    shown = f" ({', '.join(detail)})" if detail else ""
    return f"{cpu_model()}{shown}, {os.cpu_count()} cores"


def cpu_ticks() -> Tuple[int, int]:
    """(steal, total) jiffies of all CPUs since boot, from /proc/stat; (0, 0) without it.

    Steal is time a virtual machine's CPUs wanted to run and the host ran
    someone else: the study records the share seen during a run.
    """
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


def today() -> str:
    return datetime.date.today().isoformat()


def stamp() -> str:
    """A folder name for a run: the local date and time."""
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def interpreter_label() -> str:
    """The study's name for the running interpreter: "3.11", "3.13t", "pypy3.9"."""
    major, minor = sys.version_info[:2]
    prefix = "pypy" if PYPY else ""
    suffix = "t" if FREE_THREADED else ""
    return f"{prefix}{major}.{minor}{suffix}"


def interpreter_info() -> Dict[str, Union[str, bool]]:
    """What the reports say about the running interpreter."""
    info: Dict[str, Union[str, bool]] = {
        "label": interpreter_label(),
        "implementation": platform.python_implementation(),
        "version": platform.python_version(),
        "executable": sys.executable,
        "free_threaded": FREE_THREADED,
        "config_args": str(sysconfig.get_config_var("CONFIG_ARGS") or ""),
    }
    if FREE_THREADED:
        is_enabled = getattr(sys, "_is_gil_enabled", None)
        info["gil_enabled"] = bool(is_enabled()) if is_enabled else False
    jit = getattr(sys, "_jit", None)  # CPython 3.14 on: whether its JIT compiler is on
    if jit is not None:
        info["jit_enabled"] = bool(jit.is_enabled())
    if PYPY:
        pypy = sys.pypy_version_info  # type: ignore[attr-defined]
        info["pypy_version"] = ".".join(str(part) for part in pypy[:3])
    return info


def interpreter_title(info: Dict[str, object]) -> str:
    """ "CPython 3.13.0", "CPython 3.13.0, free-threaded", "PyPy 3.9.16 (PyPy 7.3.11)"."""
    title = f"{info['implementation']} {info['version']}"
    if info.get("free_threaded"):
        title += ", free-threaded"
    if info.get("pypy_version"):
        title += f" (PyPy {info['pypy_version']})"
    if "jit_enabled" in info:
        title += ", JIT on" if info["jit_enabled"] else ", JIT off"
    return title


def tree(folder: Path) -> str:
    """The commit of the checkout ``folder`` is in, "-dirty" if it has changes other than
    the pages a run writes (README.md, docs/: a second run of a tree is of the same tree);
    "" outside git or without it."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True)
        except OSError:  # no git here (the Debian sid tree has none)
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("describe", "--always", "--abbrev=12")
    changed = git(
        "status", "--porcelain", "--", ":/", ":(top,exclude)README.md", ":(top,exclude)docs"
    )
    return f"{commit}-dirty" if commit and changed else commit


#: The flags that pick the native kernels (x86-64's /proc/cpuinfo names), kept with a run.
KERNEL_FLAGS = (
    "avx2",
    "bmi1",
    "bmi2",
    "avx512f",
    "avx512vl",
    "avx512bw",
    "avx512dq",
    "sha_ni",
    "sha512",
    "asimd",
    "sha2",
)
#: What a CPU's vendor_id says of its maker.
VENDORS = {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}


def _first_line(path: str, prefix: str = "") -> str:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return ""
    return next((x for x in lines if x.startswith(prefix)), "")


def _hypervisor(flags: List[str]) -> str:
    """The hypervisor this runs under, as systemd-detect-virt names it; "" on bare metal."""
    try:
        done = subprocess.run(["systemd-detect-virt", "--vm"], capture_output=True, text=True)
        found = done.stdout.strip()
    except OSError:
        found = ""
    if found and found != "none":
        return found
    return "yes (CPUID)" if "hypervisor" in flags else ""


def machine_facts() -> Dict[str, Any]:
    """What a kept run says of its machine (``bench.store``): CPU vendor, family, model and
    name, the flags that pick kernels, cores, hypervisor, OS and kernel."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        text = ""
    fields = dict(re.findall(r"^(vendor_id|cpu family|model)\s*:\s*(\S+)$", text, re.M))
    flags = _first_line("/proc/cpuinfo", "flags") or _first_line("/proc/cpuinfo", "Features")
    have = flags.split(":", 1)[1].split() if ":" in flags else []
    pretty = _first_line("/etc/os-release", "PRETTY_NAME=").split("=", 1)[-1].strip('"')
    debian = _first_line("/etc/debian_version")
    return {
        "vendor": VENDORS.get(fields.get("vendor_id", ""), fields.get("vendor_id", "")),
        "family": fields.get("cpu family", ""),
        "model": fields.get("model", ""),
        "name": cpu_model(),
        "flags": [f for f in KERNEL_FLAGS if f in have],
        "cores": os.cpu_count() or 0,
        "hypervisor": _hypervisor(have),
        "os": f"{pretty} ({debian})" if pretty and debian else pretty or platform.system(),
        "kernel": platform.release(),
        "label": cpu_label(),
    }


#: What a run measures, beyond the interpreters: the study's sources and the code that times
#: them. Two runs whose files here are the same measured the same code (``measured``).
MEASURED = (
    "variants/helpers",
    "variants/streamlined",
    "variants/cython",
    "bench/jdk",
    "bench/core/timing.py",
    "bench/conduct/worker.py",
    "bench/catalog/cases.py",
)
#: The files of MEASURED that are code (not what a build or a run leaves beside it).
SOURCES = (".py", ".pyx", ".pxd", ".java")
#: Lines that say nothing to the interpreter: blank ones and whole-line comments (Python's,
#: Cython's and Java's), left out of the digest so that a comment's fix keeps runs comparable.
SILENT = re.compile(r"^\s*($|#|//|/\*|\*)")


#: Digests of code that measures as another digest's does, each with the change and why: a
#: change to MEASURED's files that leaves every path the study times as it was (as asv lets a
#: benchmark keep its ``version``), so that the runs kept before it still answer. Each says what
#: it maps; nothing but a reviewed change belongs here.
SAME_CODE = {
    # merge of issue 45's styles runs: worker.py's prepare takes its timer from a method that
    # answers a styles case apart and the study's cases as before; jit_calls, cases.py and
    # timing.py gain a constant for styles cases only. The study's timed loops are unchanged.
    "sha256:b2adbeaeb2ac6b16": "sha256:303a6f1110c2b377",
    # issue 53 (branches sha53 and study53): SHA-1 and SHA-512 join the study. New files in
    # variants/helpers, streamlined, cython and bench/jdk (Sha1*, Sha512*, LongBlockHash) and
    # their registrations; Case.java's check knows their digests of "abc"; Worker.java reports two
    # more intrinsic flags; cases.py skips a block benchmark shorter than the core's block and
    # checks a block of 8-byte words; worker.py's PyPy warm-up counts blocks of the case's core
    # (64 bytes for MD5 and SHA-256, as before). MD5's and SHA-256's timed loops are unchanged,
    # so the runs kept before answer for the cases they have (the README says which CPU
    # measured which algorithms).
    "sha256:ae6dacebce6c41c4": "sha256:303a6f1110c2b377",
    # issue 51's installed tool (stylebench): worker.py's ``call`` imports the module of the
    # function it is asked for under the package's own name (``PACKAGE``: ``bench`` in a clone)
    # instead of the literal "bench"; ``call`` answers the counters' and the JIT check's
    # requests, never a timed case. Mapped to the digest the one before maps to.
    "sha256:42cc2c07a8e5f4ab": "sha256:303a6f1110c2b377",
    # and bench/ importing itself relatively (tools/relative_imports.py): only the import lines
    # of worker.py, cases.py and timing.py change (``from ..core.timing import ...``), the same
    # names bound to the same objects. The study's timed loops are unchanged.
    "sha256:04fa5d766e30cc37": "sha256:303a6f1110c2b377",
    # the same two changes of issue 51 (worker.py's ``call`` by ``PACKAGE``; then the relative
    # imports) over issue 53's code: no timed path changed by either.
    "sha256:e3690e8f68a34fb7": "sha256:303a6f1110c2b377",
    "sha256:9c034622bcded267": "sha256:303a6f1110c2b377",
}


def comparable(a: str, b: str) -> bool:
    """Whether two digests of ``measured`` are of code that measures the same (``SAME_CODE``)."""
    return bool(a) and SAME_CODE.get(a, a) == SAME_CODE.get(b, b)


def _code(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines() if not SILENT.match(line))


def _digest(files: Dict[str, str]) -> str:
    whole = hashlib.sha256()
    for path in sorted(files):
        whole.update(f"{path}\n{_code(files[path])}\n".encode())
    return "sha256:" + whole.hexdigest()[:16]


def measured(root: Path, commit: str = "") -> str:
    """A digest of the code a run measures (``MEASURED``, its comments and blank lines left
    out): of the files in the checkout at ``root``, or of a commit of its history (both
    agree for the same files); "" where the commit is not to be had."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        except OSError:
            return ""
        return done.stdout if done.returncode == 0 else ""

    files: Dict[str, str] = {}
    if commit:
        named = git("ls-tree", "-r", "--name-only", commit.removesuffix("-dirty"), "--", *MEASURED)
        for path in named.split():
            if path.endswith(SOURCES):
                files[path] = git("show", f"{commit.removesuffix('-dirty')}:{path}")
        return _digest(files) if files else ""
    for name in MEASURED:
        top = root / name
        found = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for f in found:
            path = f.relative_to(root).as_posix()
            parts = path.split("/")
            if path.endswith(SOURCES) and not any(x.startswith((".", "__")) for x in parts[:-1]):
                files[path] = f.read_text()
    return _digest(files)
