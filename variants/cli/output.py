"""Where results and messages go: stdout and stderr, each record written whole, in order.

Records are written as bytes (file names are bytes, not text). On a terminal
each result is written at once, so that output follows progress; elsewhere
results are gathered into writes of up to ``BATCH`` bytes (thousands of small
files would otherwise cost a write each), flushed before every message, so
that a message on stderr still lands after the results before it. A failed
write to stdout does not stop the run; it is reported once, at the end, as
coreutils reports it ("write error", status 1).
"""

from __future__ import annotations

import os
import sys

from variants._typing import TYPE_CHECKING
from variants.cli.progress import Progress
from variants.cli.quoting import quote_name
from variants.cli.streams import PROGRAM, isatty, write

if TYPE_CHECKING:
    from typing import List, Optional

#: Bytes of results gathered into one write when stdout is not a terminal.
BATCH = 64 << 10


class Console:
    """Writes results to stdout and messages to stderr, around the progress line if any."""

    def __init__(self, progress: Optional[Progress] = None) -> None:
        self.progress = progress
        self.write_failed = False
        terminal = isatty(sys.stdout)
        # The progress line needs wiping before output only when they share a terminal.
        self._out_on_terminal = progress is not None and terminal
        self._gather = not terminal
        self._pending: List[bytes] = []
        self._pending_size = 0

    def out(self, record: bytes) -> None:
        """A result on stdout (after a failed write, nothing more is tried)."""
        if self.write_failed:
            return
        if self._gather:
            self._pending.append(record)
            self._pending_size += len(record)
            if self._pending_size >= BATCH:
                self.flush()
            return
        self._write_out(record)

    def flush(self) -> None:
        """Write the results gathered so far."""
        if self._pending:
            record = b"".join(self._pending)
            self._pending.clear()
            self._pending_size = 0
            self._write_out(record)

    def _write_out(self, record: bytes) -> None:
        if self.write_failed:
            return
        try:
            if self.progress is not None and self._out_on_terminal:
                with self.progress.hidden():
                    write(sys.stdout, record)
            else:
                write(sys.stdout, record)
        except (OSError, ValueError):
            self.write_failed = True

    def err(self, message: bytes) -> None:
        """``variants-sum: message`` on stderr, after the results before it."""
        self.flush()
        record = f"{PROGRAM}: ".encode() + message + b"\n"
        try:
            if self.progress is not None:
                with self.progress.hidden():
                    write(sys.stderr, record)
            else:
                write(sys.stderr, record)
        except (OSError, ValueError):
            pass

    def file_error(self, name: bytes, error: OSError) -> None:
        """``variants-sum: NAME: No such file or directory``, the name quoted as coreutils does."""
        reason = os.strerror(error.errno) if error.errno else str(error)
        self.err(quote_name(name) + b": " + reason.encode())
