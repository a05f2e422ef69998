"""The product's quick checks (``python -m bench check SET``): its promises, A against B.

``native``, the drop-in against hashlib (and CPython's own ``_md5``), MD5, SHA-256, SHA-1 and
SHA-512: getAndDigest of 64 bytes, ``update(16 B)``, one-shot digests of 1 KiB to 1 MiB;
``batch``, ``md5_many``, ``sha256_many``, ``sha1_many`` and ``sha512_many`` against the hashlib
loop (binary and hex digests), and ``threads=2`` against
``threads=1`` (wall clock); ``columns``, ``digest_column`` of an Arrow column of 32-byte and
1-64-byte rows against the hashlib loop over the same rows, and ``threads=0`` against
``threads=1`` over 1 KiB rows (needs pyarrow); ``cli``, whole ``variants-sum`` processes
against ``md5sum``, ``sha1sum``, ``sha256sum`` and ``sha512sum`` and ``-j 2`` against ``-j 1``
(wall clock, the files in the page cache), with the peak RSS (GNU time); the ``variants-sum``
of this environment, whose start an editable install slows (the note says so). Each target,
the least speed, is in the code here and in the table's "target" column.
``bench/product/bench_many.c`` is the same batch check from C, against OpenSSL, and
``bench/product/bench_kernels.c`` times each single-message kernel against OpenSSL's block
function (their headers say how to build them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

from ..catalog import targets
from ..catalog.cases import digest_of, jdk_pattern, messages
from ..core.fmt import size_label
from ..core.machine import PYPY
from ..core.timing import Pair, both

KIB, MIB = 1024, 1 << 20


@dataclasses.dataclass
class CheckRun:
    """A check's options (``python -m bench check``'s), and what its pairs leave behind: the
    folders to remove after it and the peak memory of the commands it ran."""

    set: str
    rounds: int = 15
    length: int = 16384  # variants, tricks: bytes
    size: str = "1G"  # cli: the big file's size
    files: int = 64  # cli: files of 16 MiB for -j
    small: int = 10_000  # cli: files of 4 KiB
    variants: str = ""
    algorithms: str = "md5,sha256"
    #: Whether the mode's JIT compiles the code (warm-ups until it settles); None: this
    #: process's own.
    jit: Optional[bool] = None
    cleanup: List[Path] = dataclasses.field(default_factory=list)
    peaks: Dict[str, int] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> CheckRun:
        """The check of ``options`` (a command line's, or those sent to a mode's process)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"cleanup", "peaks"}
        return cls(**{k: v for k, v in options.items() if k in names})


def spelled(constructor: Callable[..., Any], data: bytes) -> object:
    h = constructor()
    h.update(data)
    return h.digest()


def update(h: Any, data: bytes) -> None:
    h.update(data)


def native(args: CheckRun) -> Iterator[Pair]:
    import variants.native

    short, piece = jdk_pattern(64), jdk_pattern(16)
    at = 1.0 if PYPY else 1 / 0.65
    own = targets.load(targets.BUILTIN)
    #: one shot of 1 KiB, 16 KiB, 1 MiB: the least speed (issue 34's for SHA-1 and SHA-512)
    shots = {"md5": (1.05,) * 3, "sha256": (1.0,) * 3, "sha1": (1.1, 1.0, 0.97)}
    for alg in ("md5", "sha256", "sha1", "sha512"):
        theirs: Callable[..., Any] = getattr(hashlib, alg)
        ours: Callable[..., Any] = variants.native.bridge().constructors()[alg]
        yield both(f"{alg} getAndDigest 64 B", digest_of, theirs, ours, short, least=at)
        if alg == "md5" and not own.unavailable:
            yield both(
                "md5 getAndDigest 64 B, against _md5",
                digest_of,
                own.constructors["md5"],
                ours,
                short,
                least=1.0,
            )
        if not PYPY:
            yield both(f"{alg} new, update, digest, 64 B", spelled, theirs, ours, short, least=at)
            yield both(f"{alg} update(16 B)", update, theirs(), ours(), piece, least=1.0)
        for length, least in zip((KIB, 16 * KIB, MIB), shots.get(alg, shots["sha1"])):
            least = min(least, 1.0) if PYPY else least
            label = f"{alg} one shot {size_label(length)}"
            yield both(label, digest_of, theirs, ours, jdk_pattern(length), least=least)


