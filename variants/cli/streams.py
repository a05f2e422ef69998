"""The standard streams as the command writes to them: bytes, whole, now; and its name.

The one module of ``variants.cli`` that the others all may import: it imports
none of them.
"""

from __future__ import annotations

import errno
import os

from variants._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Optional, TextIO

#: The name that starts every message, where coreutils has ``md5sum``.
PROGRAM = "variants-sum"


def write(stream: Optional[TextIO], data: bytes) -> None:
    """Write ``data`` to a standard stream's bytes, whole, now.

    The bytes go past the stream's buffer, to its unbuffered file where it has
    one: bytes that failed to go out (a full disk) must not stay buffered, or
    Python would try them again at exit, fail again and exit with status 120
    instead of the run's.
    """
    if stream is None:  # started with the descriptor closed
        raise OSError("stream closed")
    stream.flush()
    binary = stream.buffer
    binary.flush()
    raw = getattr(binary, "raw", binary)  # (an in-memory stream has no raw file)
    view = memoryview(data)
    while view:
        written = raw.write(view)
        if written is None:  # a non-blocking descriptor that is full
            raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        view = view[written:]


def isatty(stream: Optional[TextIO]) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or missing stream)."""
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False
