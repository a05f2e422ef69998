"""Hashing many files at once through the lanes of a native variant's bridge.

One file at a time leaves the SIMD lanes idle: an MD5 stream is bound by its
dependency chain, a SHA-256 one by the latency of the SHA-NI rounds. With
more than one file to hash and no ``-j`` (which asks for threads instead),
the files of a window of arguments are hashed together, and their outcomes
handed back in argument order:

- small regular files (at most ``SMALL`` bytes) are read whole and hashed in
  one batch (the bridge's ``digest_files``: the C-API bridge reads them on a
  thread per CPU and hashes them without the GIL and without a Python call
  per file; the cffi bridge reads them in Python and hashes them with
  ``digest_many``);
- larger regular files stream through the lanes together, ``LANES`` at a
  time, a chunk of each per round (``absorb_many``), while a second thread
  reads the next round;
- anything else (standard input, a pipe, a device, a file that cannot be
  opened or read) goes through the one-file path, which gives coreutils'
  messages.

The small files of the next window are read and hashed (``digest_files``, on a thread of
its own, the GIL released) while the lines of the window before are formatted and printed:
the C and the Python of a run of many small files overlap instead of taking turns.

Memory stays bounded whatever the number of files: two windows of ``WINDOW``
names, their batches of small files of a few MiB, and ``ROUNDS`` rounds of a chunk
per streaming file.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading

from variants._many import cpus
from variants._shell import HashObject
from variants._typing import TYPE_CHECKING
from variants.cli import reading
from variants.cli.hashing import Cancelled, Hasher, Outcome
from variants.cli.progress import Progress
from variants.native import Bridge

if TYPE_CHECKING:
    from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

    from variants.native import FileResult

#: Names taken at a time from the arguments (the first time, fewer).
WINDOW = 1024
FIRST_WINDOW = 64
#: The largest file read whole into the batch of small files.
SMALL = 256 << 10
#: Files streaming through the lanes at once, and the bytes read from each per round.
LANES = 16
ROUND_CHUNK = 256 << 10
#: Rounds read ahead of the one being hashed (each a chunk per streaming file).
ROUNDS = 2

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def hash_in_lanes(
    names: Iterable[bytes], algorithm: str, hasher: Hasher, bridge: Bridge
) -> Iterator[Tuple[bytes, Outcome]]:
    """``(name, outcome)`` for every name, in order, hashing the files together."""
    before: Optional[_SmallFiles] = None  # the window being read, whose lines come next
    for item in _windows(names):
        if isinstance(item, bytes):  # standard input: in its turn, on its own
            if before is not None:
                yield from _window(before, algorithm, hasher, bridge)
                before = None
            yield item, hasher(item, algorithm)
            continue
        reading = _SmallFiles(item, algorithm, bridge)
        if before is not None:
            yield from _window(before, algorithm, hasher, bridge)
        before = reading
    if before is not None:
        yield from _window(before, algorithm, hasher, bridge)


def _windows(names: Iterable[bytes]) -> Iterator[Union[List[bytes], bytes]]:
    """The names in windows of at most ``WINDOW`` (the first of ``FIRST_WINDOW``, so that the
    first lines come soon and the next window's reading starts early), with standard input
    (``b"-"``) alone between them."""
    window: List[bytes] = []
    size = FIRST_WINDOW
    for name in names:
        if name == b"-":
            if window:
                yield window
                window = []
            yield name
            continue
        window.append(name)
        if len(window) == size:
            yield window
            window = []
            size = WINDOW
    if window:
        yield window


class _SmallFiles(threading.Thread):
    """The bridge's ``digest_files`` of a window's names, started at once on a thread of its
    own (the C-API bridge releases the GIL while it reads and hashes)."""

    def __init__(self, names: List[bytes], algorithm: str, bridge: Bridge) -> None:
        super().__init__(name="variants-sum small files", daemon=True)
        self.names = names
        self._call = (algorithm, bridge)
        self._results: List[FileResult] = []
        self._error: Optional[BaseException] = None
        self.start()

    def run(self) -> None:
        algorithm, bridge = self._call
        try:
            self._results = bridge.digest_files(
                algorithm, self.names, SMALL, _readers(len(self.names))
            )
        except BaseException as error:  # handed to the reader of the results, in its thread
            self._error = error

    def results(self) -> List[FileResult]:
        """Per name: its digest, an errno, or None (see ``Bridge.digest_files``)."""
        self.join()
        if self._error is not None:
            raise self._error
        return self._results


def _window(
    reading: _SmallFiles, algorithm: str, hasher: Hasher, bridge: Bridge
) -> Iterator[Tuple[bytes, Outcome]]:
    """The window's outcomes in order, each as soon as it and those before it are known."""
    names = reading.names
    outcomes = _small_files(names, reading.results(), hasher.progress)
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
        for k, outcome in _stream([names[i] for i in group], algorithm, hasher, bridge):
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
    names: List[bytes], results: List[FileResult], progress: Optional[Progress]
) -> List[Optional[Outcome]]:
    """Each name's outcome if it is a small regular file or cannot be opened; else None."""
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


def _stream(
    names: List[bytes], algorithm: str, hasher: Hasher, bridge: Bridge
) -> Iterator[Tuple[int, Optional[Outcome]]]:
    """``(index, outcome)`` of each of the large files as it is known, hashed together a round
    of chunks at a time (outcome None: not a regular file after all, for the one-file path)."""
    files: Dict[int, int] = {}  # index -> descriptor
    hashes: Dict[int, HashObject] = {}
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
        for i, error in _rounds(files, hashes, hasher, bridge):
            yield i, Outcome(None, error) if error is not None else Outcome(hashes[i].digest())
    finally:
        for fd in files.values():
            with contextlib.suppress(OSError):
                os.close(fd)


if TYPE_CHECKING:
    #: A round read: the buffers, and each file's chunk in its buffer (empty at the end) or
    #: its read error.
    Round = Tuple[Dict[int, memoryview], Dict[int, Union[memoryview, OSError]]]


def _rounds(
    files: Dict[int, int], hashes: Dict[int, HashObject], hasher: Hasher, bridge: Bridge
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
                bridge.absorb_many([hashes[i] for i in busy], chunks)
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
