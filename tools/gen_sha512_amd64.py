"""Generate the x86-64 SHA-512 kernel in assembly (AVX2 and BMI2), two blocks at a time.

Writes ``variants/native/sha512_amd64_asm.h``: one top-level ``__asm__``
statement that defines ``vn_sha512_amd64_asm`` (the System V ABI, ELF), and
its table of round constants. ``sha512_amd64.c`` includes it.

Why assembly: the C kernel (``vn_sha512_amd64_avx2``) runs at 0.94x
OpenSSL's SHA-512 on the project's Zen 4 (16 KiB and 1 MiB), and no
formulation of it in C got further: without its message schedule at all
(wrong digests, a bound) its rounds reach only 0.97-0.99x OpenSSL's whole
function, schedule included. The rounds are bound by the integer units (22
ALU instructions a round, four ALUs), so what is left is to keep the vector
units' schedule out of their way and to choose the order of each round's
instructions, which the compiler decides for C; here the generator does.
This kernel: 1.06x OpenSSL's at 16 KiB, 1.03-1.06x at 1 MiB, 1.07x on one
block (``build/bench_kernels --core sha512``, bench/product/bench_kernels.c).

The structure (the one OpenSSL's and Intel's AVX2 code use, written here
from the algorithm, not from their code):

- Two blocks at a time. Eight ymm registers hold the last sixteen message
  words of both blocks, a pair of words of the first block in the low
  128-bit half and the same pair of the second block in the high half, so
  every step of the schedule (two words for each block: W[t], W[t+1] need
  σ1 of W[t-2] and W[t-1], both already known) is in-lane: vpalignr, shifts,
  vpshufb for the rotation by 8, no lane crossing.
- Each pair of words, plus its round constants, is stored to the stack; the
  rounds read W[t] + K[t] with the add that adds it to h.
- The first block's 80 rounds carry the schedule of both blocks (one step
  interleaved into every two rounds of the first 64); the second block's
  rounds have no vector work at all. An odd last block is scheduled beside a
  copy of itself and the second half is not run.
- Loops of sixteen rounds (after sixteen, every register is back in its
  place), 6 KiB of code. Unrolled whole (20 KiB) the kernel ran 1.08x
  OpenSSL's from C but 35 ns slower than the C kernel on a one-block message
  from Python, which evicts it from the instruction cache between calls.
- A round: T1 = h + Σ1(e) + Ch(e, f, g) + W[t] + K[t]; d += T1;
  h = T1 + Σ0(a) + Maj(a, b, c). Ch = (e & f) + (~e & g) (the halves share
  no bit; andn makes the second), Maj = b ^ ((a ^ b) & (b ^ c)) with the
  b ^ c of the round before (its a ^ b), and Σ0(a) + Maj is summed before
  it is added to T1, so that only one add follows e's chain to the new a.
  The eight variables are renamed, not moved, round by round.

    python tools/gen_sha512_amd64.py          # rewrite the header
    python tools/gen_sha512_amd64.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import generated  # noqa: E402

from variants._tables import SHA512_K  # noqa: E402

HEADER = ROOT / "variants" / "native" / "sha512_amd64_asm.h"
NAME = "vn_sha512_amd64_asm"
K2 = ".Lvn_sha512_k2"  # the round constants, each pair twice (one for each block)
MASKS = ".Lvn_sha512_masks"  # vpshufb: bytes of each word reversed; each word rotated by 8

#: The eight working variables' registers (a..h at round 0) and the rounds' temporaries.
STATE = ["%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15"]
T1, T2 = "%rax", "%rbx"
AB, BC = "%rdx", "%rsi"
#: The loops' pointers: to W + K of the sixteen rounds under way in the frame (256
#: bytes further each sixteen, both blocks' words), and to their round constants.
WKP, KP = "%rdi", "%rcx"
#: The frame: W + K of both blocks (40 pairs of 32 bytes: a pair of words of the
#: first block, then the same pair of the second), then three saved pointers.
WK_BYTES = 40 * 32
CTX, INP, END = WK_BYTES, WK_BYTES + 8, WK_BYTES + 16
FRAME = WK_BYTES + 32
#: ymm0-7 the schedule's sixteen words, ymm8-11 its temporaries, ymm14/15 the masks.
SWAP, ROT8 = "%ymm15", "%ymm14"


def ymm(n: int) -> str:
    return f"%ymm{n}"


def wk(block: int, t: int) -> str:
    """The stack slot of W[t] + K[t] of ``block`` (0 or 1), t counted from WKP's round."""
    return f"{32 * (t // 2) + 8 * (t % 2) + 16 * block}({WKP})"


