"""Compare the native variant's machine code between two commits, function by function.

A change to variants/native/ that means to leave the kernels as they were (a refactor, a name,
a generated constant) is checked by this: each commit's C files, taken from git as committed,
compiled one by one with the flags an extension build of this CPython uses (its ``CFLAGS``
and ``CCSHARED``, then ``_build.py``'s ``COMPILE_ARGS``: what ``pip install .`` runs), for
x86-64, AArch64 and RISC-V (Debian's gcc-aarch64-linux-gnu and gcc-riscv64-linux-gnu), each
object disassembled (``objdump -dr``), and the functions compared with what their place in
the file gives them left out (``functions``: addresses, jumps and calls by symbol and offset,
relocations by name). A function that moved to another file is compared with itself. The
foreign architectures
compile what both bridges share (``KERNEL_SOURCES``) and the cffi bridge's C; the C-API
bridge's files need this CPython's headers and are compiled for x86-64 only.

    python tools/compare_machine_code.py BEFORE [AFTER]          # AFTER: HEAD
    python tools/compare_machine_code.py BEFORE AFTER --arch aarch64 --show many_new_scheduler

Prints, per architecture, how many functions are identical, differ, are new or gone, and in
which files every function is identical; then each function that is not (or moved), with its
instruction counts and whether it differs in numbers only (offsets, displacements,
immediates); ``--show NAME``: the differing lines of that function.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import re
import shlex
import subprocess
import sysconfig
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
NATIVE = "variants/native"


@dataclass(frozen=True)
class Arch:
    name: str
    gcc: str
    objdump: str
    capi: bool  # whether this CPython's headers fit (the host's architecture)


ARCHES = {
    a.name: a
    for a in (
        Arch("x86-64", "gcc", "objdump", capi=True),
        Arch("aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", capi=False),
        Arch("riscv64", "riscv64-linux-gnu-gcc", "riscv64-linux-gnu-objdump", capi=False),
    )
}

#: A function's lines, without their addresses: what two builds must agree on.
Functions = Dict[str, List[str]]

_HEADER = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_ADDRESS = re.compile(r"^\s*[0-9a-f]+:\s*")
_TARGET = re.compile(r"\b[0-9a-f]+ <")
_COMMENT = re.compile(r"\s+(#|//)\s.*$")
_LABEL = re.compile(r"\.L\w+")
_PADDING = re.compile(r"^((data16|cs)\s+)*(nop\w*|xchg\s+%ax,%ax)\b|^\.\.\.$")


def functions(dump: str) -> Functions:
    """Each function of ``objdump -dr --no-show-raw-insn`` output, its lines without what the
    function's place gives them: the address at their start or before a named target (``call
    1f40 <f+0x10>``: ``call <f+0x10>``), objdump's comments (RISC-V's ``# 1af8 <g+0x314>``
    names whatever lies at an offset), the no-ops that align the next function, and GCC's
    local labels' numbers (RISC-V keeps them as symbols, numbered through the file, and
    objdump heads a block at each as if it were a function), numbered again in each one."""
    result: Functions = {}
    lines: List[str] = []
    for line in dump.splitlines():
        header = _HEADER.match(line)
        if header and header.group(1).startswith(".L") and result:
            lines.append(header.group(1) + ":")  # RISC-V: a label inside the function
        elif header:
            lines = result.setdefault(header.group(1), [])
        elif result and line.strip():
            lines.append(_COMMENT.sub("", _TARGET.sub("<", _ADDRESS.sub("", line))))
    return {name: _local_labels(_unpadded(lines)) for name, lines in result.items()}


def _unpadded(lines: List[str]) -> List[str]:
    """``lines`` without the no-ops after the function's last instruction, which align the
    function after it and so depend on where this one ends."""
    end = len(lines)
    while end and _PADDING.match(lines[end - 1]):
        end -= 1
    return lines[:end]


def _local_labels(lines: List[str]) -> List[str]:
    """``lines`` with each local label (``.L25``) named by its order in them (``.L_1``)."""
    order: Dict[str, str] = {}
    return [
        _LABEL.sub(lambda m: order.setdefault(m.group(0), f".L_{len(order)}"), line)
        for line in lines
    ]


def instructions(lines: Sequence[str]) -> int:
    """How many of a function's lines are instructions (not relocations, labels or ``...``)."""
    return sum(1 for line in lines if not line.startswith(("R_", "...")) and not line.endswith(":"))


@dataclass(frozen=True)
class Tree:
    """A commit's variants/native/, as git holds it, and what its _build.py says of it."""

    native: Path
    kernel_sources: Tuple[str, ...]  # both bridges'
    bridge_sources: Tuple[str, ...]  # the cffi bridge's own C (no CPython headers)
    capi_sources: Tuple[str, ...]  # the C-API bridge's (this CPython's headers)
    compile_args: Tuple[str, ...]

    def sources(self, arch: Arch) -> List[str]:
        """The C files a build of this tree compiles for ``arch``."""
        return sorted(
            {*self.kernel_sources, *self.bridge_sources, *(self.capi_sources if arch.capi else ())}
        )


