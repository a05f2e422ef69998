"""The command line: its options, the ``--help`` text, and parsing them as coreutils does.

The parsing is a ``getopt_long`` of its own rather than argparse: md5sum's
messages for a bad command line are glibc's (``invalid option -- 'x'``,
``option '--st' is ambiguous; possibilities: ...``), and the checks after
parsing are coreutils', in coreutils' order.
"""

from __future__ import annotations

import os
import sys

from variants import _algorithms
from variants._typing import TYPE_CHECKING
from variants.cli.quoting import quote_word
from variants.cli.streams import PROGRAM, write

if TYPE_CHECKING:
    from typing import Iterator, List, Optional, Sequence, Tuple

#: The algorithms with a coreutils command (md5sum ...), as -a takes them (variants/_algorithms.py).
ALGORITHMS = tuple(sorted(a.name for a in _algorithms.ALGORITHMS if a.coreutils))
DEFAULT_ALGORITHM = "sha256"

USAGE = f"""\
Usage: {PROGRAM} [OPTION]... [FILE]...
Print or check MD5, SHA1, SHA224, SHA256, SHA384 or SHA512 checksums, computed by
the variants package.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=TYPE  md5, sha1, sha224, sha256, sha384 or sha512; the default
                          is sha256, and when checking, the algorithm each line
                          names or implies
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping
  -j, --jobs=N          hash up to N files at a time on threads (0: one per CPU);
                          without -j, several files go together through the
                          native variant's SIMD lanes; either way the output
                          stays in the order of the arguments
      --variant=NAME    hash with this variant (default: the drop-in's)
      --list-variants   list the registered variants and exit

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

Output, messages and exit status are those of GNU coreutils' md5sum, sha1sum,
sha224sum, sha256sum, sha384sum and sha512sum. When checking, the input should
be a former output of this program or of those. The default mode is to print a
line with: checksum, a space, a character indicating input mode ('*' for binary,
' ' for text or where binary is insignificant), and name for each FILE.

There is no difference between binary mode and text mode on this system.
MD5 and SHA1 are broken for security: use them for checksums against accidents only.
"""


class UsageError(Exception):
    """A bad command line: the message, then a pointer to --help, exit 1."""


class Options:
    """What the command line asked for."""

    def __init__(self) -> None:
        self.algorithm: Optional[str] = None
        self.check = False
        self.binary = -1  # -1: not given; 0: --text; 1: --binary (or --tag)
        self.tag = False
        self.zero = False
        self.ignore_missing = False
        self.quiet = False
        self.status = False
        self.strict = False
        self.warn = False
        self.jobs: Optional[int] = None  # None: not given (lanes where they exist, else 1)
        self.variant: Optional[str] = None
        self.list_variants = False
        self.files: List[bytes] = []


# (name, takes an argument, key): getopt_long's table.
_LONG: Tuple[Tuple[str, bool, str], ...] = (
    ("algorithm", True, "a"),
    ("binary", False, "b"),
    ("check", False, "c"),
    ("help", False, "help"),
    ("ignore-missing", False, "ignore-missing"),
    ("jobs", True, "j"),
    ("list-variants", False, "list-variants"),
    ("quiet", False, "quiet"),
    ("status", False, "status"),
    ("strict", False, "strict"),
    ("tag", False, "tag"),
    ("text", False, "t"),
    ("variant", True, "variant"),
    ("version", False, "version"),
    ("warn", False, "w"),
    ("zero", False, "z"),
)
_SHORT = {"a": True, "b": False, "c": False, "j": True, "t": False, "w": False, "z": False}


