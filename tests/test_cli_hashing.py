"""variants-sum's engine: reading in chunks, reading ahead, read errors, ``-j``.

The expected digests come from hashlib; none of these needs coreutils.
"""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List

import pytest
from cli_support import COMMAND, digest_line, ours

import variants
from variants.cli import hashing, options, reading

#: The name of the thread that reads ahead.
READ_AHEAD_THREAD = "variants-sum read-ahead"


def _reads_failing_at(call: int, reads: List[int]) -> Callable[[int], reading.Read]:
    """A ``reading.reader`` whose ``call``-th read of a file fails; ``reads`` gets the sizes."""
    real = reading.reader

    def failing(fd: int) -> reading.Read:
        read = real(fd)
        calls: List[int] = []

        def flaky(view: memoryview) -> int:
            calls.append(1)
            reads.append(len(view))
            if len(calls) == call:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return read(view)

        return flaky

    return failing


def test_read_error_after_some_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that fails part way: its message, no line for it, the others hashed."""
    monkeypatch.setattr(reading, "CHUNK", 64)
    monkeypatch.setattr(reading, "reader", _reads_failing_at(3, []))
    (tmp_path / "long.bin").write_bytes(bytes(1000))
    (tmp_path / "short.txt").write_bytes(b"hello\n")  # read whole at the first read
    got = ours("md5", ["-j", "1", "long.bin", "short.txt"], tmp_path)  # one file at a time
    assert got.status == 1
    assert got.stdout == digest_line("md5", b"hello\n", "short.txt")
    assert got.stderr == b"variants-sum: long.bin: Input/output error\n"


@pytest.mark.parametrize("read_ahead", [False, True])
@pytest.mark.parametrize("length", [0, 63, 64, 65, 64 * 8, 64 * 8 + 1, 64 * 8 * 3 + 7, 10_000])
def test_chunked_reading_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_ahead: bool, length: int
) -> None:
    """Reading in turn or ahead on a thread, any file length hashes whole (64-byte chunks)."""
    monkeypatch.setattr(reading, "CHUNK", 64)
    data = bytes((i * 7 + 3) & 0xFF for i in range(length))
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    hasher = hashing.Hasher(variants.default_variant.constructors, read_ahead=read_ahead)
    for algorithm in ("md5", "sha256", "sha1", "sha512"):
        outcome = hasher(os.fsencode(path), algorithm)
        assert outcome.digest == hashlib.new(algorithm, data).digest()


def test_read_ahead_stops_its_thread_on_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read error on the reading thread is the file's error, and the thread ends."""
    monkeypatch.setattr(reading, "CHUNK", 64)
    reads: List[int] = []
    monkeypatch.setattr(reading, "reader", _reads_failing_at(4, reads))
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(64 * 8 * 10))
    hasher = hashing.Hasher(variants.get("helpers").constructors, read_ahead=True)
    outcome = hasher(os.fsencode(path), "md5")
    assert outcome.digest is None and outcome.error is not None
    assert outcome.error.errno == errno.EIO
    assert reads[:2] == [64, 64 * 8]  # one chunk in turn, then the thread's larger buffers
    assert not [t for t in threading.enumerate() if t.name == READ_AHEAD_THREAD]
    # Cancelled part way (as -j does on an error elsewhere): the thread ends too.
    monkeypatch.undo()
    monkeypatch.setattr(reading, "CHUNK", 64)
    hasher.cancel.set()
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(hashing.Cancelled):
            hasher.hash_descriptor(fd, "md5")
    finally:
        os.close(fd)
    assert not [t for t in threading.enumerate() if t.name == READ_AHEAD_THREAD]


def _write_once_opened(
    path: Path, data: bytes, deadline: float, errors: List[BaseException]
) -> None:
    """Write ``data`` into the FIFO ``path`` as soon as a reader opens it (until ``deadline``)."""
    try:
        while True:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:  # ENXIO: no reader yet
                if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
                continue
            os.set_blocking(fd, True)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            return
    except BaseException as exc:
        errors.append(exc)


def test_jobs_keep_argument_order_behind_a_slow_first_file(tmp_path: Path) -> None:
    """With -j 2, the first file (a FIFO) has no data until the last has been read whole.

    The files after it are hashed meanwhile (one at a time would wait for the
    first forever), yet the lines come out in argument order.
    """
    first, middle, last = tmp_path / "first", tmp_path / "middle", tmp_path / "last"
    os.mkfifo(first)
    os.mkfifo(last)
    middle.write_bytes(b"middle\n")
    errors: List[BaseException] = []
    deadline = time.monotonic() + 20

    def feed() -> None:
        _write_once_opened(last, b"last\n", deadline, errors)
        _write_once_opened(first, b"first\n", deadline, errors)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        done = subprocess.run(
            [*COMMAND, "-a", "md5", "-j", "2", "first", "middle", "last"],
            cwd=tmp_path,
            capture_output=True,
            timeout=30,
        )
    finally:
        feeder.join(30)
    assert not errors, "the FIFOs were not read in time: the files were not hashed at once"
    assert done.stderr == b""
    assert done.returncode == 0
    assert done.stdout == b"".join(
        digest_line("md5", data, name)
        for name, data in (("first", b"first\n"), ("middle", b"middle\n"), ("last", b"last\n"))
    )


def test_jobs_zero_means_one_per_cpu(tmp_path: Path) -> None:
    assert options.parse_args(["-j", "0"]).jobs == (os.cpu_count() or 1)
    assert options.parse_args(["--jobs=0"]).jobs == (os.cpu_count() or 1)
    contents = {f"file{i}": f"{i}\n".encode() for i in range(5)}
    for name, data in contents.items():
        (tmp_path / name).write_bytes(data)
    got = ours("sha224", ["-j", "0", *contents], tmp_path)
    expected = b"".join(digest_line("sha224", data, name) for name, data in contents.items())
    assert got == (0, expected, b"")
