"""tools/compare_machine_code.py's reading of objdump: what a function's place in its file gives
its lines is left out, and nothing else (the check that a refactor left the kernels' machine code
as it was is only as good as this)."""

from __future__ import annotations

import pytest

from conftest import source_tool

tool = source_tool("compare_machine_code.py")

#: The same two functions, once at the start of a file and once after other code (objdump -dr
#: --no-show-raw-insn): x86-64 with a call and a RIP-relative load, RISC-V with its local labels
#: as symbols and a comment that names whatever lies at an offset.
X86_FIRST = """
0000000000000000 <f>:
       0:\tmov    0x0(%rip),%rax        # 7 <f+0x7>
\t\t\t3: R_X86_64_PC32\ttable-0x4
       7:\tjmp    10 <f+0x10>
      10:\tcall   15 <f+0x15>
\t\t\t11: R_X86_64_PLT32\tg-0x4
      15:\tret
"""
X86_LATER = (
    X86_FIRST.replace("0000000000000000 <f>", "0000000000000140 <f>")
    .replace("      10:", "     150:")
    .replace("jmp    10", "jmp    150")
)
RISCV_FIRST = """
0000000000000000 <f>:
       0:\tlw\ta5,-1288(s0) # 1af8 <g+0x314>
       4:\tbltz\ta5,c <.L2>
\t\t\t4: R_RISCV_BRANCH\t.L2
       8:\tret

000000000000000c <.L2>:
       c:\tli\ta0,1
"""
RISCV_LATER = (
    RISCV_FIRST.replace("1af8 <g+0x314>", "1af8 <h+0x20>")
    .replace(".L2", ".L27")
    .replace("000000000000000c", "000000000000010c")
)
SAMPLES = {"x86-64": (X86_FIRST, X86_LATER), "riscv64": (RISCV_FIRST, RISCV_LATER)}


@pytest.mark.parametrize("arch", sorted(SAMPLES))
def test_a_function_moved_in_its_file_reads_the_same(arch: str) -> None:
    first, later = SAMPLES[arch]
    assert first != later
    assert tool.functions(first) == tool.functions(later)
    assert list(tool.functions(first)) == ["f"]  # a RISC-V label heads no function of its own


@pytest.mark.parametrize("arch", sorted(SAMPLES))
@pytest.mark.parametrize("change", ["instruction", "relocation"])
def test_a_changed_instruction_or_relocation_differs(arch: str, change: str) -> None:
    first, _ = SAMPLES[arch]
    old = {"x86-64": ("ret", "table-0x4"), "riscv64": ("li\ta0,1", "R_RISCV_BRANCH")}[arch]
    new = {"x86-64": ("nop", "table-0x8"), "riscv64": ("li\ta0,2", "R_RISCV_JAL")}[arch]
    i = 0 if change == "instruction" else 1
    changed = first.replace(old[i], new[i])
    assert changed != first
    assert tool.functions(changed) != tool.functions(first)


def test_instructions_count_neither_relocations_nor_labels() -> None:
    assert tool.instructions(tool.functions(X86_FIRST)["f"]) == 4
    assert tool.instructions(tool.functions(RISCV_FIRST)["f"]) == 4


def test_a_difference_in_numbers_only_is_told_from_one_in_registers() -> None:
    moved = ["mov    0x1b48(%rdi),%rax", "lw\ta5,-1288(s0)", "ldr\tx0, [x1, #16]"]
    displaced = ["mov    0x1ad8(%rdi),%rax", "lw\ta5,-1208(s0)", "ldr\tx0, [x1, #24]"]
    other_register = ["mov    0x1b48(%rdi),%rbx", "lw\ta4,-1288(s0)", "ldr\tx0, [x2, #16]"]
    assert tool._shape(moved) == tool._shape(displaced)
    for a, b in zip(moved, other_register):
        assert tool._shape([a]) != tool._shape([b])


@pytest.mark.parametrize(
    "padding",
    ["nop", "xchg   %ax,%ax", "data16 cs nopw 0x0(%rax,%rax,1)", "nopl   0x0(%rax,%rax,1)"],
)
def test_the_padding_after_a_function_is_not_its_code(padding: str) -> None:
    padded = X86_FIRST + f"      16:\t{padding}\n"
    assert tool.functions(padded) == tool.functions(X86_FIRST)
    inside = X86_FIRST.replace("      15:\tret", f"      15:\t{padding}\n      16:\tret")
    assert tool.functions(inside) != tool.functions(X86_FIRST)
