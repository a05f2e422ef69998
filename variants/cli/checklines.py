"""Checksum lines: written as md5sum writes them, read back (``-c``) as coreutils 9.1 reads them.

Two line formats are written and accepted, as md5sum and sha256sum do::

    d41d8cd98f00b204e9800998ecf8427e  name       GNU: digest, space, ' ' or '*', name
    MD5 (name) = d41d8cd98f00b204e9800998ecf8427e  BSD (--tag)

and, once a list has started with one, the "BSD reversed" form ``digest name``
(a single space) is accepted. A leading backslash marks a name with ``\\\\``,
``\\n`` or ``\\r`` escapes. The reading rules below, down to their quirks (the
last ``)`` ends a BSD name; a name is cut at a NUL byte; "BSD reversed" is
remembered across the whole run), are those of coreutils 9.1's ``split_3`` and
``bsd_split_3``. coreutils 9.2 and later differ on a NUL byte right after the
digest: they accept ``<digest>\\0 name`` and refuse ``MD5 (name) =
<digest>\\0...``; 9.1, and this module, refuse the first and accept the second.
"""

from __future__ import annotations

from variants._algorithms import ALGORITHMS
from variants._typing import TYPE_CHECKING, NamedTuple
from variants.cli.quoting import escape_name, unescape_name

if TYPE_CHECKING:
    from typing import Dict, Iterator, Optional, Sequence

#: The tag of each algorithm coreutils has a ``<name>sum`` for, in BSD-style lines and messages:
#: its standard's name without the hyphen (``SHA-256``: ``SHA256``), from variants/_algorithms.py.
TAGS: Dict[str, bytes] = {
    a.name: a.title.replace("-", "").encode() for a in ALGORITHMS if a.coreutils
}
#: Hexadecimal digits in each such algorithm's digest.
HEX_LENGTHS: Dict[str, int] = {a.name: 2 * a.digest_size for a in ALGORITHMS if a.coreutils}

_WHITE = (0x20, 0x09)  # coreutils' ISWHITE: space and tab only
_HEX = frozenset(b"0123456789abcdefABCDEF")


def format_line(
    algorithm: str, digest: bytes, name: bytes, *, tag: bool, binary: bool, zero: bool
) -> bytes:
    """One output line, as ``md5sum [--tag] [-b] [-z]`` writes it.

    Without ``-z``, a name with a backslash, newline or CR is escaped and the
    line starts with a backslash; with ``-z`` names are written as they are.
    """
    escape = not zero and (b"\\" in name or b"\n" in name or b"\r" in name)
    shown = escape_name(name) if escape else name
    mark = b"\\" if escape else b""
    end = b"\0" if zero else b"\n"
    hexdigest = digest.hex().encode()
    if tag:
        return mark + TAGS[algorithm] + b" (" + shown + b") = " + hexdigest + end
    return mark + hexdigest + b" " + (b"*" if binary else b" ") + shown + end


class Entry(NamedTuple):
    """One properly formatted line: which algorithm, the expected digest, the file."""

    algorithm: str
    digest: bytes  # hexadecimal, as written (either case)
    name: bytes


def _cstring(data: bytes) -> bytes:
    """``data`` up to its first NUL byte, as C sees a string."""
    end = data.find(b"\0")
    return data if end < 0 else data[:end]


def _valid_digits(digest: bytes, length: int) -> bool:
    return len(digest) == length and all(c in _HEX for c in digest)


