"""``variants-sum``: md5sum, sha1sum, sha224sum, sha256sum, sha384sum, sha512sum on the variants.

    variants-sum -a sha256 FILE...        # what sha256sum FILE... prints, byte for byte
    variants-sum -a md5 --tag FILE...     # BSD style: MD5 (FILE) = ...
    variants-sum -c SUMS                  # verify a list (either style, any algorithm)
    variants-sum -j 2 FILE...             # two files at a time, output still in order
    variants-sum --variant helpers FILE   # any registered variant
    variants-sum --list-variants          # what is registered and what is importable here
    python -m variants ...                # the same

Output, messages and exit status are those of GNU coreutils 9.1 (Debian 12),
the program name aside: the escaping of names with a backslash, newline or
CR, ``-z``, ``--tag``, ``-b``/``-t``, and with ``-c`` the ``OK``/``FAILED``
lines, the warnings and ``--quiet``, ``--status``, ``--strict``, ``--warn``
and ``--ignore-missing``. Without ``-a`` the tool hashes with SHA-256 and,
when checking, takes each line's algorithm from its tag or the length of its
digest; with ``-a`` it accepts only that algorithm's lines, as md5sum does.

It follows 9.1 whatever coreutils is installed, or none. Later releases
differ in three corners (coreutils 9.7, Debian 13, has all three): from 9.2 a
NUL byte right after a line's digest reads differently with ``-c``
(``checklines``); from 9.4 ``-c`` escapes a name in its status lines for a
backslash or CR too, not only for a newline (``check``); from 9.6 a name with
an apostrophe and characters shown as ``$'...'`` escapes at both ends is
quoted differently in messages (``quoting``).

One module per job:

``options``     the command line, ``--help`` and ``--version``
``streams``     the program's name, and writing bytes to a standard stream whole
``output``      results to stdout and messages to stderr, in order, around the progress line
``compute``     the default mode: hash each FILE, print its line
``check``       ``-c``: verify checksum lists
``checklines``  the checksum line format, written and read
``hashing``     hashing one file with a variant, for progress and cancellation
``reading``     reading a file in chunks, in turn or ahead on a second thread
``lanes``       several files at once through the native bridge's SIMD lanes
``jobs``        ``-j``: files on several threads, results in order
``progress``    the progress line on a terminal
``quoting``     file names in messages, quoted as coreutils quotes them
``listing``     ``--list-variants``
"""

from __future__ import annotations

import os
import sys

from variants._typing import TYPE_CHECKING
from variants.cli import progress as progress_line
from variants.cli.compute import hash_files
from variants.cli.hashing import Hasher
from variants.cli.options import ALGORITHMS, DEFAULT_ALGORITHM, UsageError, parse_args
from variants.cli.output import Console
from variants.cli.quoting import quote_word
from variants.cli.streams import PROGRAM, write

if TYPE_CHECKING:
    from typing import Optional, Sequence

__all__ = ["main"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run ``variants-sum`` with ``argv`` (default: ``sys.argv[1:]``); the exit status.

    Called as the command (no ``argv``), it dies of SIGPIPE when its reader
    goes away, as coreutils does. ``--help``, ``--version`` and fatal errors
    end the run with their status rather than raising ``SystemExit``.
    """
    if argv is None:
        import signal

        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        # (os.fsencode: the bytes of the arguments the message quotes, as coreutils prints them)
        Console().err(os.fsencode(f"{exc}\nTry '{PROGRAM} --help' for more information."))
        return 1
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 1
    if opts.list_variants:
        from variants.cli.listing import list_variants

        write(sys.stdout, list_variants().encode())
        return 0

    import variants
    from variants import registry

    try:
        loaded = variants.default_variant if opts.variant is None else registry.load(opts.variant)
    except (ValueError, registry.VariantUnavailable) as exc:
        Console().err(os.fsencode(f"variant {quote_word(opts.variant or '')}: {exc}"))
        return 1
    if opts.variant is None and variants.fallback_reason is not None:
        Console().err(os.fsencode(variants.fallback_reason))  # as the drop-in warns
    algorithm = opts.algorithm or DEFAULT_ALGORITHM
    if (opts.algorithm or not opts.check) and algorithm not in loaded.constructors:
        Console().err(f"variant {quote_word(loaded.name)} does not provide {algorithm}".encode())
        return 1

    progress = progress_line.on_terminal(
        wanted=not (opts.status or opts.quiet),
        # When checking, the files to come are not known before the lists are read.
        files=() if opts.check else opts.files,
    )
    console = Console(progress)
    # Reading ahead pays when one file at a time leaves a CPU idle.
    read_ahead = (opts.jobs or 1) == 1 and (os.cpu_count() or 1) > 1
    # A native variant's bridge hashes several files at once in its lanes (variants.cli.lanes).
    hasher = Hasher(loaded.constructors, progress, read_ahead, loaded.bridge)
    try:
        if opts.check:
            usable = (
                [opts.algorithm]
                if opts.algorithm
                else [name for name in ALGORITHMS if name in loaded.constructors]
            )
            from variants.cli.check import Checker  # (-c only: a plain run need not import it)

            checker = Checker(opts, hasher, console, usable)
            ok = True
            for list_name in opts.files:
                ok = checker.check(list_name) and ok
        else:
            ok = hash_files(opts, hasher, console, algorithm)
    except KeyboardInterrupt:
        hasher.cancel.set()
        return 130
    finally:
        console.flush()
        if progress is not None:
            progress.close()
    if console.write_failed:
        console.err(b"write error")
        return 1
    return 0 if ok else 1
