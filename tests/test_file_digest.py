"""variants.file_digest: hashlib.file_digest's behaviour, on every Python from 3.9."""

from __future__ import annotations

import hashlib
import io
import socket
import sys
import threading
from pathlib import Path
from typing import Callable, List, Optional

import pytest

import variants
from variants import _files, registry

from conftest import jdk_pattern

SIZES = [0, 1, 63, 64, 65, 127, 128, 129, 200, 1000]


def _expected(algorithm: str, data: bytes) -> str:
    return hashlib.new(algorithm, data).hexdigest()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", sorted(variants.algorithms_available))
def test_files_and_buffers(tmp_path: Path, algorithm: str, size: int) -> None:
    data = jdk_pattern(size)
    path = tmp_path / "data"
    path.write_bytes(data)
    with open(path, "rb") as buffered:
        got = variants.file_digest(buffered, algorithm, _bufsize=64)
    assert got.hexdigest() == _expected(algorithm, data)
    assert got.name == algorithm
    with open(path, "rb", buffering=0) as raw:
        assert variants.file_digest(raw, algorithm, _bufsize=7).hexdigest() == got.hexdigest()
    assert variants.file_digest(io.BytesIO(data), algorithm).hexdigest() == got.hexdigest()
    assert variants.file_digest(io.BufferedReader(io.BytesIO(data)), algorithm).hexdigest() == (
        got.hexdigest()
    )


def test_default_chunk_is_large_and_reused() -> None:
    """Reads go into one buffer of the default chunk size, so memory stays bounded."""

    class Recorder(io.RawIOBase):
        def __init__(self, size: int) -> None:
            self.left = size
            self.buffers: List[int] = []
            self.sizes: List[int] = []

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
            self.buffers.append(id(buffer))
            self.sizes.append(len(buffer))
            n = min(self.left, len(buffer))
            buffer[:n] = bytes(n)
            self.left -= n
            return n

    chunk = _files.CHUNK
    assert chunk >= 1 << 16
    reader = Recorder(5 * chunk + 1)
    got = variants.file_digest(reader, hashlib.md5)  # quick: hashlib's hashing
    assert got.hexdigest() == hashlib.md5(bytes(5 * chunk + 1)).hexdigest()
    assert set(reader.sizes) == {chunk}
    assert len(set(reader.buffers)) == 1
    assert len(reader.sizes) == 7  # five full chunks, one byte, then end of file


def test_bytesio_is_hashed_whole_like_hashlib() -> None:
    buffer = io.BytesIO(b"abcdef")
    buffer.seek(3)
    got = variants.file_digest(buffer, "sha256").hexdigest()
    assert got == hashlib.sha256(b"abcdef").hexdigest()
    buffer.write(b"more")  # the buffer was released: it can grow again
    if sys.version_info >= (3, 11):  # last: PyPy's hashlib holds the buffer until it is collected
        ours = variants.file_digest(buffer, "sha256").digest()
        assert ours == hashlib.file_digest(buffer, "sha256").digest()


def test_socket(tmp_path: Path) -> None:
    data = jdk_pattern(300)
    left, right = socket.socketpair()

    def send() -> None:
        left.sendall(data)
        left.close()

    with left, right:
        sender = threading.Thread(target=send)
        sender.start()
        with right.makefile("rb") as reader:
            got = variants.file_digest(reader, "sha224", _bufsize=64)
        sender.join()
    assert got.hexdigest() == _expected("sha224", data)


@pytest.mark.parametrize(
    "digest",
    [
        variants.sha256,
        lambda: variants.get("helpers").constructor("sha256")(),
        lambda: hashlib.sha256(),  # anything returning a hash object
        "SHA256",
        "sha256",
    ],
    ids=["constructor", "variant", "hashlib", "upper-case-name", "name"],
)
def test_digest_argument(digest: object) -> None:
    got = variants.file_digest(io.BytesIO(b"abc"), digest)  # type: ignore[call-overload]
    assert got.hexdigest() == hashlib.sha256(b"abc").hexdigest()


def test_returns_what_the_callable_returns() -> None:
    made: List[object] = []

    def make() -> hashlib._Hash:
        h = hashlib.md5()
        made.append(h)
        return h

    assert variants.file_digest(io.BytesIO(b"x"), make) is made[0]


def test_every_variant(tmp_path: Path) -> None:
    path = tmp_path / "data"
    path.write_bytes(jdk_pattern(130))
    for name in registry.available():
        loaded = variants.get(name)
        for algorithm, constructor in loaded.constructors.items():
            with open(path, "rb") as f:
                got = variants.file_digest(f, constructor, _bufsize=64)
            assert got.hexdigest() == _expected(algorithm, jdk_pattern(130)), name


def _message(fileobj: object) -> str:
    return f"'{fileobj!r}' is not a file-like object in binary reading mode."


def test_text_file_refused_like_hashlib(tmp_path: Path) -> None:
    path = tmp_path / "text"
    path.write_text("abc")
    with open(path) as text:
        with pytest.raises(ValueError) as ours:
            variants.file_digest(text, "md5")  # type: ignore[call-overload]
        assert str(ours.value) == _message(text)
        if sys.version_info >= (3, 11):
            with pytest.raises(ValueError) as theirs:
                hashlib.file_digest(text, "md5")  # type: ignore[arg-type]
            assert str(ours.value) == str(theirs.value)


def test_unreadable_file_refused(tmp_path: Path) -> None:
    message = "not a file-like object in binary reading mode"
    with open(tmp_path / "out", "wb") as out, pytest.raises(ValueError, match=message):
        variants.file_digest(out, "md5")
    with pytest.raises(ValueError):
        variants.file_digest(object(), "md5")  # type: ignore[call-overload]


def test_unknown_algorithm() -> None:
    with pytest.raises(ValueError, match=r"unsupported hash (type|algorithm) sha3_256"):
        variants.file_digest(io.BytesIO(b""), "sha3_256")


def test_non_blocking_file_with_no_data() -> None:
    class Empty(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: object) -> Optional[int]:
            return None  # what a non-blocking file says when no data is ready

    with pytest.raises(BlockingIOError):
        variants.file_digest(Empty(), "md5")


def test_exported() -> None:
    assert "file_digest" in variants.__all__
    assert variants.file_digest.__doc__
    make: Callable[[], object] = variants.md5
    assert variants.file_digest(io.BytesIO(b""), make) is not None