def _getopt(argv: Sequence[str]) -> Iterator[Tuple[str, Optional[str]]]:
    """GNU ``getopt_long``: yields ``(key, argument)`` for options and ``("", operand)``.

    Options and operands may be mixed (unless POSIXLY_CORRECT is set), ``--``
    ends the options, ``-`` is an operand, long options may be abbreviated to
    any unique prefix, and the messages are glibc's.
    """
    posix = "POSIXLY_CORRECT" in os.environ
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            for operand in args[i:]:
                yield "", operand
            return
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            matches = [entry for entry in _LONG if entry[0] == name] or [
                entry for entry in _LONG if entry[0].startswith(name)
            ]
            if not matches:
                raise UsageError(f"unrecognized option '{arg}'")
            if len(matches) > 1:
                choices = " ".join(f"'--{entry[0]}'" for entry in matches)
                raise UsageError(f"option '--{name}' is ambiguous; possibilities: {choices}")
            full, takes, key = matches[0]
            if takes and not eq:
                if i == len(args):
                    raise UsageError(f"option '--{full}' requires an argument")
                value = args[i]
                i += 1
            elif eq and not takes:
                raise UsageError(f"option '--{full}' doesn't allow an argument")
            yield key, value if takes else None
        elif arg.startswith("-") and arg != "-":
            j = 1
            while j < len(arg):
                letter = arg[j]
                j += 1
                if letter not in _SHORT:
                    raise UsageError(f"invalid option -- '{letter}'")
                if not _SHORT[letter]:
                    yield letter, None
                    continue
                if j < len(arg):
                    yield letter, arg[j:]
                elif i < len(args):
                    yield letter, args[i]
                    i += 1
                else:
                    raise UsageError(f"option requires an argument -- '{letter}'")
                break
        else:
            yield "", arg
            if posix:
                for operand in args[i:]:
                    yield "", operand
                return


def parse_args(argv: Sequence[str]) -> Options:
    """The options, checked as coreutils checks them; ``UsageError`` if they make no sense.

    ``--help`` and ``--version`` act where they stand, as with getopt_long:
    they print and exit before any later option is looked at.
    """
    opts = Options()
    for key, value in _getopt(argv):
        if key == "":
            assert value is not None
            opts.files.append(_name_bytes(value))
        elif key == "a":
            assert value is not None
            if value.lower() not in ALGORITHMS:
                valid = "".join(f"\n  - {quote_word(name)}" for name in ALGORITHMS)
                raise UsageError(
                    f"invalid argument {quote_word(value)} for {quote_word('--algorithm')}"
                    f"\nValid arguments are:{valid}"
                )
            opts.algorithm = value.lower()
        elif key == "b":
            opts.binary = 1
        elif key == "c":
            opts.check = True
        elif key == "t":
            opts.binary = 0
        elif key == "tag":
            opts.tag = True
            opts.binary = 1
        elif key == "z":
            opts.zero = True
        elif key == "ignore-missing":
            opts.ignore_missing = True
        elif key == "status":
            opts.status, opts.warn, opts.quiet = True, False, False
        elif key == "w":
            opts.status, opts.warn, opts.quiet = False, True, False
        elif key == "quiet":
            opts.status, opts.warn, opts.quiet = False, False, True
        elif key == "strict":
            opts.strict = True
        elif key == "j":
            assert value is not None
            opts.jobs = _jobs(value)
        elif key == "variant":
            opts.variant = value
        elif key == "list-variants":
            opts.list_variants = True
        elif key == "help":
            write(sys.stdout, USAGE.encode())
            raise SystemExit(0)
        elif key == "version":
            write(sys.stdout, _version().encode())
            raise SystemExit(0)
    for wrong, message in (
        (opts.tag and opts.binary == 0, "--tag does not support --text mode"),
        (opts.zero and opts.check, "the --zero option is not supported when verifying checksums"),
        (opts.tag and opts.check, "the --tag option is meaningless when verifying checksums"),
        (
            opts.binary >= 0 and opts.check,
            "the --binary and --text options are meaningless when verifying checksums",
        ),
    ):
        if wrong:
            raise UsageError(message)
    for flag, name in (
        (opts.ignore_missing, "ignore-missing"),
        (opts.status, "status"),
        (opts.warn, "warn"),
        (opts.quiet, "quiet"),
        (opts.strict, "strict"),
    ):
        if flag and not opts.check:
            raise UsageError(f"the --{name} option is meaningful only when verifying checksums")
    if not opts.files:
        opts.files.append(b"-")
    return opts


def _name_bytes(arg: str) -> bytes:
    """A command-line file name as the bytes it was given as."""
    try:
        return os.fsencode(arg)
    except UnicodeEncodeError:  # PyPy 3.9 decodes argv as UTF-8 even in the C locale
        return arg.encode("utf-8", "surrogateescape")


def _jobs(value: str) -> int:
    """``--jobs``: a count of files at a time, 0 meaning one per CPU."""
    try:
        jobs = int(value, 10)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise UsageError(f"invalid number of jobs: {quote_word(value)}")
    return jobs or os.cpu_count() or 1


def _version() -> str:
    try:
        from importlib.metadata import version

        number = version("hashlib-variants")  # the distribution's name on PyPI
    except Exception:  # not installed: running from a source tree
        number = "(source tree)"
    return f"{PROGRAM} (variants) {number}\n"
