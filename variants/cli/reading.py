"""Reading a file a chunk at a time: in turn with the hashing, or ahead on a second thread.

Both ways read ``CHUNK`` bytes at a time (the read size ``file_digest`` uses
too) into buffers allocated once, so memory stays bounded whatever the file
sizes: a chunk per job, plus the read-ahead ring while a large file is read.

Reading ahead (one file at a time, more than one CPU) overlaps the copy from
the page cache with the hashing, which the native kernels do without the
GIL. Its ring has ``READ_AHEAD`` buffers of ``READ_AHEAD_CHUNKS`` chunks each:
small buffers lose the overlap to the hand-offs between the threads.
"""

from __future__ import annotations

import os
import queue
import threading

from variants._files import CHUNK
from variants._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Callable, Generator, Optional, Tuple, Union

# Buffers in the read-ahead ring, and their size in chunks: buffers of a single
# chunk lose the overlap of reading and hashing to the hand-offs between the
# threads; a few of a MiB keep it.
READ_AHEAD = 3
READ_AHEAD_CHUNKS = 8

if TYPE_CHECKING:
    #: Reads into ``view``, returning the byte count (0 at the end of the file).
    Read = Callable[[memoryview], int]

_local = threading.local()


def _buffer() -> memoryview:
    """This thread's read buffer of CHUNK bytes, allocated once."""
    view: Optional[memoryview] = getattr(_local, "view", None)
    if view is None or len(view) != CHUNK:  # (a test may change CHUNK)
        view = _local.view = memoryview(bytearray(CHUNK))
    return view


def reader(fd: int) -> Read:
    """``readinto`` for a file descriptor, without a file object's buffering."""
    readv = getattr(os, "readv", None)
    if readv is not None:
        return lambda view: readv(fd, [view])
    import io

    raw = io.FileIO(fd, "rb", closefd=False)  # pragma: no cover - PyPy without readv
    return lambda view: raw.readinto(view) or 0  # pragma: no cover


def chunks(read: Read) -> Generator[memoryview, None, None]:
    """The file's bytes, a chunk at a time, in this thread's one reused buffer.

    Each chunk is valid until the next is asked for."""
    view = _buffer()
    while True:
        size = read(view)
        if not size:
            return
        yield view[:size]


def chunks_read_ahead(read: Read) -> Generator[memoryview, None, None]:
    """As ``chunks``, with a thread reading ahead once the file outgrows one chunk.

    Only for a regular file: its reads never wait, so the reading thread
    stops promptly when the generator is closed (on an error, say). A read
    error on that thread is raised here, after the chunks read before it.
    """
    view = _buffer()
    size = read(view)
    if size < len(view):  # the whole file fits in a chunk: no thread for that
        if size:
            yield view[:size]
            yield from chunks(read)  # (a file that grew meanwhile)
        return
    yield view
    free: queue.SimpleQueue[Optional[memoryview]] = queue.SimpleQueue()
    full: queue.SimpleQueue[Union[Tuple[memoryview, int], OSError]] = queue.SimpleQueue()
    for _ in range(READ_AHEAD):
        free.put(memoryview(bytearray(READ_AHEAD_CHUNKS * len(view))))

    def read_into_free_buffers() -> None:
        while True:
            buffer = free.get()
            if buffer is None:  # the hashing side has stopped
                return
            try:
                size = read(buffer)
            except OSError as exc:
                full.put(exc)
                return
            full.put((buffer, size))
            if not size:
                return

    thread = threading.Thread(
        target=read_into_free_buffers, name="variants-sum read-ahead", daemon=True
    )
    thread.start()
    try:
        while True:
            item = full.get()
            if isinstance(item, OSError):
                raise item
            buffer, size = item
            if not size:
                return
            yield buffer[:size]
            free.put(buffer)  # hashed: the reader may fill it again
    finally:
        free.put(None)
        thread.join()
