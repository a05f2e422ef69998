"""``-c``: verifying checksum lists, with coreutils' counts, messages and verdict.

Each list's lines are parsed (``checklines``), the files they name hashed
(``-j`` files at a time, results still in list order) and each verdict
written as md5sum writes it: ``NAME: OK``, ``NAME: FAILED``, ``NAME: FAILED
open or read``, then the warnings that sum up the list. The status lines
follow coreutils 9.1: a name is escaped there only if it has a newline
(9.4 and later escape a backslash or CR too).
"""

from __future__ import annotations

import os
from typing import Iterator, NamedTuple, Optional, Sequence, Union

from variants.cli.checklines import TAGS, Entry, LineParser, read_lines
from variants.cli.hashing import Hasher, Outcome
from variants.cli.jobs import in_order
from variants.cli.options import Options
from variants.cli.output import Console
from variants.cli.quoting import escape_name, quote_name


class _Misformatted(NamedTuple):
    """A line of the list that is not a checksum line."""

    line_number: int


_Event = Union[Entry, _Misformatted]

#: The summary after a list: (count, singular, plural), as coreutils words it.
_WARNINGS = (
    ("misformatted", "line is improperly formatted", "lines are improperly formatted"),
    ("unreadable", "listed file could not be read", "listed files could not be read"),
    ("mismatched", "computed checksum did NOT match", "computed checksums did NOT match"),
)


class _Tally:
    """What one list's lines came to."""

    def __init__(self) -> None:
        self.properly_formatted = False  # any line was
        self.matched = False  # any file matched
        self.misformatted = 0
        self.unreadable = 0
        self.mismatched = 0
        self.read_failed = False  # reading the list itself failed


class Checker:
    """``md5sum -c``: verifies lists, keeping coreutils' counts, messages and verdict."""

    def __init__(
        self, opts: Options, hasher: Hasher, console: Console, algorithms: Sequence[str]
    ) -> None:
        self.opts = opts
        self.hasher = hasher
        self.console = console
        self.parser = LineParser(algorithms)  # one for the run: it remembers the format seen
        # "improperly formatted MD5 checksum line"; with any algorithm, no name.
        self.kind = TAGS[algorithms[0]].decode() + " " if len(algorithms) == 1 else ""

    def check(self, list_name: bytes) -> bool:
        """Verify the files the list ``list_name`` names (``-``: stdin); whether all is well."""
        is_stdin = list_name == b"-"
        shown = quote_name(b"standard input" if is_stdin else list_name)
        try:
            fd = 0 if is_stdin else os.open(list_name, os.O_RDONLY)
        except OSError as exc:
            self.console.file_error(list_name, exc)
            return False
        tally = _Tally()
        try:
            results = in_order(
                self._entries(fd, is_stdin, tally),
                self._verify,
                self.opts.jobs or 1,
                inline=lambda event: isinstance(event, _Misformatted) or event.name == b"-",
                cancel=self.hasher.cancel,
            )
            for event, outcome in results:
                self._report(event, outcome, shown, tally)
        finally:
            if not is_stdin:
                os.close(fd)
        return self._conclude(shown, tally)

    def _entries(self, fd: int, is_stdin: bool, tally: _Tally) -> Iterator[_Event]:
        """The list's lines that count: entries, and the improperly formatted."""
        try:
            for number, line in enumerate(read_lines(fd), 1):
                if line.startswith(b"#"):  # a comment
                    continue
                if line.endswith(b"\n"):
                    line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not line:
                    continue
                entry = self.parser.parse(line)
                # A list read from stdin cannot name stdin.
                if entry is None or (is_stdin and entry.name == b"-"):
                    yield _Misformatted(number)
                else:
                    tally.properly_formatted = True
                    yield entry
        except OSError:
            tally.read_failed = True

    def _verify(self, event: _Event) -> Optional[Outcome]:
        if isinstance(event, _Misformatted):
            return None
        return self.hasher(event.name, event.algorithm)

    def _report(
        self, event: _Event, outcome: Optional[Outcome], shown: bytes, tally: _Tally
    ) -> None:
        """Count one line's verdict and say it: ``NAME: OK``, ``FAILED``, a warning."""
        opts, console = self.opts, self.console
        if isinstance(event, _Misformatted):
            tally.misformatted += 1
            if opts.warn:
                message = f": {event.line_number}: improperly formatted {self.kind}checksum line"
                console.err(shown + message.encode())
            return
        assert outcome is not None
        # Here (unlike when hashing) only a newline makes coreutils 9.1 escape a name.
        escape = not opts.status and b"\n" in event.name
        name = b"\\" + escape_name(event.name) if escape else event.name
        if outcome.digest is None:
            assert outcome.error is not None
            if opts.ignore_missing and isinstance(outcome.error, FileNotFoundError):
                return
            console.file_error(event.name, outcome.error)  # even with --status
            tally.unreadable += 1
            if not opts.status:
                console.out(name + b": FAILED open or read\n")
            return
        match = outcome.digest.hex().encode() == event.digest.lower()
        if match:
            tally.matched = True
        else:
            tally.mismatched += 1
        if opts.status:
            return
        if not match:
            console.out(name + b": FAILED\n")
        elif not opts.quiet:
            console.out(name + b": OK\n")

    def _conclude(self, shown: bytes, tally: _Tally) -> bool:
        """The warnings after a list, and whether it verified."""
        opts, console = self.opts, self.console
        if tally.read_failed:
            console.err(shown + b": read error")
            return False
        if not tally.properly_formatted:
            console.err(shown + b": no properly formatted checksum lines found")
        elif not opts.status:
            for attribute, one, many in _WARNINGS:
                count: int = getattr(tally, attribute)
                if count:
                    console.err(f"WARNING: {count} {one if count == 1 else many}".encode())
            if opts.ignore_missing and not tally.matched:
                console.err(shown + b": no file was verified")
        return (
            tally.properly_formatted
            and tally.matched
            and tally.mismatched == 0
            and tally.unreadable == 0
            and not (opts.strict and tally.misformatted)
        )
