"""variants-sum as a command: its own options, variants, help, version, exit statuses.

What is checked here is variants-sum's own (``-a`` and its default,
``--variant``, ``--list-variants``, ``--jobs``, the help) or has a literal
expectation; the expected digests come from hashlib. None of it needs
coreutils (``test_cli_coreutils`` compares with it).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest
from cli_support import COMMAND, digest_line, ours, run

from variants import registry

ALGORITHMS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")
CONTENTS: Dict[str, bytes] = {"plain.txt": b"hello\n", "binary.bin": bytes(range(256)) * 9}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A directory with two small files."""
    for name, data in CONTENTS.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def _lines(algorithm: str) -> bytes:
    return b"".join(digest_line(algorithm, data, name) for name, data in CONTENTS.items())


def test_invalid_jobs(files: Path) -> None:
    for value in ("x", "-1", ""):
        got = ours("md5", [f"--jobs={value}", "plain.txt"], files)
        assert got.status == 1
        assert b"invalid number of jobs" in got.stderr
        assert b"Try 'variants-sum --help'" in got.stderr


def test_default_algorithm_is_sha256(files: Path) -> None:
    assert ours(None, list(CONTENTS), files) == (0, _lines("sha256"), b"")


def test_check_without_algorithm_takes_it_from_each_line(files: Path) -> None:
    data = CONTENTS["plain.txt"]
    gnu = [digest_line(algorithm, data, "plain.txt") for algorithm in ALGORITHMS]
    bsd = [
        b"%s (plain.txt) = %s\n"
        % (algorithm.upper().encode(), hashlib.new(algorithm, data).hexdigest().encode())
        for algorithm in ALGORITHMS
    ]
    # The last line's digest has no algorithm's length.
    listing = b"".join([*gnu, *bsd, b"0123  plain.txt\n"])
    (files / "all.sums").write_bytes(listing)
    got = ours(None, ["-c", "-w", "all.sums"], files)
    assert got.stdout == b"plain.txt: OK\n" * 12
    assert got.stderr == (
        b"variants-sum: all.sums: 13: improperly formatted checksum line\n"
        b"variants-sum: WARNING: 1 line is improperly formatted\n"
    )
    assert got.status == 0


def test_unknown_algorithm(files: Path) -> None:
    got = ours("sha3-256", ["plain.txt"], files, locale="C.UTF-8")
    assert got.status == 1
    assert got.stderr.startswith(
        "variants-sum: invalid argument ‘sha3-256’ for ‘--algorithm’\n".encode()
    )
    assert b"\n  - \xe2\x80\x98sha512\xe2\x80\x99" in got.stderr  # the valid ones listed
    assert got.stdout == b""


def test_variant_option(files: Path) -> None:
    assert ours("md5", ["--variant", "helpers", *CONTENTS], files) == (0, _lines("md5"), b"")
    got = ours("md5", ["--variant=no-such", "plain.txt"], files)
    assert got.status == 1
    assert got.stderr.startswith(b"variants-sum: variant ")
    assert b"unknown variant 'no-such'" in got.stderr
    got = ours("md5", [b"--variant=\xff", "plain.txt"], files)  # not UTF-8: no crash
    assert (got.status, got.stdout) == (1, b"")
    assert got.stderr.startswith(b"variants-sum: variant ") and b"\xff" in got.stderr
    for entry in registry.VARIANTS:  # one that lacks an algorithm, if there is one
        missing = sorted(set(ALGORITHMS) - set(entry.algorithms))
        if missing and registry.status(entry.name) is None:
            got = ours(missing[0], [f"--variant={entry.name}", "plain.txt"], files)
            assert got.status == 1
            assert f"does not provide {missing[0]}".encode() in got.stderr
            break


def test_list_variants(tmp_path: Path) -> None:
    got = ours(None, ["--list-variants"], tmp_path)
    assert got.status == 0
    assert got.stderr == b""
    lines = got.stdout.decode().splitlines()
    assert lines[0].split() == ["VARIANT", "KIND", "ALGORITHMS", "HERE"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == registry.names()
    defaults = [name for name, line in rows.items() if "(default)" in line]
    assert len(defaults) == 1
    for entry in registry.VARIANTS:
        line = rows[entry.name]
        assert entry.kind in line
        assert " ".join(entry.algorithms) in line
        problem = registry.status(entry.name)
        if problem is None:
            assert "importable" in line and "not importable" not in line
            details = registry.load(entry.name).details
            if details:
                assert details in line
        else:
            assert "not importable: " in line


def test_help_and_version(tmp_path: Path) -> None:
    helped = ours(None, ["--help", "--no-such-option"], tmp_path)  # acts where it stands
    assert helped.status == 0
    assert helped.stdout.startswith(b"Usage: variants-sum [OPTION]... [FILE]...\n")
    for option in (b"--check", b"--tag", b"--zero", b"--jobs", b"--variant", b"--list-variants"):
        assert option in helped.stdout
    version = ours(None, ["--version"], tmp_path)
    assert version.status == 0
    assert version.stdout.startswith(b"variants-sum (variants) ")


def test_module_entry_point(files: Path) -> None:
    """``python -m variants``."""
    assert run([*COMMAND, "-a", "sha224", "--", *CONTENTS], files) == (0, _lines("sha224"), b"")


def test_console_script(files: Path) -> None:
    """The ``variants-sum`` script, where the package is installed."""
    script = Path(sys.executable).parent / "variants-sum"
    if not script.exists():
        pytest.skip("the package is not installed here (no variants-sum script)")
    got = run([str(script), "-a", "sha224", "--", *CONTENTS], files)
    assert got == (0, _lines("sha224"), b"")


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_write_error_status(files: Path, buffered: bool) -> None:
    """Output to a full disk: one "write error" at the end and status 1, as coreutils says.

    Whether Python buffers stdout (PYTHONUNBUFFERED) must not matter: bytes
    left in its buffer would fail again at exit, with status 120.
    """
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*COMMAND, "-a", "md5", "plain.txt", "missing", "binary.bin"],
            cwd=files,
            stdout=full,
            stderr=subprocess.PIPE,
            env=env,
        )
    assert done.stderr == (
        b"variants-sum: missing: No such file or directory\nvariants-sum: write error\n"
    )
    assert done.returncode == 1
