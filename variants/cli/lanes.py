"""Hashing many files at once through the native variant's lanes.

One file at a time leaves the SIMD lanes idle: an MD5 stream is bound by its
dependency chain, a SHA-256 one by the latency of the SHA-NI rounds. With
more than one file to hash and no ``-j`` (which asks for threads instead),
the files of a window of arguments are hashed together, and their outcomes
handed back in argument order:

- small regular files (at most ``SMALL`` bytes) are read whole and hashed in
  one batch (``digest_files`` in C where the bridge has it: the reads, on a
  thread per CPU, and the hashing without the GIL and without a Python call
  per file; else read here and hashed with ``digest_many``);
- larger regular files stream through the lanes together, ``LANES`` at a
  time, a chunk of each per round (``absorb_many``), while a second thread
  reads the next round;
- anything else (standard input, a pipe, a device, a file that cannot be
  opened or read) goes through the one-file path, which gives coreutils'
  messages.

Memory stays bounded whatever the number of files: a window of ``WINDOW``
names, a batch of small files of a few MiB, and ``ROUNDS`` rounds of a chunk
per streaming file.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading
from types import ModuleType
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from variants._many import cpus
from variants.cli import reading
from variants.cli.hashing import Cancelled, Hasher, Outcome
from variants.cli.progress import Progress

#: Names taken at a time from the arguments.
WINDOW = 1024
#: The largest file read whole into the batch of small files.
SMALL = 256 << 10
#: Files streaming through the lanes at once, and the bytes read from each per round.
LANES = 16
ROUND_CHUNK = 256 << 10
#: Rounds read ahead of the one being hashed (each a chunk per streaming file).
ROUNDS = 2
#: Bytes of small files read by Python (without ``digest_files``) before they are hashed.
BATCH_BYTES = 8 << 20

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def usable(provider: Optional[ModuleType], count: int) -> bool:
    """Whether the files are better hashed in lanes: a native bridge and more than one file."""
    return provider is not None and hasattr(provider, "absorb_many") and count > 1


def hash_in_lanes(
    names: Iterable[bytes], algorithm: str, hasher: Hasher, provider: ModuleType
) -> Iterator[Tuple[bytes, Outcome]]:
    """``(name, outcome)`` for every name, in order, hashing the files together."""
    window: List[bytes] = []
    for name in names:
        if name == b"-":  # standard input: in its turn, on its own
            yield from _window(window, algorithm, hasher, provider)
            window = []
            yield name, hasher(name, algorithm)
            continue
        window.append(name)
        if len(window) == WINDOW:
            yield from _window(window, algorithm, hasher, provider)
            window = []
    yield from _window(window, algorithm, hasher, provider)


def _window(
    names: List[bytes], algorithm: str, hasher: Hasher, provider: ModuleType
) -> Iterator[Tuple[bytes, Outcome]]:
    """The window's outcomes in order, each as soon as it and those before it are known."""
    if not names:
        return
    outcomes = _small_files(names, algorithm, provider, hasher.progress)
    large = [i for i, outcome in enumerate(outcomes) if outcome is None and _regular(names[i])]
    streaming = set(large)
    given = 0

    def ready() -> Iterator[Tuple[bytes, Outcome]]:
        nonlocal given
        while given < len(names) and given not in streaming:
            outcome = outcomes[given]
            if outcome is None:  # not a regular file: the one-file way, with its messages
                outcome = hasher(names[given], algorithm)
            yield names[given], outcome
            given += 1

    yield from ready()
    for start in range(0, len(large), LANES):
        group = large[start : start + LANES]
        for k, outcome in _stream([names[i] for i in group], algorithm, hasher, provider):
            outcomes[group[k]] = outcome
            streaming.discard(group[k])
            yield from ready()
    yield from ready()


def _regular(name: bytes) -> bool:
    try:
        return stat.S_ISREG(os.stat(name).st_mode)
    except OSError:
        return False


def _small_files(
    names: List[bytes], algorithm: str, provider: ModuleType, progress: Optional[Progress]
) -> List[Optional[Outcome]]:
    """Each name's outcome if it is a small regular file or cannot be opened; else None."""
    digest_files = getattr(provider, "digest_files", None)
    results: List[Union[bytes, int, None]] = (
        digest_files(algorithm, names, SMALL, _readers(len(names)))
        if digest_files is not None
        else _read_small(names, algorithm, provider)
    )
    outcomes: List[Optional[Outcome]] = []
    for name, result in zip(names, results):
        if isinstance(result, bytes):
            outcomes.append(Outcome(result))
            if progress is not None:
                progress.advance(_size(name))
        elif isinstance(result, int):
            outcomes.append(Outcome(None, OSError(result, os.strerror(result), name)))
        else:
            outcomes.append(None)
    return outcomes


