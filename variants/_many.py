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

import os
from typing import Any, Callable, Iterable, List, Sequence, Union

from variants._shell import Constructor, as_bytes

#: A provider's own batch: (algorithm, the messages, hexdigest, threads) ->
#: the digests, with the errors ``checked`` raises.
DigestMany = Callable[[str, Iterable[object], bool, int], List[Any]]


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
