"""A one-line progress report on stderr, for large inputs on a terminal.

The report appears only when it is worth having: stderr is a terminal, the
run prints more than ``--status`` or ``--quiet`` allow, the input is large (at
least ``THRESHOLD`` bytes, counting the sizes of the files ahead when they are
known) and hashing has already taken ``DELAY`` seconds. It redraws at most
every ``INTERVAL`` seconds, from whichever thread has just hashed a chunk, and
is wiped before anything else is written to the terminal and at the end, so
that it never mixes with the real output.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from contextlib import contextmanager

from variants._typing import TYPE_CHECKING
from variants.cli.streams import PROGRAM, isatty

if TYPE_CHECKING:
    from typing import Callable, Iterator, Optional, Sequence

#: Bytes of input below which no report is shown.
THRESHOLD = 64 << 20
#: Seconds of hashing before the first report.
DELAY = 0.25
#: Seconds between redraws, at least.
INTERVAL = 0.1

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def human(size: float) -> str:
    """``size`` bytes in binary units: ``512 B``, ``1.5 MiB``, ``12 GiB``."""
    for unit in _UNITS:
        if size < 1024 or unit == _UNITS[-1]:
            if unit == "B":
                return f"{int(size)} B"
            return f"{size:.1f} {unit}" if size < 100 else f"{size:.0f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


class Progress:
    """Bytes hashed so far, shown as ``prog:  42% [#####.......] 430 MiB of 1.0 GiB, 1.2 GiB/s``."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        program: str,
        total: Optional[int] = None,
        width: Callable[[], int] = lambda: 80,
        threshold: int = THRESHOLD,
        delay: float = DELAY,
        interval: float = INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._program = program
        self.total = total  # None: not known (a pipe, a checksum list)
        self._width = width
        self._threshold = threshold
        self._delay = delay
        self._interval = interval
        self._clock = clock
        self._start = clock()
        self._last = self._start
        self.done = 0
        self._shown = 0  # length of the line on screen (0: nothing shown)
        self.lock = threading.Lock()

    def advance(self, size: int) -> None:
        """Count ``size`` more bytes hashed; redraw if it is time to."""
        with self.lock:
            self.done += size
            now = self._clock()
            if now - self._last < self._interval or now - self._start < self._delay:
                return
            if max(self.done, self.total or 0) < self._threshold:
                return
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = f"{human(self.done / elapsed)}/s"
        columns = max(self._width() - 1, 20)
        if self.total:
            fraction = min(self.done / self.total, 1.0)
            text = f"{human(self.done)} of {human(self.total)}, {rate}"
            head = f"{self._program}: {fraction * 100:3.0f}% "
            room = columns - len(head) - len(text) - 3
            if room >= 10:
                filled = int(room * fraction)
                line = f"{head}[{'#' * filled}{'.' * (room - filled)}] {text}"
            else:
                line = f"{head}{text}"
        else:
            line = f"{self._program}: {human(self.done)}, {rate}"
        line = line[:columns]
        pad = " " * max(self._shown - len(line), 0)
        self._write(f"\r{line}{pad}")
        self._shown = len(line)

    def _clear(self) -> None:
        if self._shown:
            self._write("\r" + " " * self._shown + "\r")
            self._shown = 0

    @contextmanager
    def hidden(self) -> Iterator[None]:
        """Wipe the report while the caller writes to the terminal."""
        with self.lock:
            self._clear()
            yield

    def close(self) -> None:
        """Wipe the report for good."""
        with self.lock:
            self._clear()
            self._interval = float("inf")


def on_terminal(*, wanted: bool, files: Sequence[bytes] = ()) -> Optional[Progress]:
    """The run's progress report, or None if stderr is no terminal or it is not ``wanted``
    (``--status`` and ``--quiet`` want none).

    The total is the size of the regular ``files`` (``-``: standard input) to
    be hashed, read now, before any is hashed; with none, it is not known.
    """
    if not wanted:
        return None
    stderr = sys.stderr
    if stderr is None or not isatty(stderr):
        return None
    fd = stderr.fileno()
    total = 0
    for name in files:
        try:
            info = os.stat(name) if name != b"-" else os.fstat(0)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size

    def width() -> int:
        try:
            return os.get_terminal_size(fd).columns or 80  # 0: a terminal of unknown size
        except OSError:
            return 80

    def write(text: str) -> None:
        try:
            stderr.write(text)
            stderr.flush()
        except (OSError, ValueError):
            pass

    return Progress(
        write,
        program=PROGRAM,
        total=total or None,
        width=width,
        threshold=THRESHOLD,
        delay=DELAY,
        interval=INTERVAL,
    )
