"""``variants-sum``: md5sum, sha224sum and sha256sum on the variants' hash objects.

    variants-sum -a sha256 FILE...        # what sha256sum FILE... prints, byte for byte
    variants-sum -a md5 --tag FILE...     # BSD style: MD5 (FILE) = ...
    variants-sum -c SUMS                  # verify a list (either style, any algorithm)
    variants-sum -j 2 FILE...             # two files at a time, output still in order
    variants-sum --variant helpers FILE   # any registered variant
    variants-sum --list-variants          # what is registered and what is importable here
    python -m variants ...                # the same

Output, messages and exit status are those of GNU coreutils 9.1 (the program
name aside): the escaping of names with a backslash, newline or CR, ``-z``,
``--tag``, ``-b``/``-t``, and with ``-c`` the ``OK``/``FAILED`` lines, the
warnings and ``--quiet``, ``--status``, ``--strict``, ``--warn`` and
``--ignore-missing``. Without ``-a`` the tool hashes with SHA-256 and, when
checking, takes each line's algorithm from its tag or the length of its
digest; with ``-a`` it accepts only that algorithm's lines, as md5sum does.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import sys
import threading
from typing import (
    Callable,
    Dict,
    Generator,
    Iterator,
    List,
    NamedTuple,
    NoReturn,
    Optional,
    Sequence,
    TextIO,
    Tuple,
    Union,
)

from variants.cli.checklines import TAGS, Entry, LineParser, read_lines
from variants.cli.jobs import in_order
from variants.cli.progress import Progress
from variants.cli.quoting import escape_name, quote_name, quote_word
from variants._shell import Constructor

PROGRAM = "variants-sum"
ALGORITHMS = ("md5", "sha224", "sha256")
DEFAULT_ALGORITHM = "sha256"
#: Bytes read (and hashed) at a time: memory stays bounded (a chunk or two per
#: job) whatever the file sizes. Larger is not better: on the reference machine
#: (Zen 3, Linux 6.1) reads of 192 KiB or more from the page cache cost three
#: times the system time of 128 KiB reads (0.8 s against 0.25 s per GiB).
CHUNK = 128 << 10

USAGE = f"""\
Usage: {PROGRAM} [OPTION]... [FILE]...
Print or check MD5, SHA224 or SHA256 checksums, computed by the variants package.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=TYPE  md5, sha224 or sha256; the default is sha256, and when
                          checking, the algorithm each line names or implies
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping
  -j, --jobs=N          hash up to N files at a time (default 1; 0: one per CPU);
                          the output stays in the order of the arguments
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

Output, messages and exit status are those of GNU coreutils' md5sum, sha224sum
and sha256sum. When checking, the input should be a former output of this
program or of those. The default mode is to print a line with: checksum, a
space, a character indicating input mode ('*' for binary, ' ' for text or where
binary is insignificant), and name for each FILE.

There is no difference between binary mode and text mode on this system.
MD5 is broken for security: use it for checksums against accidents only.
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
        self.jobs = 1
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
            _write(sys.stdout, USAGE.encode())
            raise SystemExit(0)
        elif key == "version":
            _write(sys.stdout, _version().encode())
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

        number = version("variants")
    except Exception:  # not installed: running from a source tree
        number = "(source tree)"
    return f"{PROGRAM} (variants) {number}\n"


# --- output -------------------------------------------------------------------------------


def _write(stream: Optional[TextIO], data: bytes) -> None:
    """Write ``data`` to a standard stream's bytes, whole, now."""
    if stream is None:  # started with the descriptor closed
        raise OSError("stream closed")
    stream.flush()
    stream.buffer.write(data)
    stream.buffer.flush()


def _isatty(stream: Optional[TextIO]) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


class Console:
    """Where results and messages go: each written whole, at once, in order.

    A failed write to stdout does not stop the run; it is reported once at
    the end as "write error" with exit status 1, as coreutils does.
    """

    def __init__(self, progress: Optional[Progress] = None) -> None:
        self.progress = progress
        self.write_failed = False
        # The progress line needs wiping before output only when they share a terminal.
        self._out_on_terminal = progress is not None and _isatty(sys.stdout)

    def out(self, record: bytes) -> None:
        if self.write_failed:
            return
        try:
            if self.progress is not None and self._out_on_terminal:
                with self.progress.hidden():
                    _write(sys.stdout, record)
            else:
                _write(sys.stdout, record)
        except (OSError, ValueError):
            self.write_failed = True

    def err(self, message: bytes) -> None:
        """``variants-sum: message`` on stderr."""
        record = f"{PROGRAM}: ".encode() + message + b"\n"
        try:
            if self.progress is not None:
                with self.progress.hidden():
                    _write(sys.stderr, record)
            else:
                _write(sys.stderr, record)
        except (OSError, ValueError):
            pass

    def file_error(self, name: bytes, error: OSError) -> None:
        """``variants-sum: NAME: No such file or directory``, the name quoted as coreutils does."""
        reason = os.strerror(error.errno) if error.errno else str(error)
        self.err(quote_name(name) + b": " + reason.encode())


