"""variants-sum hashing several files at once through the native lanes (variants.cli.lanes).

Without ``-j`` and with the native variant, the files of a window go together:
small ones read whole in one batch, large ones streamed a round of chunks at a
time. The output, messages and exit status must be those of the one-file path
(``-j 1``), which the coreutils comparisons check, whatever the mix.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import List

import pytest
from cli_support import digest_line, ours, run

from variants import _many, registry
from variants.cli import lanes, reading

from conftest import BRIDGES, jdk_pattern, load_or_skip

#: Small limits, so that a few files fill several windows, groups and rounds.
LIMITS = {"WINDOW": 5, "LANES": 3, "SMALL": 1000, "ROUND_CHUNK": 4096}


@pytest.fixture(params=BRIDGES)
def bridge(request: pytest.FixtureRequest) -> str:
    """Each native variant (its lanes: C reads small files for one, Python for the other)."""
    load_or_skip(request.param)
    return str(request.param)


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in LIMITS.items():
        monkeypatch.setattr(lanes, name, value)
    monkeypatch.setattr(_many, "BATCH_BYTES", 3000)  # small files read in Python (cffi bridge)


def make_files(folder: Path) -> List[str]:
    """Files of every kind the lanes treat differently, in an order that mixes them."""
    sizes = {"empty": 0, "tiny": 5, "at-small": 1000, "over-small": 1001, "large": 50_000}
    sizes.update({"larger": 123_457, "small2": 999, "large2": 9000, "large3": 4096 * 3})
    for name, size in sizes.items():
        (folder / name).write_bytes(jdk_pattern(size + len(name))[len(name) :])
    (folder / "a-dir").mkdir()
    return [
        "large",
        "tiny",
        "missing",
        "larger",
        "empty",
        "a-dir",
        "at-small",
        "large",  # the same file twice in one group
        "over-small",
        "small2",
        "large2",
        "large3",
        "tiny",
    ]


@pytest.mark.parametrize("algorithm", ["md5", "sha224", "sha256", "sha1", "sha512"])
def test_lanes_give_what_one_file_at_a_time_gives(
    tmp_path: Path, small_limits: None, bridge: str, algorithm: str
) -> None:
    names = make_files(tmp_path)
    together = ours(algorithm, ["--variant", bridge, *names], tmp_path)
    alone = ours(algorithm, ["--variant", bridge, "-j", "1", *names], tmp_path)
    assert together == alone
    assert together.status == 1  # the missing file and the directory
    for name in set(names) - {"missing", "a-dir"}:
        line = digest_line(algorithm, (tmp_path / name).read_bytes(), name)
        assert line in together.stdout
    assert together.stderr.count(b"variants-sum: ") == 2


def test_standard_input_in_the_middle(tmp_path: Path, bridge: str) -> None:
    names = make_files(tmp_path)
    args = ["-a", "md5", "--variant", bridge, *names[:4], "-", *names[4:]]
    together = run([*lanes_command(), *args], tmp_path, stdin=b"from stdin")
    alone = run([*lanes_command(), *args, "-j", "1"], tmp_path, stdin=b"from stdin")
    assert together == alone
    assert digest_line("md5", b"from stdin", "-") in together.stdout


def lanes_command() -> List[str]:
    import sys

    return [sys.executable, "-m", "variants"]


def test_a_read_error_while_streaming(
    tmp_path: Path, small_limits: None, bridge: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large file whose third chunk cannot be read: its message, the others hashed."""
    names = make_files(tmp_path)
    bad = os.stat(tmp_path / "larger").st_ino
    real_reader = reading.reader

    def reader(fd: int) -> reading.Read:
        read = real_reader(fd)
        if os.fstat(fd).st_ino != bad:
            return read
        calls: List[int] = []

        def failing(view: memoryview) -> int:
            calls.append(1)
            if len(calls) == 3:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return read(view)

        return failing

    monkeypatch.setattr(reading, "reader", reader)
    got = ours("md5", ["--variant", bridge, *names], tmp_path)
    assert got.status == 1
    assert b"variants-sum: larger: Input/output error\n" in got.stderr
    assert b"  larger\n" not in got.stdout
    assert digest_line("md5", (tmp_path / "large3").read_bytes(), "large3") in got.stdout


def test_many_small_files_and_their_order(tmp_path: Path, bridge: str) -> None:
    """More files than a window, all small: each line in argument order."""
    names = [f"f{i:04d}" for i in range(2500)]
    for i, name in enumerate(names):
        (tmp_path / name).write_bytes(jdk_pattern(i % 300))
    order = names[::-1]
    got = ours("sha256", ["--variant", bridge, *order], tmp_path)
    assert got.status == 0
    expected = b"".join(
        f"{hashlib.sha256(jdk_pattern(int(n[1:]) % 300)).hexdigest()}  {n}\n".encode()
        for n in order
    )
    assert got.stdout == expected


def test_lanes_are_for_the_native_variants(bridge: str) -> None:
    assert registry.load(bridge).bridge is not None
    assert [v.name for v in registry.VARIANTS if v.bridge] == BRIDGES
    assert all(registry.load(name).bridge is None for name in ("helpers", "hashlib"))