def round_(v: List[str], block: int, t: int, ab: str, bc: str) -> List[str]:
    """Round ``t``: ``v`` are a..h; ``bc`` holds b ^ c and ``ab`` receives a ^ b.

    The order is measured, not derived: the best of a search over orders that keep
    the round's dependencies (neighbours swapped, a swap kept when a C harness timed
    16 KiB faster against OpenSSL), on the project's Zen 4. With the loops, the order
    first written (Σ1's rotations, Ch, then a's side, each in sequence) ran at
    1.01-1.03x OpenSSL's, this one at 1.05-1.06x; orders that begin with a's side
    ran at 0.86x. The core issues the oldest ready instructions first, so the order
    decides which instructions of e's chain wait for an ALU."""
    a, b, _c, d, e, f, g, h = v  # c is in bc
    # ab is free until a ^ b is made: it holds Ch's halves first
    return [
        f"rorx $18, {e}, {T2}",
        f"andn {g}, {e}, {ab}",  # ~e & g
        f"rorx $14, {e}, {T1}",
        f"add {wk(block, t)}, {h}",
        f"xor {T2}, {T1}",
        f"add {ab}, {h}",
        f"rorx $41, {e}, {T2}",
        f"mov {f}, {ab}",
        f"and {e}, {ab}",  # e & f
        f"add {ab}, {h}",
        f"xor {T2}, {T1}",  # Σ1(e)
        f"mov {a}, {ab}",
        f"add {T1}, {h}",  # T1
        f"rorx $34, {a}, {T2}",
        f"rorx $28, {a}, {T1}",
        f"xor {b}, {ab}",  # a ^ b, the next round's b ^ c
        f"add {h}, {d}",  # the new e
        f"xor {T2}, {T1}",
        f"rorx $39, {a}, {T2}",
        f"and {ab}, {bc}",
        f"xor {T2}, {T1}",  # Σ0(a)
        f"xor {b}, {bc}",  # Maj(a, b, c)
        f"add {T1}, {bc}",
        f"add {bc}, {h}",  # the new a
    ]


def schedule_step(s: int) -> List[str]:
    """Words 16 + 2s and 17 + 2s of both blocks (from WKP's round) into the register of
    words 2s, 2s + 1, and W + K to the stack."""
    x = [ymm((s + i) % 8) for i in range(8)]
    w15, w7, t, u = ymm(8), ymm(9), ymm(10), ymm(11)
    out = [
        f"vpalignr $8, {x[0]}, {x[1]}, {w15}",  # W[t-15], W[t-14]
        f"vpalignr $8, {x[4]}, {x[5]}, {w7}",  # W[t-7], W[t-6]
        f"vpaddq {w7}, {x[0]}, {x[0]}",
        # σ0 = ROTR1 ^ ROTR8 ^ SHR7
        f"vpsrlq $1, {w15}, {t}",
        f"vpsllq $63, {w15}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpshufb {ROT8}, {w15}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpsrlq $7, {w15}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpaddq {t}, {x[0]}, {x[0]}",
        # σ1 = ROTR19 ^ ROTR61 ^ SHR6, of W[t-2], W[t-1]
        f"vpsrlq $19, {x[7]}, {t}",
        f"vpsllq $45, {x[7]}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpsrlq $61, {x[7]}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpsllq $3, {x[7]}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpsrlq $6, {x[7]}, {u}",
        f"vpxor {u}, {t}, {t}",
        f"vpaddq {t}, {x[0]}, {x[0]}",
        f"vpaddq {32 * (8 + s)}({KP}), {x[0]}, {t}",
        f"vmovdqa {t}, {32 * (8 + s)}({WKP})",
    ]
    return out