def _readers(files: int) -> int:
    """Threads that open and read small files: one per CPU, up to 4, for enough files."""
    return max(1, min(cpus(), 4, files // 64))


def _size(name: bytes) -> int:
    try:
        return os.stat(name).st_size
    except OSError:
        return 0


def _read_small(
    names: List[bytes], algorithm: str, provider: ModuleType
) -> List[Union[bytes, int, None]]:
    """``digest_files`` in Python: read each small regular file, hash them in batches."""
    results: List[Union[bytes, int, None]] = [None] * len(names)
    batch: Dict[int, bytes] = {}
    held = 0

    def flush() -> None:
        digests = provider.digest_many(algorithm, list(batch.values()), False, 1)
        for i, digest in zip(batch, digests):
            results[i] = digest
        batch.clear()

    for i, name in enumerate(names):
        try:
            fd = os.open(name, _OPEN_FLAGS)
        except OSError as exc:
            results[i] = exc.errno or 0
            continue
        try:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_size <= SMALL:
                data = _read_all(reading.reader(fd), SMALL + 1)
                if len(data) <= SMALL:
                    batch[i] = data
                    held += len(data)
        except OSError as exc:
            results[i] = exc.errno or 0
        finally:
            os.close(fd)
        if held > BATCH_BYTES:
            flush()
            held = 0
    flush()
    return results


def _read_all(read: reading.Read, limit: int) -> bytes:
    """At most ``limit`` bytes, read to the end (into one buffer: ``os.read`` of a large
    size would allocate and fault in that size each time)."""
    buffer = bytearray(limit)
    view = memoryview(buffer)
    size = 0
    while size < limit:
        got = read(view[size:])
        if not got:
            break
        size += got
    return bytes(view[:size])


def _stream(
    names: List[bytes], algorithm: str, hasher: Hasher, provider: ModuleType
) -> Iterator[Tuple[int, Optional[Outcome]]]:
    """``(index, outcome)`` of each of the large files as it is known, hashed together a round
    of chunks at a time (outcome None: not a regular file after all, for the one-file path)."""
    files: Dict[int, int] = {}  # index -> descriptor
    hashes: Dict[int, Any] = {}
    try:
        for i, name in enumerate(names):
            try:
                fd = os.open(name, _OPEN_FLAGS)
            except OSError as exc:
                yield i, Outcome(None, exc)
                continue
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                yield i, None
                continue
            files[i] = fd
            hashes[i] = hasher.constructors[algorithm]()
            if hasattr(os, "posix_fadvise"):
                with contextlib.suppress(OSError):
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        for i, error in _rounds(files, hashes, hasher, provider):
            yield i, Outcome(None, error) if error is not None else Outcome(hashes[i].digest())
    finally:
        for fd in files.values():
            with contextlib.suppress(OSError):
                os.close(fd)


#: A round read: the buffers, and each file's chunk in its buffer (empty at the end) or its
#: read error.
Round = Tuple[Dict[int, memoryview], Dict[int, Union[memoryview, OSError]]]


def _rounds(
    files: Dict[int, int], hashes: Dict[int, Any], hasher: Hasher, provider: ModuleType
) -> Iterator[Tuple[int, Optional[OSError]]]:
    """Read a chunk of every open file per round on a second thread and hash each round here;
    ``(index, None)`` when a file ends, ``(index, error)`` when reading it fails."""
    free: queue.SimpleQueue[Optional[Dict[int, memoryview]]] = queue.SimpleQueue()
    full: queue.SimpleQueue[Round] = queue.SimpleQueue()
    for _ in range(ROUNDS + 1):
        free.put({i: memoryview(bytearray(ROUND_CHUNK)) for i in files})
    active = set(files)
    lock = threading.Lock()  # guards ``active`` between the two threads
    readers = {i: reading.reader(fd) for i, fd in files.items()}

    def read_rounds() -> None:
        while True:
            buffers = free.get()
            with lock:
                reading = sorted(active)
            if buffers is None or not reading:
                return
            done: Dict[int, Union[memoryview, OSError]] = {}
            for i in reading:
                try:
                    done[i] = buffers[i][: readers[i](buffers[i])]
                except OSError as exc:
                    done[i] = exc
            full.put((buffers, done))

    reader = threading.Thread(target=read_rounds, name="variants-sum lanes", daemon=True)
    reader.start()
    progress = hasher.progress
    try:
        while active:
            buffers, done = full.get()
            busy: List[int] = []
            chunks: List[memoryview] = []
            ended: List[Tuple[int, Optional[OSError]]] = []
            for i, chunk in done.items():
                if i not in active:  # read ahead after its end or error
                    continue
                if isinstance(chunk, memoryview) and len(chunk):
                    busy.append(i)
                    chunks.append(chunk)
                    continue
                with lock:
                    active.discard(i)
                ended.append((i, chunk if isinstance(chunk, OSError) else None))
            if busy:
                provider.absorb_many([hashes[i] for i in busy], chunks)
                if progress is not None:
                    progress.advance(sum(len(chunk) for chunk in chunks))
            free.put(buffers)
            yield from ended
            if hasher.cancel.is_set():
                raise Cancelled
    finally:
        with lock:
            active.clear()
        free.put(None)
        reader.join()
