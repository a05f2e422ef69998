"""The progress line: drawn on a terminal for a large input, wiped, and silent otherwise.

The runs on a terminal are new processes whose stderr (and, for one, stdout)
is a pseudo-terminal; this process reads what they show on it. They run the
tool with the report's threshold, delay and interval lowered, so that a file
of a few chunks counts as large at any hashing speed.
"""

from __future__ import annotations

import errno
import os
import pty
import re
import subprocess
import sys
import termios
import threading
from pathlib import Path
from typing import List, NamedTuple, Sequence

import pytest
from cli_support import digest_line, ours

from variants._files import CHUNK
from variants.cli.progress import Progress

#: variants-sum, reporting progress from the first byte on and at every chunk.
EAGER = [
    sys.executable,
    "-c",
    "from variants.cli import main, progress\n"
    "progress.THRESHOLD, progress.DELAY, progress.INTERVAL = 1, 0.0, 0.0\n"
    "raise SystemExit(main())",
]
#: A file of several chunks (so several reports), and its digest line.
LARGE = bytes(range(256)) * (3 * CHUNK // 256) + b"end"


class Shown(NamedTuple):
    status: int
    stdout: bytes  # b"" when stdout is the terminal too
    terminal: bytes  # everything written to the terminal


def on_terminal(command: Sequence[str], cwd: Path, stdout_too: bool = False) -> Shown:
    """Run ``command`` with stderr (and with ``stdout_too`` stdout) on a new pseudo-terminal.

    Output processing is turned off on the terminal, so what it shows is
    byte for byte what was written.
    """
    controller, terminal = pty.openpty()
    attributes = termios.tcgetattr(terminal)
    attributes[1] &= ~termios.OPOST
    termios.tcsetattr(terminal, termios.TCSANOW, attributes)
    shown: List[bytes] = []

    def read_all() -> None:
        while True:
            try:
                data = os.read(controller, 65536)
            except OSError as exc:  # EIO: every copy of the terminal's side is closed
                assert exc.errno == errno.EIO
                return
            if not data:
                return
            shown.append(data)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=terminal if stdout_too else subprocess.PIPE,
            stderr=terminal,
            env=dict(os.environ, LC_ALL="C.UTF-8"),
            timeout=60,
        )
    finally:
        os.close(terminal)
        reader.join(10)
        os.close(controller)
    return Shown(done.returncode, done.stdout or b"", b"".join(shown))


#: One drawing of the report ("\rvariants-sum:  42% [###...] ..."), which the next
#: drawing or a wipe ("\r    \r") follows: anything else after it mixes with it.
REPORT = re.compile(rb"\rvariants-sum: [^\r]*(?=\r)")
WIPE = re.compile(rb"\r +\r")


def without_reports(terminal: bytes) -> bytes:
    """What the terminal shows once each report and each wipe is taken out."""
    return WIPE.sub(b"", REPORT.sub(b"", terminal))


@pytest.fixture
def large(tmp_path: Path) -> Path:
    """A directory with a large file, a small one, and a checksum list of both."""
    (tmp_path / "large.bin").write_bytes(LARGE)
    (tmp_path / "small.txt").write_bytes(b"small\n")
    (tmp_path / "both.sums").write_bytes(
        digest_line("md5", LARGE, "large.bin") + digest_line("md5", b"small\n", "small.txt")
    )
    return tmp_path


def test_progress_report_on_a_terminal_for_a_large_file(large: Path) -> None:
    shown = on_terminal([*EAGER, "-a", "md5", "large.bin"], large)
    assert shown.status == 0
    assert shown.stdout == digest_line("md5", LARGE, "large.bin")
    reports = REPORT.findall(shown.terminal)
    assert len(reports) >= 2  # one after each piece hashed
    assert re.match(rb"\rvariants-sum: +\d+% \[#*\.+\] 128 KiB of 384 KiB, ", reports[0])
    assert b" 100% [" in reports[-1] and b"384 KiB of 384 KiB" in reports[-1]
    # Wiped at the end: nothing but reports and wipes, the last a wipe as long as the report.
    assert without_reports(shown.terminal) == b""
    last = max(len(report) for report in reports) - 1
    assert shown.terminal.endswith(b"\r" + b" " * last + b"\r")


@pytest.mark.parametrize("option", ["--status", "--quiet"])
def test_no_progress_report_with_status_or_quiet(large: Path, option: str) -> None:
    shown = on_terminal([*EAGER, "-a", "md5", "-c", option, "both.sums"], large)
    assert shown.status == 0
    assert shown.terminal == b""
    # The same list without the option shows the report (checking: no total known).
    shown = on_terminal([*EAGER, "-a", "md5", "-c", "both.sums"], large)
    assert shown.stdout == b"large.bin: OK\nsmall.txt: OK\n"
    assert re.search(rb"\rvariants-sum: 384 KiB, ", shown.terminal)


def test_report_is_wiped_before_output_on_the_same_terminal(large: Path) -> None:
    """Each result line starts on a clean line, and the report comes back after it."""
    names = ["large.bin", "small.txt", "large.bin"]
    # one file at a time, so that a report comes between lines
    shown = on_terminal([*EAGER, "-a", "md5", "-j", "1", *names], large, stdout_too=True)
    assert shown.status == 0
    lines = [digest_line("md5", (large / name).read_bytes(), name) for name in names]
    # Without the reports and wipes (a line after a report not wiped would go with
    # the report), the terminal shows exactly the lines.
    assert without_reports(shown.terminal) == b"".join(lines)
    assert re.search(re.escape(lines[0]) + rb"\rvariants-sum: ", shown.terminal)


def test_no_progress_report_for_small_input_on_a_terminal(large: Path) -> None:
    """With the real threshold: a few small files show nothing."""
    command = [sys.executable, "-m", "variants", "-a", "md5", "small.txt", "both.sums"]
    shown = on_terminal(command, large)
    assert shown.status == 0
    assert shown.terminal == b""
    assert shown.stdout.startswith(digest_line("md5", b"small\n", "small.txt"))


def test_no_progress_report_when_stderr_is_not_a_terminal(large: Path) -> None:
    got = ours("md5", ["large.bin"], large)
    assert got == (0, digest_line("md5", LARGE, "large.bin"), b"")


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_report_draws_and_wipes() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(
        shown.append, program="variants-sum", total=1000, threshold=500, clock=clock
    )
    progress.advance(100)  # too early and too small
    clock.now = 1.0
    progress.advance(100)  # still under the threshold (but the total is not)
    assert shown and shown[-1].startswith("\rvariants-sum:  20% [")
    assert "200 B of 1000 B" in shown[-1]
    clock.now = 1.05
    progress.advance(100)  # drawn at most every 0.1 s
    assert len(shown) == 1
    clock.now = 2.0
    progress.advance(700)
    assert "100%" in shown[-1]
    with progress.hidden():
        assert shown[-1] == "\r" + " " * (len(shown[-2]) - 1) + "\r"
    progress.close()
    assert len(shown) == 3


def test_progress_report_without_total() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(shown.append, program="p", threshold=10, clock=clock, delay=0)
    clock.now = 1.0
    progress.advance(5 << 20)
    assert shown == ["\rp: 5.0 MiB, 5.0 MiB/s"]


def test_progress_silent_below_threshold() -> None:
    shown: List[str] = []
    clock = _Clock()
    progress = Progress(shown.append, program="p", total=100, threshold=1000, clock=clock)
    for _ in range(10):
        clock.now += 1
        progress.advance(10)
    progress.close()
    assert shown == []
