"""Where the study's files live, and how to start a bench module under another interpreter.

The measuring processes must import the *installed* ``variants`` of their
interpreter's environment (with its compiled extensions), never the
checkout's source tree, which sits beside ``bench/`` in the root. So a child
runs ``python -m bench.<module>`` with its working directory in a folder that
holds nothing but a link to ``bench/``: ``bench`` is importable there and
``variants`` comes from the environment.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


def save(folder: Path, kind: str, report: Callable[[Any], str], data: Any = None) -> str:
    """Write ``kind``.json (``data``; None: keep the folder's) and ``kind``.md, the report of
    it, into a run's ``folder``; the report."""
    if data is None:
        data = json.loads((folder / f"{kind}.json").read_text())
    else:
        (folder / f"{kind}.json").write_text(json.dumps(data, indent=1))
    text = report(data)
    (folder / f"{kind}.md").write_text(text)
    return text


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


def call(argv: Sequence[str]) -> None:
    """``python -m bench.layout MODULE.FUNCTION JSON`` (``Column.call`` starts it in a mode):
    ``bench.MODULE.FUNCTION(**JSON)``, what it returns printed as JSON."""
    module, function = argv[0].rsplit(".", 1)
    found = getattr(importlib.import_module(f"bench.{module}"), function)
    print(json.dumps(found(**json.loads(argv[1]))))


if __name__ == "__main__":
    call(sys.argv[1:])
