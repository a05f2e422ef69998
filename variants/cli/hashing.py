"""Hashing named files with one variant: a digest, or the error that stopped it."""

from __future__ import annotations

import contextlib
import os
import stat
import threading

from variants._shell import Constructor
from variants._typing import TYPE_CHECKING, NamedTuple
from variants.cli import reading
from variants.cli.progress import Progress
from variants.native import Bridge

if TYPE_CHECKING:
    from typing import Mapping, Optional


class Outcome(NamedTuple):
    """A file's digest, or why there is none."""

    digest: Optional[bytes]
    error: Optional[OSError] = None


class Cancelled(Exception):
    """Hashing stopped part way because ``Hasher.cancel`` was set."""


class Hasher:
    """Hashes named files, counting progress and watching for cancellation.

    One hasher serves every file of a run, from several threads with ``-j``.
    ``read_ahead`` (right when one file is hashed at a time and a second CPU
    is free) reads a regular file longer than a chunk on a second thread
    while this one hashes; otherwise reading and hashing alternate, a chunk at
    a time (see ``variants.cli.reading``). Setting ``cancel`` makes every file
    being hashed stop at its next chunk (``-j`` does that when the run stops
    early).
    """

    def __init__(
        self,
        constructors: Mapping[str, Constructor],
        progress: Optional[Progress] = None,
        read_ahead: bool = False,
        bridge: Optional[Bridge] = None,
    ) -> None:
        self.constructors = constructors
        self.progress = progress
        self.read_ahead = read_ahead
        #: The native bridge whose lanes hash several files at once (variants.cli.lanes),
        #: or None: one file at a time.
        self.bridge = bridge
        self.cancel = threading.Event()

    def __call__(self, name: bytes, algorithm: str) -> Outcome:
        """The digest of the file called ``name`` (``-``: standard input)."""
        stdin = name == b"-"
        try:
            fd = 0 if stdin else os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            return Outcome(None, exc)
        try:
            return Outcome(self.hash_descriptor(fd, algorithm))
        except OSError as exc:
            return Outcome(None, exc)
        finally:
            if not stdin:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def hash_descriptor(self, fd: int, algorithm: str) -> bytes:
        """The digest of what is left to read on ``fd``; ``Cancelled`` if cancelled."""
        h = self.constructors[algorithm]()
        update = h.update
        read = reading.reader(fd)
        progress = self.progress
        cancel = self.cancel
        if hasattr(os, "posix_fadvise"):
            with contextlib.suppress(OSError):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        # Only a regular file: its reads never wait, so the reading thread stops promptly.
        ahead = self.read_ahead and stat.S_ISREG(os.fstat(fd).st_mode)
        chunks = reading.chunks_read_ahead(read) if ahead else reading.chunks(read)
        with contextlib.closing(chunks):  # stops the reading thread, if any, on errors
            for chunk in chunks:
                update(chunk)
                if progress is not None:
                    progress.advance(len(chunk))
                if cancel.is_set():
                    raise Cancelled
        return h.digest()