def interleave(scalar: List[str], vector: List[str]) -> List[str]:
    """The vector instructions spread evenly among the scalar ones."""
    out: List[str] = []
    n, m = len(scalar), len(vector)
    j = 0
    for i, ins in enumerate(scalar):
        out.append(ins)
        while j < m and (j + 1) * n <= (i + 1) * m:
            out.append(vector[j])
            j += 1
    return out + vector[j:]


def rounds16(block: int, scheduled: bool) -> List[str]:
    """Sixteen rounds of ``block`` from WKP's, with the schedule of both blocks' next
    sixteen words interleaved if ``scheduled``. After sixteen rounds the variables, the
    two Maj registers and the schedule's eight are back in their places: a loop's body."""
    v = list(STATE)
    ab, bc = AB, BC
    out: List[str] = []
    for t in range(0, 16, 2):
        rounds = round_(v, block, t, ab, bc)
        v = [v[7], *v[:7]]
        ab, bc = bc, ab
        rounds += round_(v, block, t + 1, ab, bc)
        v = [v[7], *v[:7]]
        ab, bc = bc, ab
        if scheduled:
            rounds = interleave(rounds, schedule_step(t // 2))
        out += rounds
    return out


def block_rounds(block: int, scheduled: bool) -> List[str]:
    """The 80 rounds of ``block``: loops of sixteen, the first four with the schedule if
    ``scheduled`` (then the last sixteen without it)."""
    first = "sched" if scheduled else f"block{block}"
    last = 256 * (4 if scheduled else 5)  # WKP at the loop's end
    out = [f"mov {STATE[1]}, {BC}", f"xor {STATE[2]}, {BC}", f"mov %rsp, {WKP}"]
    # (the loop's head on a 64-byte line: 1.06x OpenSSL's at 16 KiB and 1 MiB, 1.04x without)
    out += [".p2align 6", f".Lvn_sha512_{first}:", *rounds16(block, scheduled)]
    out.append(f"add $256, {WKP}")
    if scheduled:
        out.append(f"add $256, {KP}")
    out += [f"lea {last}(%rsp), {T1}", f"cmp {T1}, {WKP}", f"jne .Lvn_sha512_{first}"]
    if scheduled:
        out += rounds16(block, False)
    return out


def add_state() -> List[str]:
    """state[] += a..h, and a..h = state[]."""
    out = [f"mov {CTX}(%rsp), %rdi"]
    for i, r in enumerate(STATE):
        out += [f"add {8 * i}(%rdi), {r}", f"mov {r}, {8 * i}(%rdi)"]
    return out


def block_end(step: int, jump: str) -> List[str]:
    """The state added, then ``jump`` on comparing the pair's data pointer plus ``step``
    with the end."""
    return [
        *add_state(),
        f"mov {INP}(%rsp), %rsi",
        f"add ${step}, %rsi",
        f"cmp {END}(%rsp), %rsi",
        jump,
    ]


def body() -> List[str]:
    """The function: (state = rdi, data = rsi, blocks = rdx)."""
    out = [
        "push %rbp",
        ".cfi_def_cfa_offset 16",
        ".cfi_offset %rbp, -16",
        "mov %rsp, %rbp",
        ".cfi_def_cfa_register %rbp",
    ]
    for i, r in enumerate(["%rbx", "%r12", "%r13", "%r14", "%r15"]):
        out += [f"push {r}", f".cfi_offset {r}, {-24 - 8 * i}"]
    out += [
        f"sub ${FRAME}, %rsp",
        "and $-32, %rsp",
        "shl $7, %rdx",
        "jz .Lvn_sha512_done",
        "add %rsi, %rdx",
        f"mov %rdi, {CTX}(%rsp)",
        f"mov %rdx, {END}(%rsp)",
        f"vmovdqa {MASKS}(%rip), {SWAP}",
        f"vmovdqa {MASKS}+32(%rip), {ROT8}",
    ]
    out += [f"mov {8 * i}(%rdi), {r}" for i, r in enumerate(STATE)]
    out += [
        ".Lvn_sha512_pair:",
        f"lea {K2}(%rip), {KP}",
        # the second block, or the first again if it is the last
        "lea 128(%rsi), %rdi",
        f"cmp {END}(%rsp), %rdi",
        "cmove %rsi, %rdi",
        f"mov %rsi, {INP}(%rsp)",
    ]
    for k in range(8):
        x = ymm(k)
        out += [
            f"vmovdqu {16 * k}(%rsi), %xmm{k}",
            f"vinserti128 $1, {16 * k}(%rdi), {x}, {x}",
            f"vpshufb {SWAP}, {x}, {x}",
            f"vpaddq {32 * k}({KP}), {x}, {ymm(8)}",
            f"vmovdqa {ymm(8)}, {32 * k}(%rsp)",
        ]
    out += block_rounds(0, True)
    out += block_end(128, "je .Lvn_sha512_done")  # the first block was the last
    out += block_rounds(1, False)
    out += block_end(256, "jne .Lvn_sha512_pair")  # more blocks
    out += [
        ".Lvn_sha512_done:",
        "vzeroupper",
        "lea -40(%rbp), %rsp",
    ]
    for r in ["%r15", "%r14", "%r13", "%r12", "%rbx"]:
        out.append(f"pop {r}")
    out += ["pop %rbp", ".cfi_def_cfa %rsp, 8", "ret"]
    return out


def constants() -> List[str]:
    out = [".section .rodata", ".balign 64", f"{MASKS}:"]  # (in the pushed section's place)
    swap = "0x0001020304050607, 0x08090a0b0c0d0e0f"
    rot8 = "0x0007060504030201, 0x080f0e0d0c0b0a09"
    out += [f".quad {swap}, {swap}", f".quad {rot8}, {rot8}", f"{K2}:"]
    for p in range(40):
        pair = f"0x{SHA512_K[2 * p]:016x}, 0x{SHA512_K[2 * p + 1]:016x}"
        out.append(f".quad {pair}, {pair}")
    return out


def render() -> str:
    lines = [
        "/* Code generated by tools/gen_sha512_amd64.py. DO NOT EDIT. */",
        "/*",
        " * vn_sha512_amd64_asm: SHA-512's compression function for x86-64 with AVX2",
        " * and BMI2, two blocks at a time, in assembly; tools/gen_sha512_amd64.py",
        " * says how and why. Included once, by sha512_amd64.c, where VN_AMD64_ASM.",
        " */",
        "/* clang-format off */",
        "__asm__(",
    ]
    code = [
        ".pushsection .text",
        ".p2align 6",
        f".globl {NAME}",
        f".hidden {NAME}",
        f".type {NAME}, @function",
        f"{NAME}:",
        ".cfi_startproc",
    ]
    code += ["VN_ENDBR", *body(), ".cfi_endproc", f".size {NAME}, .-{NAME}"]
    code += [*constants(), ".popsection"]
    for ins in code:
        if ins == "VN_ENDBR":
            lines.append("    VN_ENDBR")
        elif ins.endswith(":") or ins.startswith("."):
            lines.append(f'    "{ins}\\n"')
        else:
            lines.append(f'    "\\t{ins}\\n"')
    lines += [");", "/* clang-format on */", ""]
    return "\n".join(lines)


def main(argv: List[str]) -> int:
    return generated.main(argv, {HEADER: render}, __doc__ or "", "tools/gen_sha512_amd64.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
