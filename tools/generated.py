"""What every generator in tools/ does with its output: write it, or check it is up to date.

python tools/gen_X.py          # rewrite the generated files
python tools/gen_X.py --check  # exit 1, with a diff, if one is out of date
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Callable, List, Mapping

ROOT = Path(__file__).resolve().parent.parent


def main(argv: List[str], files: Mapping[Path, Callable[[], str]], doc: str, script: str) -> int:
    """Render each of ``files`` and write it, or with ``--check`` compare it; the exit status."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--check", action="store_true", help="fail if a file is out of date")
    args = parser.parse_args(argv)
    stale = []
    for path, render in files.items():
        text = render()
        current = path.read_text() if path.exists() else ""
        if current == text:
            continue
        name = path.relative_to(ROOT).as_posix()
        if args.check:
            stale.append(name)
            diff = difflib.unified_diff(current.splitlines(True), text.splitlines(True), name, name)
            sys.stdout.writelines(list(diff)[:40])
        else:
            path.write_text(text)
            print(f"wrote {name}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python {script}")
    return 1 if stale else 0