class LineParser:
    """Splits checksum lines for a fixed algorithm or, given several, for any of them.

    With one algorithm it accepts what that algorithm's coreutils program
    accepts. With several (``variants-sum -c`` without ``-a``) a BSD line names
    its algorithm and a GNU line is told by the length of its digest.
    """

    def __init__(self, algorithms: Sequence[str]) -> None:
        self.algorithms = tuple(algorithms)
        # -1: not known yet; 0: GNU lines seen; 1: "BSD reversed" lines seen.
        # Shared by every list of the run, as in coreutils.
        self.bsd_reversed = -1

    def parse(self, line: bytes) -> Optional[Entry]:
        """The entry on ``line`` (no newline or trailing CR), or None if it is not one."""
        n = len(line)

        def at(i: int) -> int:
            return line[i] if i < n else 0  # the C string's terminating NUL

        i = 0
        while at(i) in _WHITE:
            i += 1
        escaped = at(i) == 0x5C
        if escaped:
            i += 1
        for algorithm in self.algorithms:
            tag = TAGS[algorithm]
            if line.startswith(tag, i):
                i += len(tag)
                if at(i) == 0x20:
                    i += 1
                if at(i) != 0x28:  # '('
                    return None
                return self._bsd(line[i + 1 :], algorithm, escaped)
        return self._gnu(line, i, escaped)

    def _bsd(self, rest: bytes, algorithm: str, escaped: bool) -> Optional[Entry]:
        """``name) = digest``, the part of a BSD line after its ``(``."""
        n = len(rest)
        if n == 0:
            return None
        i = n - 1
        while i and rest[i] != 0x29:  # the last ')'
            i -= 1
        if rest[i] != 0x29:
            return None
        if escaped:
            name = unescape_name(rest[:i])
            if name is None:
                return None
        else:
            name = _cstring(rest[:i])
        i += 1
        while i < n and rest[i] in _WHITE:
            i += 1
        if i >= n or rest[i] != 0x3D:  # '='
            return None
        i += 1
        while i < n and rest[i] in _WHITE:
            i += 1
        digest = _cstring(rest[i:])
        if not _valid_digits(digest, HEX_LENGTHS[algorithm]):
            return None
        return Entry(algorithm, digest, name)

    def _gnu(self, line: bytes, i: int, escaped: bool) -> Optional[Entry]:
        """``digest  name``, ``digest *name`` or (BSD reversed) ``digest name``."""
        n = len(line)
        algorithm = self._by_length(line, i)
        if algorithm is None:
            return None
        length = HEX_LENGTHS[algorithm]
        # Too short for a digest, a blank and a one-byte name.
        if n - i < length + 2:
            return None
        digest = line[i : i + length]
        i += length
        if line[i] not in _WHITE:
            return None
        i += 1
        if not _valid_digits(digest, length):
            return None
        following = line[i] if i < n else 0
        if n - i == 1 or following not in (0x20, 0x2A):
            # Mixing GNU and "BSD reversed" lines is refused: an attacker could
            # otherwise rename files to start with a space.
            if self.bsd_reversed == 0:
                return None
            self.bsd_reversed = 1
        elif self.bsd_reversed != 1:
            self.bsd_reversed = 0
            i += 1  # the mode: ' ' text, '*' binary
        raw = line[i:]
        if escaped:
            name = unescape_name(raw)
            if name is None:
                return None
        else:
            name = _cstring(raw)
        return Entry(algorithm, digest, name)

    def _by_length(self, line: bytes, start: int) -> Optional[str]:
        """The algorithm of a GNU line: the only one, or the one its digest's length implies."""
        if len(self.algorithms) == 1:
            return self.algorithms[0]
        end = start
        while end < len(line) and line[end] in _HEX:
            end += 1
        for algorithm in self.algorithms:
            if HEX_LENGTHS[algorithm] == end - start:
                return algorithm
        return None


def read_lines(fd: int, chunk: int = 1 << 16) -> Iterator[bytes]:
    """The lines of the file open on ``fd``, each with its newline (the last may lack one).

    Read with ``os.read`` rather than a file object so that a directory fails
    at the first read, as with stdio, not at open. ``OSError`` is raised from
    the read that fails, after the lines before it.
    """
    import os

    pending = b""
    while True:
        data = os.read(fd, chunk)
        if not data:
            break
        pending += data
        start = 0
        while True:
            end = pending.find(b"\n", start)
            if end < 0:
                break
            yield pending[start : end + 1]
            start = end + 1
        pending = pending[start:]
    if pending:
        yield pending
