"""Many messages at once: what ``digest_many`` does for every variant.

Every variant offers ``digest_many(name, messages, *, hexdigest=False,
threads=1)``: the digests of ``messages`` (any iterable of bytes-like
objects) in input order, as ``[hashlib.new(name, m).digest() for m in
messages]`` would give them. The native variant brings its own, which hashes
many messages at once in SIMD lanes (``variants/native/many.c``); the others
loop over their constructor here. A message that is not bytes-like raises
hashlib's error, naming its index, before anything is hashed.
"""

from __future__ import annotations

import io
import os
import stat

from variants._shell import Constructor, as_bytes
from variants._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

#: Bytes of small files held before they are hashed, by ``digest_files``.
BATCH_BYTES = 8 << 20


def thread_count(threads: object) -> int:
    """The number of threads ``threads`` asks for: itself, or every CPU for 0."""
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError(f"threads must be an int, not {type(threads).__name__}")
    if threads < 0:
        raise ValueError(f"threads must be 0 (every CPU) or more, not {threads}")
    return threads or cpus()


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def bytes_of(message: object, index: int, what: str = "messages") -> Union[bytes, memoryview]:
    """The bytes of ``message``, or hashlib's error for it, naming it ``what[index]``."""
    if type(message) is bytes:
        return message
    try:
        return as_bytes(message)
    except (TypeError, BufferError) as exc:
        raise type(exc)(f"{what}[{index}]: {exc}") from None


def checked(messages: Iterable[object]) -> List[object]:
    """``messages`` as a list, each bytes-like, or hashlib's error naming the first that is not."""
    items = list(messages)
    for index, message in enumerate(items):
        bytes_of(message, index)
    return items


def loop(
    constructor: Constructor, items: Sequence[object], hexdigest: bool, threads: int
) -> List[Any]:
    """The digests of ``items`` one by one, on ``threads`` threads (each a contiguous slice)."""

    def run(part: Sequence[object]) -> List[Any]:
        if hexdigest:
            return [constructor(message).hexdigest() for message in part]
        return [constructor(message).digest() for message in part]

    if threads <= 1 or len(items) < 2:
        return run(items)
    from concurrent.futures import ThreadPoolExecutor  # (only here: it is slow to import)

    size = -(-len(items) // threads)
    parts = [items[start : start + size] for start in range(0, len(items), size)]
    with ThreadPoolExecutor(len(parts)) as pool:
        return [digest for part in pool.map(run, parts) for digest in part]


def digest_files(
    digests: Callable[[List[bytes]], List[bytes]], names: Sequence[bytes], small: int
) -> List[Union[bytes, int, None]]:
    """Per file name: its digest if it is a regular file of at most ``small`` bytes (read
    whole here, then hashed by ``digests`` with others, ``BATCH_BYTES`` at a time), an
    errno if it cannot be opened or read, else None. (The C-API bridge reads in C.)"""
    results: List[Union[bytes, int, None]] = [None] * len(names)
    held: Dict[int, bytes] = {}
    size = 0

    def flush() -> None:
        for i, digest in zip(held, digests(list(held.values()))):
            results[i] = digest
        held.clear()

    for i, name in enumerate(names):
        try:
            data = _small_file(name, small)
        except OSError as exc:
            results[i] = exc.errno or 0
            continue
        if data is not None:
            held[i] = data
            size += len(data)
        if size > BATCH_BYTES:
            flush()
            size = 0
    flush()
    return results


def _small_file(name: bytes, small: int) -> Optional[bytes]:
    """The bytes of the file called ``name`` if it is a regular file of at most ``small``
    bytes, else None."""
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > small:
            return None
        # Into one buffer of the limit and a byte: ``os.read`` of a large size would
        # allocate and fault in that size each time.
        view = memoryview(bytearray(small + 1))
        got = 0
        with io.FileIO(fd, "rb", closefd=False) as raw:
            while got < len(view):
                count = raw.readinto(view[got:])
                if not count:
                    break
                got += count
        return bytes(view[:got]) if got <= small else None
    finally:
        os.close(fd)