def loop(constructor: Callable[..., Any], rows: List[bytes], hexdigest: bool = False) -> object:
    """The hashlib loop that a batch or a column replaces."""
    if hexdigest:
        return [constructor(m).hexdigest() for m in rows]
    return [constructor(m).digest() for m in rows]


def batch(args: CheckRun) -> Iterator[Pair]:
    import variants
    from variants.native import kernel

    avx512 = "AVX-512" in kernel().get("md5-many", "")
    sizes = [
        (256, 4 * KIB, {"md5": 8.0 if avx512 else 5.0, "sha256": 1.7}),
        (1_000_000, 32, {"md5": 10.0, "sha256": 8.0, "sha1": 5.0, "sha512": 5.0}),
    ]
    for alg in ("md5", "sha256", "sha1", "sha512"):
        many: Callable[..., List[bytes]] = getattr(variants, f"{alg}_many")
        one: Callable[..., Any] = getattr(hashlib, alg)
        for number, length, least in sizes:
            msgs = messages(length, number)
            assert many(msgs[:100]) == loop(one, msgs[:100])
            for hexdigest in (False, True):
                out = "hex" if hexdigest else "binary"
                label = f"{alg}_many {number} x {length} B, {out}"
                theirs, ours = partial(loop, one, msgs, hexdigest), partial(many, msgs)
                yield Pair(
                    label, theirs, partial(ours, hexdigest=hexdigest), least.get(alg), items=number
                )
        big = [jdk_pattern(64 * KIB)] * 256
        yield Pair(
            f"{alg}_many 256 x 64 KiB, threads=2 vs 1",
            partial(many, big, threads=1),
            partial(many, big, threads=2),
            1.8,
            "wall",
        )


def ascii_rows(rows: int, length: int) -> List[bytes]:
    """``rows`` distinct ASCII rows: of ``length`` bytes, or of 1 to 64 (``length`` 0)."""
    import random

    rng = random.Random(1)
    sizes = [length or rng.randint(1, 64) for _ in range(rows)]
    return [bytes(rng.choices(range(97, 123), k=n)) for n in sizes]


def columns(args: CheckRun) -> Iterator[Pair]:
    import pyarrow as pa  # type: ignore[import-not-found,import-untyped,unused-ignore]

    import variants

    for shape, length, rows in (("32 B", 32, 1_000_000), ("1-64 B", 0, 1_000_000)):
        data = ascii_rows(rows, length)
        column = pa.array(data, type=pa.binary())
        for alg, least in (("md5", 25.0), ("sha256", 12.0), ("sha1", None), ("sha512", None)):
            one: Callable[..., Any] = getattr(hashlib, alg)
            mine = partial(variants.digest_column, alg, column, hexdigest=True)
            assert mine().to_pylist()[:50] == loop(one, data[:50], True)
            yield Pair(
                f"{alg}_column hex, {rows:,} rows of {shape}",
                partial(loop, one, data, True),
                mine,
                least,
                items=rows,
            )
    wide = pa.array(ascii_rows(100_000, 1024), type=pa.binary())
    for alg in ("md5", "sha256"):
        over = partial(variants.digest_column, alg, wide)
        two = 1.8 if (os.cpu_count() or 1) > 1 else None
        yield Pair(
            f"{alg}_column 100,000 x 1 KiB, threads=0 vs 1",
            partial(over, threads=1),
            partial(over, threads=0),
            two,
            "wall",
        )


