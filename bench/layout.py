"""Where the study's files live, and how to start a bench module under another interpreter.

The measuring processes must import the *installed* ``variants`` of their
interpreter's environment (with its compiled extensions), never the
checkout's source tree, which sits beside ``bench/`` in the root. So a child
runs ``python -m bench.<module>`` with its working directory in a folder that
holds nothing but a link to ``bench/``: ``bench`` is importable there and
``variants`` comes from the environment.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = ROOT / "results"
DOCS = ROOT / "docs"
README = ROOT / "README.md"
STUDY = DOCS / "study.md"


def newest(kind: str, needs: str, results: Path = RESULTS) -> Optional[Path]:
    """The newest finished run of ``kind`` under ``results`` (one that has written ``needs``)."""
    runs = sorted((results / kind).glob("2*/" + needs))
    return runs[-1].parent if runs else None


def import_folder(results: Path = RESULTS) -> Path:
    """A folder holding only a link to this package (made on first use, and made again where
    it links to another checkout's, or to one that is gone: several clones share /tmp)."""
    folder = results / ".bench-import"
    link = folder / "bench"
    if not (link.is_symlink() and link.resolve() == BENCH):
        folder.mkdir(parents=True, exist_ok=True)
        fresh = folder / f".bench-{os.getpid()}"
        fresh.unlink(missing_ok=True)
        fresh.symlink_to(BENCH, target_is_directory=True)
        os.replace(fresh, link)  # atomic: a process beside this one sees the old or the new
    return folder


def module_command(
    python: str, module: str, *args: str, results: Path = RESULTS
) -> Tuple[List[str], Dict[str, str], Path]:
    """(argv, environment, working directory) that run ``python -m bench.<module> args``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if os.sep in python:  # a path: from the working directory it runs in, it must be absolute
        python = os.path.abspath(python)
    return [python, "-m", f"bench.{module}", *args], env, import_folder(results)


def run_in(python: str, module: str, args: Sequence[str], results: Path = RESULTS) -> int:
    """Run ``python -m bench.<module> args`` (another environment's interpreter); its status.

    The quick tools take ``--python PATH`` to run against the package installed
    in that environment, compiled variants included.
    """
    argv, env, cwd = module_command(python, module, *args, results=results)
    return subprocess.run(argv, env=env, cwd=cwd).returncode


def split_python(argv: Sequence[str]) -> Tuple[Optional[str], List[str]]:
    """(the value of ``--python PATH`` if given, the other arguments)."""
    rest: List[str] = []
    python: Optional[str] = None
    it = iter(argv)
    for arg in it:
        if arg == "--python":
            python = next(it, None)
        elif arg.startswith("--python="):
            python = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return python, rest
