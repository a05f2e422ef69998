"""bench/'s imports of itself made relative, so the package installs under another name.

    python tools/relative_imports.py           # rewrite bench/ in place
    python tools/relative_imports.py --check   # exit 1 where an absolute import of bench is left

The styles tool is distributed as ``stylebench`` (tools/stylebench.py stages bench/ under that
name), and a package imports itself by whatever name it was installed under only if it never
spells its own: ``from bench.catalog import modes`` in bench/conduct/styles.py becomes
``from ..catalog import modes``, ``from bench import store`` becomes ``from .. import store``,
at module level and inside functions alike. A mechanical rewrite of lines, so that it can be
run again after other branches touch bench/ (it leaves relative imports as they are).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "bench"
#: ``from bench[.a.b] import ...``, at any indentation.
FROM = re.compile(r"^(?P<indent>[ \t]*)from (?P<module>bench(?:\.[\w.]+)?) import ", re.M)
#: ``import bench...`` (not used in bench/; a rewrite cannot keep its name, so it is an error).
IMPORT = re.compile(r"^[ \t]*import bench\b", re.M)


def relative(module: str, package: List[str]) -> str:
    """``module`` (``bench.catalog.modes``) as seen from a module of ``package``
    (``["bench", "conduct"]``): ``..catalog.modes``."""
    parts = module.split(".")
    common = 0
    while common < min(len(parts), len(package)) and parts[common] == package[common]:
        common += 1
    dots = "." * (len(package) - common + 1)
    return dots + ".".join(parts[common:])


def rewrite(path: Path, root: Path = ROOT) -> str:
    """The text of ``path`` (a module of bench/) with its imports of bench relative."""
    rel = path.relative_to(root).with_suffix("")
    package = list(rel.parts[:-1])  # a module and a package's __init__ alike: their folder
    text = path.read_text()
    if IMPORT.search(text):
        raise SystemExit(f"{path}: 'import bench...' cannot be made relative; use 'from'")
    return FROM.sub(lambda m: f"{m['indent']}from {relative(m['module'], package)} import ", text)


def main(argv: List[str]) -> int:
    check = "--check" in argv
    stale = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        new = rewrite(path)
        if new != path.read_text():
            stale.append(path)
            if not check:
                path.write_text(new)
    if check and stale:
        print(
            "absolute imports of bench left in: "
            + ", ".join(str(p.relative_to(ROOT)) for p in stale)
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