def run_command(command: List[str], peaks: Dict[str, int]) -> None:
    """Run ``command``, under GNU time where there is one: variants-sum's peak RSS."""
    gnu_time = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
    with tempfile.NamedTemporaryFile("r") as usage:
        wrapped = [gnu_time, "-f", "%M", "-o", usage.name, *command] if gnu_time else command
        subprocess.run(wrapped, stdout=subprocess.DEVNULL, check=True)
        if gnu_time and Path(command[0]).name not in ("md5sum", "sha256sum"):
            peaks[command[0]] = max(peaks.get(command[0], 0), int(usage.read().split()[-1]) * KIB)


def parse_size(text: str) -> int:
    units = {"K": KIB, "M": MIB, "G": 1 << 30}
    unit = units.get(text[-1:].upper())
    return int(float(text[:-1]) * unit) if unit else int(text)


def cli(args: CheckRun) -> Iterator[Pair]:
    script = Path(sys.executable).parent / "variants-sum"
    tool = [str(script)] if script.exists() else [sys.executable, "-m", "variants"]
    folder = Path(tempfile.mkdtemp(prefix="bench-cli-", dir="/tmp"))
    args.cleanup.append(folder)
    block = os.urandom(MIB)
    big, parts = folder / "big.bin", [folder / f"part{i:02d}.bin" for i in range(args.files)]
    for path, size in [(big, parse_size(args.size)), *((p, 16 * MIB) for p in parts)]:
        with open(path, "wb") as f:
            for start in range(0, size, MIB):
                f.write(block[: min(MIB, size - start)])
    small = folder / "small"
    small.mkdir()
    names = [str(small / f"f{i:05d}") for i in range(args.small)]
    for i, name in enumerate(names):  # 256 contents in turn; the page cache warm from writing
        Path(name).write_bytes(block[i % 256 * 4 * KIB :][: 4 * KIB])
    note = "editable install" if editable() else ""
    for alg in ("md5", "sha1", "sha512"):
        theirs, ours = [f"{alg}sum", *names], [*tool, "-a", alg, *names]
        agree(alg, theirs, ours, "the small files")
        label = f"variants-sum -a {alg} vs {alg}sum, {args.small:,} files of 4 KiB"
        pair = both(label, run_command, theirs, ours, args.peaks, least=1.0, clock="wall", loops=1)
        yield dataclasses.replace(pair, note=note)
    for alg, least in (("md5", 1.1), ("sha256", 3.0), ("sha1", 1.0), ("sha512", 1.0)):
        theirs, ours = [f"{alg}sum", str(big)], [*tool, "-a", alg, str(big)]
        agree(alg, theirs, ours, big.name)
        yield both(
            f"variants-sum -a {alg} vs {alg}sum",
            run_command,
            theirs,
            ours,
            args.peaks,
            least=least,
            clock="wall",
            loops=1,
        )
        if alg in ("md5", "sha256"):
            jobs = [[*tool, "-a", alg, "-j", j, *map(str, parts)] for j in ("1", "2")]
            yield both(
                f"-a {alg} -j 2 vs -j 1, {args.files} x 16 MiB",
                run_command,
                *jobs,
                args.peaks,
                least=1.6,
                clock="wall",
                loops=1,
            )


def agree(alg: str, theirs: List[str], ours: List[str], what: str) -> None:
    """variants-sum prints what coreutils prints, or the check stops."""
    if (
        subprocess.run(ours, capture_output=True, check=True).stdout
        != subprocess.run(theirs, capture_output=True, check=True).stdout
    ):
        raise SystemExit(f"variants-sum -a {alg} and {alg}sum disagree on {what}")


def editable() -> bool:
    """Whether this environment's variants is an editable install (``pip install -e``), whose
    import finder costs a short run of variants-sum about a fifth of its time."""
    for dist in metadata.distributions(name="hashlib-variants"):
        text = dist.read_text("direct_url.json")  # None in a source tree's egg-info
        if text and json.loads(text).get("dir_info", {}).get("editable"):
            return True
    return False


SETS: Dict[str, Callable[[CheckRun], Iterator[Pair]]] = {
    "native": native,
    "batch": batch,
    "columns": columns,
    "cli": cli,
}