# --- hashing ------------------------------------------------------------------------------


class Outcome(NamedTuple):
    """A file's digest, or why there is none."""

    digest: Optional[bytes]
    error: Optional[OSError] = None


class _Cancelled(Exception):
    pass


_local = threading.local()


def _buffer() -> memoryview:
    """This thread's read buffer of CHUNK bytes, allocated once."""
    view: Optional[memoryview] = getattr(_local, "view", None)
    if view is None or len(view) != CHUNK:  # (a test may change CHUNK)
        view = _local.view = memoryview(bytearray(CHUNK))
    return view


class Hasher:
    """Hashes named files with one variant, counting progress and watching for cancellation.

    With ``read_ahead`` (one file at a time, more than one CPU), a file longer
    than a chunk is read on a second thread into a ring of ``READ_AHEAD``
    buffers of ``READ_AHEAD_CHUNKS`` chunks each, while this thread hashes:
    the copy from the page cache then overlaps the hashing (the native kernels
    run without the GIL). 1 GiB with MD5 on the reference machine, in a trial:
    1.66-1.71 s against 1.83-1.97 s reading and hashing in turn. Small buffers lose that
    to hand-offs (128 KiB: 1.85 s). Otherwise reading and hashing alternate on
    one thread, a chunk at a time, as they do with ``-j 2`` and more, where
    every CPU is already hashing.
    """

    def __init__(
        self,
        constructors: Dict[str, Constructor],
        progress: Optional[Progress] = None,
        read_ahead: bool = False,
    ) -> None:
        self.constructors = constructors
        self.progress = progress
        self.read_ahead = read_ahead
        self.cancel = threading.Event()

    def __call__(self, name: bytes, algorithm: str) -> Outcome:
        """The digest of the file called ``name`` (``-``: standard input)."""
        stdin = name == b"-"
        try:
            fd = 0 if stdin else os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            return Outcome(None, exc)
        try:
            return Outcome(self._hash(fd, algorithm))
        except OSError as exc:
            return Outcome(None, exc)
        finally:
            if not stdin:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _hash(self, fd: int, algorithm: str) -> bytes:
        h = self.constructors[algorithm]()
        update = h.update
        read = _reader(fd)
        progress = self.progress
        cancel = self.cancel
        if hasattr(os, "posix_fadvise"):
            with contextlib.suppress(OSError):
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
        # Only a regular file: its reads never wait, so the reading thread stops promptly.
        ahead = self.read_ahead and stat.S_ISREG(os.fstat(fd).st_mode)
        chunks = _chunks_read_ahead(read) if ahead else _chunks(read)
        with contextlib.closing(chunks):  # stops the reading thread, if any, on errors
            for chunk in chunks:
                update(chunk)
                if progress is not None:
                    progress.advance(len(chunk))
                if cancel.is_set():
                    raise _Cancelled
        return h.digest()


#: Buffers in the read-ahead ring, and their size in chunks (CHUNK bytes).
READ_AHEAD = 3
READ_AHEAD_CHUNKS = 8


def _chunks(read: Callable[[memoryview], int]) -> Generator[memoryview, None, None]:
    """The file's bytes, a chunk at a time, in this thread's one reused buffer.

    Each chunk is valid until the next is asked for."""
    view = _buffer()
    while True:
        size = read(view)
        if not size:
            return
        yield view[:size]


def _chunks_read_ahead(
    read: Callable[[memoryview], int],
) -> Generator[memoryview, None, None]:
    """As ``_chunks``, with a thread reading ahead once the file outgrows one chunk."""
    view = _buffer()
    size = read(view)
    if size < len(view):  # the whole file fits in a chunk: no thread for that
        if size:
            yield view[:size]
            yield from _chunks(read)  # (a file that grew meanwhile)
        return
    yield view
    free: queue.SimpleQueue[Optional[memoryview]] = queue.SimpleQueue()
    full: queue.SimpleQueue[Union[Tuple[memoryview, int], OSError]] = queue.SimpleQueue()
    for _ in range(READ_AHEAD):
        free.put(memoryview(bytearray(READ_AHEAD_CHUNKS * len(view))))

    def reader() -> None:
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

    thread = threading.Thread(target=reader, name="variants-sum read-ahead", daemon=True)
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


def _reader(fd: int) -> Callable[[memoryview], int]:
    """``readinto`` for a file descriptor, without a file object's buffering."""
    readv = getattr(os, "readv", None)
    if readv is not None:
        return lambda view: readv(fd, [view])
    import io

    raw = io.FileIO(fd, "rb", closefd=False)  # pragma: no cover - PyPy without readv
    return lambda view: raw.readinto(view) or 0  # pragma: no cover


