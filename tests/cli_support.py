"""How the variants-sum tests run the tool: in this process, or as the command."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence, Union

from variants import cli
from variants.cli.quoting import locale_is_utf8

Arg = Union[str, bytes]


class Result(NamedTuple):
    status: int
    stdout: bytes
    stderr: bytes


#: The locale of this process, which in-process runs of the tool use.
HERE = "C.UTF-8" if locale_is_utf8() else "C"
#: The command, run as a new process.
COMMAND = [sys.executable, "-m", "variants"]


def run(args: Sequence[Arg], cwd: Path, stdin: bytes = b"", locale: str = HERE) -> Result:
    env = dict(os.environ, LC_ALL=locale)
    env.pop("POSIXLY_CORRECT", None)
    done = subprocess.run(list(args), cwd=cwd, input=stdin, capture_output=True, env=env)
    return Result(done.returncode, done.stdout, done.stderr)


def invoke(args: Sequence[str], cwd: Path) -> Result:
    """Run the tool in this process: the same code as the command, minus the start-up.

    Only for runs that do not read standard input.
    """
    saved = sys.stdout, sys.stderr, os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdout = out_text = io.TextIOWrapper(out, write_through=True)
    sys.stderr = err_text = io.TextIOWrapper(err, write_through=True)
    try:
        os.chdir(cwd)
        status = cli.main(list(args))
    finally:
        sys.stdout, sys.stderr, cwd_back = saved
        os.chdir(cwd_back)
        out_text.detach()
        err_text.detach()
    return Result(status, out.getvalue(), err.getvalue())


def ours(
    algorithm: Optional[str],
    args: Sequence[Arg],
    cwd: Path,
    stdin: Optional[bytes] = None,
    locale: Optional[str] = None,
) -> Result:
    """The tool's result: in a new process if it gets input or a locale, else in this one."""
    chosen: List[Arg] = ["-a", algorithm] if algorithm else []
    if stdin is None and locale is None:
        return invoke([os.fsdecode(arg) for arg in [*chosen, *args]], cwd)
    return run([*COMMAND, *chosen, *args], cwd, stdin or b"", locale or HERE)


def digest_line(algorithm: str, data: bytes, name: str) -> bytes:
    """The line md5sum prints for a file with a plain name (no escaping)."""
    return f"{hashlib.new(algorithm, data).hexdigest()}  {name}\n".encode()