def extract(commit: str, into: Path) -> Tree:
    """variants/native/ of ``commit``, written under ``into``."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, NATIVE], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    native = into / NATIVE
    spec = importlib.util.spec_from_file_location(f"_build_{into.name}", native / "_build.py")
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return Tree(
        native,
        tuple(build.KERNEL_SOURCES),
        tuple(build.CFFI_SOURCES),
        tuple(build.CAPI_SOURCES),
        tuple(build.COMPILE_ARGS),
    )


def disassemble(tree: Tree, name: str, arch: Arch, out: Path) -> Functions:
    """Compile one C file of ``tree`` for ``arch`` as an extension build of this CPython does
    (its ``CFLAGS`` and ``CCSHARED``, then the tree's ``COMPILE_ARGS``) and read its functions."""
    obj = out / arch.name / (name + ".o")
    obj.parent.mkdir(parents=True, exist_ok=True)
    python = shlex.split(sysconfig.get_config_var("CFLAGS") or "") + shlex.split(
        sysconfig.get_config_var("CCSHARED") or ""
    )
    include = [
        f"-I{tree.native}",
        *([f"-I{sysconfig.get_paths()['include']}"] if arch.capi else []),
    ]
    command = [
        arch.gcc,
        *python,
        *tree.compile_args,
        *include,
        "-c",
        str(tree.native / name),
        "-o",
        str(obj),
    ]
    subprocess.run(command, check=True)
    dump = subprocess.run(
        [arch.objdump, "-dr", "--no-show-raw-insn", str(obj)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return functions(dump)


def build(tree: Tree, arch: Arch, out: Path) -> Dict[str, Tuple[str, List[str]]]:
    """Every function a build of ``tree`` for ``arch`` has, by name, with its file: by name
    alone where no other file has a function of that name (so that one moved to another file
    is compared with itself), else as ``name (file)``."""
    found = [
        (n, f, lines)
        for n in tree.sources(arch)
        for f, lines in disassemble(tree, n, arch, out).items()
    ]
    count = Counter(f for _, f, _ in found)
    return {(f if count[f] == 1 else f"{f} ({n})"): (n, lines) for n, f, lines in found}


@dataclass
class Comparison:
    """One architecture's functions before and after."""

    counts: Counter[str] = field(default_factory=Counter)  # identical, differ, new, gone
    lines: List[str] = field(default_factory=list)  # one a function that is not identical, or moved
    differing: Dict[str, Tuple[List[str], List[str]]] = field(default_factory=dict)
    files: Dict[str, bool] = field(
        default_factory=dict
    )  # whether each file's functions are all identical

    def summary(self) -> str:
        kinds = ", ".join(f"{self.counts[k]} {k}" for k in ("identical", "differ", "new", "gone"))
        other = sorted(f for f, all_same in self.files.items() if not all_same)
        same = len(self.files) - len(other)
        files = f"all identical in {same} of {len(self.files)} files"
        return f"{kinds}; {files}" + (f", not in {', '.join(other)}" if other else "")


def compare(before: Tree, after: Tree, arch: Arch, out: Path) -> Comparison:
    old, new = build(before, arch, out / "before"), build(after, arch, out / "after")
    result = Comparison()
    for function in sorted(old.keys() | new.keys()):
        (was, a), (now, b) = old.get(function, ("", [])), new.get(function, ("", []))
        where = f"{now or was}: {function}" + (
            f" (was in {was})" if was and now and was != now else ""
        )
        if function not in old or function not in new:
            kind = "new" if function in new else "gone"
            result.lines.append(f"{where}: {kind}, {instructions(a or b)} instructions")
        elif a != b:
            kind = "differ"
            numbers = " (in numbers only)" if _shape(a) == _shape(b) else ""
            result.lines.append(
                f"{where}: differs{numbers}, {instructions(a)} -> {instructions(b)} instructions"
            )
            result.differing[function] = (a, b)
        else:
            kind = "identical"
            if was != now:
                result.lines.append(f"{where}: identical")
        result.counts[kind] += 1
        for name in {was, now} - {""}:
            result.files[name] = result.files.get(name, True) and kind == "identical"
    return result


_NUMBER = re.compile(r"(?<![\w.%])-?(0x[0-9a-f]+|\d+)\b")


def _shape(lines: Sequence[str]) -> List[str]:
    """``lines`` with every number (offset, displacement, immediate) written ``N``."""
    return [_NUMBER.sub("N", line) for line in lines]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="a commit (the code as it was)")
    parser.add_argument("after", nargs="?", default="HEAD", help="a commit (default HEAD)")
    parser.add_argument("--arch", action="append", choices=sorted(ARCHES), help="default: all")
    parser.add_argument(
        "--show", action="append", default=[], metavar="FUNCTION", help="print its differing lines"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="compare-machine-code-") as scratch:
        work = Path(scratch)
        before = extract(args.before, work / "before-tree")
        after = extract(args.after, work / "after-tree")
        for arch in [ARCHES[a] for a in args.arch or ARCHES]:
            result = compare(before, after, arch, work / "objects")
            print(f"{arch.name}: {result.summary()}")
            for line in result.lines:
                print("  " + line)
            for function in args.show:
                if function in result.differing:
                    old, new = result.differing[function]
                    print(
                        "\n".join(
                            difflib.unified_diff(
                                old,
                                new,
                                f"{function} before",
                                f"{function} after",
                                lineterm="",
                                n=1,
                            )
                        )
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