def _line(opts: Options, algorithm: str, digest: bytes, name: bytes) -> bytes:
    """One output line, as ``md5sum [--tag] [-b] [-z]`` writes it."""
    escape = not opts.zero and any(c in name for c in b"\\\n\r")
    shown = escape_name(name) if escape else name
    mark = b"\\" if escape else b""
    end = b"\0" if opts.zero else b"\n"
    hexdigest = digest.hex().encode()
    if opts.tag:
        return mark + TAGS[algorithm] + b" (" + shown + b") = " + hexdigest + end
    return mark + hexdigest + b" " + (b"*" if opts.binary == 1 else b" ") + shown + end


def _hash_files(opts: Options, hasher: Hasher, console: Console, algorithm: str) -> bool:
    ok = True
    results = in_order(
        opts.files,
        lambda name: hasher(name, algorithm),
        opts.jobs,
        inline=lambda name: name == b"-",
        cancel=hasher.cancel,
    )
    for name, outcome in results:
        if outcome.digest is None:
            assert outcome.error is not None
            console.file_error(name, outcome.error)
            ok = False
        else:
            console.out(_line(opts, algorithm, outcome.digest, name))
    return ok


# --- checking -----------------------------------------------------------------------------


class _Misformatted(NamedTuple):
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
                self.opts.jobs,
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
        # Here (unlike when hashing) only a newline makes coreutils escape a name.
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


# --- the registry -------------------------------------------------------------------------


def list_variants() -> str:
    """The registry as a table: name, kind, algorithms, importable here (or why not)."""
    import variants
    from variants import registry

    rows = [("VARIANT", "KIND", "ALGORITHMS", "HERE")]
    for entry in registry.VARIANTS:
        problem = registry.status(entry.name)
        if problem is None:
            details = registry.load(entry.name).details
            here = "importable" + (f"; {details}" if details else "")
        else:
            here = f"not importable: {problem}"
        name = entry.name + (" (default)" if entry.name == variants.default_variant.name else "")
        rows.append((name, entry.kind, " ".join(entry.algorithms), here))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths)) + "  " + row[3] + "\n"
        for row in rows
    )


# --- main ---------------------------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    Console().err(message.encode())
    raise SystemExit(1)


def _progress(opts: Options) -> Optional[Progress]:
    """A progress report if stderr is a terminal and it would not be out of place."""
    if opts.status or opts.quiet:
        return None
    stderr = sys.stderr
    if stderr is None or not _isatty(stderr):
        return None
    fd = stderr.fileno()
    total: Optional[int] = None
    if not opts.check:
        total = 0
        for name in opts.files:
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

    return Progress(write, program=PROGRAM, total=total or None, width=width)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``variants-sum`` with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    try:
        return _main(argv)
    except SystemExit as exc:  # --help, --version, fatal errors
        return exc.code if isinstance(exc.code, int) else 1


def _main(argv: Optional[Sequence[str]]) -> int:
    if argv is None:
        # Die of SIGPIPE when the reader goes away, as coreutils does.
        import signal

        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        Console().err(
            str(exc).encode() + f"\nTry '{PROGRAM} --help' for more information.".encode()
        )
        return 1
    if opts.list_variants:
        _write(sys.stdout, list_variants().encode())
        return 0

    import variants
    from variants import registry

    try:
        loaded = variants.default_variant if opts.variant is None else registry.load(opts.variant)
    except (ValueError, registry.VariantUnavailable) as exc:
        _fail(f"variant {quote_word(opts.variant or '')}: {exc}")
    if opts.algorithm is not None and opts.algorithm not in loaded.constructors:
        _fail(f"variant {quote_word(loaded.name)} does not provide {opts.algorithm}")

    progress = _progress(opts)
    console = Console(progress)
    # Reading ahead pays when one file at a time leaves a CPU idle.
    read_ahead = opts.jobs == 1 and (os.cpu_count() or 1) > 1
    hasher = Hasher(loaded.constructors, progress, read_ahead)
    try:
        if opts.check:
            usable = (
                [opts.algorithm]
                if opts.algorithm
                else [name for name in ALGORITHMS if name in loaded.constructors]
            )
            checker = Checker(opts, hasher, console, usable)
            ok = True
            for list_name in opts.files:
                ok = checker.check(list_name) and ok
        else:
            algorithm = opts.algorithm or DEFAULT_ALGORITHM
            if algorithm not in loaded.constructors:
                _fail(f"variant {quote_word(loaded.name)} does not provide {algorithm}")
            ok = _hash_files(opts, hasher, console, algorithm)
    except KeyboardInterrupt:
        hasher.cancel.set()
        return 130
    finally:
        if progress is not None:
            progress.close()
    if console.write_failed:
        console.err(b"write error")
        return 1
    return 0 if ok else 1
