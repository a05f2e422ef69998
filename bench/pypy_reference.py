"""The foundation's targets: our pure-Python variants against PyPy's pure-Python _md5/_sha256.

PyPy ships helper-style pure-Python MD5 and SHA-256 (Debian: package pypy3-lib,
/usr/lib/pypy3.9/_md5.py and _sha256.py). Run under CPython, they are the
yardstick for the two styles here:

    python bench/pypy_reference.py                 # CPython running this script
    python bench/pypy_reference.py --length 65536 --rounds 21

Prints median throughput, interleaved in one process, and the ratios.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import platform
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interleaved import measure, table

import variants
from variants import registry

PYPY_LIB_GLOBS = ["/usr/lib/pypy3*/", "/usr/lib/pypy3*/lib_pypy/", "/opt/pypy*/lib_pypy/"]


def find_pypy_lib(explicit: Optional[str] = None) -> Optional[Path]:
    """The folder holding PyPy's _md5.py and _sha256.py, if installed."""
    candidates = [explicit] if explicit else [p for g in PYPY_LIB_GLOBS for p in glob.glob(g)]
    for folder in candidates:
        if folder and all((Path(folder) / name).exists() for name in ("_md5.py", "_sha256.py")):
            return Path(folder)
    return None


def load_module(path: Path, alias: str) -> ModuleType:
    """Import a file under another name, so PyPy's _md5 cannot shadow anything."""
    spec = importlib.util.spec_from_file_location(alias, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pypy_constructors(folder: Path) -> Dict[str, Callable[[bytes], Any]]:
    md5 = load_module(folder / "_md5.py", "pypy_pure_md5")
    sha = load_module(folder / "_sha256.py", "pypy_pure_sha256")
    return {"md5": md5.md5, "sha256": sha.sha256}


def one_shot(constructor: Callable[[bytes], Any], data: bytes) -> Callable[[], object]:
    """A call that hashes ``data`` from scratch: construct, update, digest."""
    return lambda: constructor(data).digest()


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--length", type=int, default=16384, help="message length in bytes")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--pypy-lib", help="folder with PyPy's _md5.py and _sha256.py")
    args = parser.parse_args(argv)
    folder = find_pypy_lib(args.pypy_lib)
    if folder is None:
        print("PyPy's pure-Python modules not found (apt-get install pypy3-lib)", file=sys.stderr)
        return 2
    data = bytes(i & 0xFF for i in range(args.length))
    reference = pypy_constructors(folder)
    interpreted = [v.name for v in registry.VARIANTS if v.kind == "interpreted"]
    candidates: Dict[str, Callable[[], object]] = {}
    for algorithm in ("md5", "sha256"):
        candidates[f"pypy-lib {algorithm}"] = one_shot(reference[algorithm], data)
        for name in interpreted:
            loaded = variants.get(name)
            if algorithm in loaded.constructors:
                candidates[f"{name} {algorithm}"] = one_shot(loaded.constructors[algorithm], data)
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {args.length} bytes, "
        f"{args.rounds} interleaved rounds, PyPy modules from {folder}"
    )
    medians = measure(candidates, rounds=args.rounds, progress=sys.stdout.isatty())
    rows = [["variant", "algorithm", "MB/s", "x PyPy's module"]]
    for key, seconds in medians.items():
        name, algorithm = key.split()
        ratio = medians[f"pypy-lib {algorithm}"] / seconds
        rows.append([name, algorithm, f"{args.length / seconds / 1e6:.3f}", f"{ratio:.2f}"])
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
