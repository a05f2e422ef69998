"""The default mode: each FILE's checksum line, in the order of the arguments."""

from __future__ import annotations

from variants.cli import lanes
from variants.cli.checklines import format_line
from variants.cli.hashing import Hasher
from variants.cli.jobs import in_order
from variants.cli.options import Options
from variants.cli.output import Console


def hash_files(opts: Options, hasher: Hasher, console: Console, algorithm: str) -> bool:
    """Print a line per file (``-j`` files hashed at a time, or several files together
    through the native variant's lanes); whether every file could be read.

    A file that cannot be read gets a message on stderr instead of a line.
    Standard input is read on this thread, when its turn comes.
    """
    ok = True
    # More than one file and no -j (which asks for threads): together, in the lanes.
    if opts.jobs is None and hasher.bridge is not None and len(opts.files) > 1:
        results = lanes.hash_in_lanes(opts.files, algorithm, hasher, hasher.bridge)
    else:
        results = in_order(
            opts.files,
            lambda name: hasher(name, algorithm),
            opts.jobs or 1,
            inline=lambda name: name == b"-",
            cancel=hasher.cancel,
        )
    for name, outcome in results:
        if outcome.digest is None:
            assert outcome.error is not None
            console.file_error(name, outcome.error)
            ok = False
        else:
            line = format_line(
                algorithm,
                outcome.digest,
                name,
                tag=opts.tag,
                binary=opts.binary == 1,
                zero=opts.zero,
            )
            console.out(line)
    return ok
