"""PyPy's own pure-Python MD5 and SHA-256: the study's helper-style yardstick.

PyPy ships ``_md5.py`` and ``_sha256.py`` written in the textbook helper style
(Debian: package pypy3-lib). Loaded under another name, they run on any
interpreter as a reference row.
"""

from __future__ import annotations

import glob
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Optional

#: Where Debian's pypy3-lib, and PyPy's own tarballs, put them.
GLOBS = ("/usr/lib/pypy3*/", "/usr/lib/pypy3*/lib_pypy/", "/opt/pypy*/lib_pypy/")
FILES = ("_md5.py", "_sha256.py")


def find(explicit: Optional[str] = None) -> Optional[Path]:
    """The folder holding PyPy's _md5.py and _sha256.py (``explicit``, or searched for)."""
    candidates = [explicit] if explicit else [p for g in GLOBS for p in sorted(glob.glob(g))]
    for folder in candidates:
        if folder and all((Path(folder) / name).exists() for name in FILES):
            return Path(folder)
    return None


def _load(path: Path, alias: str) -> ModuleType:
    """Import a file under another name, so PyPy's _md5 cannot shadow anything."""
    spec = importlib.util.spec_from_file_location(alias, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def constructors(folder: Path) -> Dict[str, Callable[..., Any]]:
    """PyPy's pure-Python MD5 and SHA-256 constructors, loaded from ``folder``."""
    return {
        "md5": _load(folder / "_md5.py", "pypy_lib_md5").md5,
        "sha256": _load(folder / "_sha256.py", "pypy_lib_sha256").sha256,
    }
