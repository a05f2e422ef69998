"""What can be measured under the running interpreter: the registry's variants and references.

A *target* is one row of the study's tables: a registered variant (names,
kinds, sources and twins read from ``variants.registry`` and
``variants._catalog``), or a reference row that is not a variant:

``hashlib``
    the interpreter's own hashlib (``variants.get("hashlib")``: the drop-in's
    fallback), the study's reference row;
``builtin``
    CPython's builtin ``_md5.md5`` and ``_sha2.sha256`` (``_sha256`` before
    3.12), hashlib's own fallback when OpenSSL is missing: a C bridge with no
    OpenSSL behind it;
``pypy-lib``
    PyPy's own pure-Python helper-style ``_md5.py``/``_sha256.py`` (Debian's
    pypy3-lib), loaded under another name, on any interpreter (on request).

Runs under every interpreter of the study, with the installed ``variants``.
"""

from __future__ import annotations

import fnmatch
import glob
import importlib
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

#: The study's algorithms, in the report's order: one of each core (MD5's, SHA-1's, SHA-256's,
#: SHA-512's; SHA-224 and SHA-384 run the same block functions as SHA-256 and SHA-512).
ALGORITHMS = ("md5", "sha1", "sha256", "sha512")
#: Each algorithm's name as the report says it.
TITLES = {"md5": "MD5", "sha1": "SHA-1", "sha256": "SHA-256", "sha512": "SHA-512"}
HASHLIB = "hashlib"
BUILTIN = "builtin"
PYPY_LIB = "pypy-lib"
REFERENCES = (HASHLIB, BUILTIN, PYPY_LIB)
#: Where Debian's pypy3-lib, and PyPy's own tarballs, put PyPy's pure-Python modules.
PYPY_LIB_GLOBS = ("/usr/lib/pypy3*/", "/usr/lib/pypy3*/lib_pypy/", "/opt/pypy*/lib_pypy/")


@dataclass(frozen=True)
class Twin:
    """Where a compiled twin comes from: its interpreted source and how it was compiled."""

    source: str
    compiler: str
    annotations: str = ""

    @property
    def build(self) -> str:
        return self.compiler + (f" ({self.annotations})" if self.annotations else "")


@dataclass(frozen=True)
class VariantInfo:
    """What a worker says of one row: the listing's record of it (``study.json``)."""

    name: str
    kind: str  # "interpreted" | "compiled" | "native" | "reference"
    description: str
    algorithms: Tuple[str, ...] = ALGORITHMS
    twin: Optional[Twin] = None
    details: str = ""
    unavailable: Optional[str] = None
    block: Tuple[str, ...] = ()  # the algorithms it has a block function of

    def as_json(self) -> Dict[str, Any]:
        twin = self.twin or Twin("", "", "")
        return {
            "kind": self.kind,
            "description": self.description,
            "algorithms": list(self.algorithms),
            "source": twin.source or None,
            "compiler": twin.compiler or None,
            "annotations": twin.annotations or None,
            "details": self.details,
            "unavailable": self.unavailable,
            "block": list(self.block),
        }

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> VariantInfo:
        source = data.get("source")
        twin = (
            Twin(source, str(data["compiler"]), data.get("annotations") or "") if source else None
        )
        return cls(
            name,
            str(data.get("kind", "")),
            str(data.get("description", "")),
            tuple(data.get("algorithms") or ()),
            twin,
            str(data.get("details") or ""),
            data.get("unavailable") or None,
            tuple(data.get("block") or ()),
        )


@dataclass
class Target:
    """One row: its constructors and block functions here, or why it cannot run here."""

    name: str
    kind: str
    description: str
    algorithms: Sequence[str] = ALGORITHMS
    constructors: Dict[str, Callable[..., Any]] = field(default_factory=dict)
    compress: Dict[str, Callable[..., Any]] = field(default_factory=dict)
    details: str = ""
    unavailable: Optional[str] = None
    twin: Optional[Twin] = None  # a compiled twin's source and build, from the catalog

    def info(self) -> VariantInfo:
        """What the run records of it."""
        return VariantInfo(
            self.name,
            self.kind,
            self.description,
            tuple(self.algorithms),
            self.twin,
            self.details,
            self.unavailable,
            tuple(sorted(self.compress)),
        )


def registered() -> List[str]:
    """Every registered variant, in the registry's order (the drop-in's preference)."""
    from variants import registry

    return registry.names()


def select(patterns: Sequence[str], pypy_lib: bool = False, references: bool = True) -> List[str]:
    """The names matching ``patterns`` (names or globs; empty: all), with the references.

    The order is the registry's, then ``hashlib`` and ``builtin`` (unless not
    ``references``), then ``pypy-lib`` if asked for (by ``pypy_lib`` or by naming it).
    """
    known = registered()
    if patterns:
        unknown = [p for p in patterns if p not in REFERENCES and not fnmatch.filter(known, p)]
        if unknown:
            raise ValueError(f"no variant matches {unknown}; known: {', '.join(known)}")
        chosen = [n for n in known if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    else:
        chosen = list(known)
    if references:
        chosen += [HASHLIB, BUILTIN]
    if pypy_lib or PYPY_LIB in patterns:
        chosen.append(PYPY_LIB)
    return chosen


def load(name: str) -> Target:
    """The row called ``name``, loaded if it can be."""
    if name == BUILTIN:
        return _builtin()
    if name == PYPY_LIB:
        return _pypy_lib()
    from variants import _catalog, registry

    entry = registry.variant(name)
    algorithms = [alg for alg in ALGORITHMS if alg in entry.algorithms]
    twins = {t.name: Twin(t.source, t.compiler, t.annotations) for t in _catalog.TWINS}
    common: Dict[str, Any] = {"algorithms": algorithms, "twin": twins.get(name)}
    problem = registry.status(name)
    if problem is not None:
        return Target(name, entry.kind, entry.description, unavailable=problem, **common)
    loaded = registry.load(name)
    return Target(
        name,
        entry.kind,
        entry.description,
        constructors={alg: loaded.constructors[alg] for alg in algorithms},
        compress={alg: loaded.compress[alg] for alg in algorithms if alg in loaded.compress},
        details=loaded.details,
        **common,
    )


def _builtin() -> Target:
    description = (
        "CPython's builtin _md5, _sha1 and _sha2 modules (hashlib's fallback without OpenSSL)"
    )
    if sys.implementation.name != "cpython":
        why = f"CPython's builtin modules; on {sys.implementation.name} see hashlib and pypy-lib"
        return Target(BUILTIN, "reference", description, unavailable=why)
    try:
        new = sys.version_info >= (3, 12)  # _sha256 and _sha512 became _sha2 in 3.12
        constructors = {
            "md5": importlib.import_module("_md5").md5,
            "sha1": importlib.import_module("_sha1").sha1,
            "sha256": importlib.import_module("_sha2" if new else "_sha256").sha256,
            "sha512": importlib.import_module("_sha2" if new else "_sha512").sha512,
        }
    except ImportError as exc:
        return Target(BUILTIN, "reference", description, unavailable=f"{exc}")
    return Target(BUILTIN, "reference", description, constructors=constructors)


def pypy_lib_folder() -> Optional[Path]:
    """The folder holding PyPy's pure-Python _md5.py, _sha1.py, _sha256.py and _sha512.py, if
    any."""
    for folder in (p for g in PYPY_LIB_GLOBS for p in sorted(glob.glob(g))):
        if all((Path(folder) / f"_{a}.py").exists() for a in ALGORITHMS):
            return Path(folder)
    return None


def _load_file(path: Path, alias: str) -> Any:
    """Import a file under another name, so PyPy's _md5 cannot shadow anything."""
    spec = importlib.util.spec_from_file_location(alias, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pypy_lib() -> Target:
    description = "PyPy's own pure-Python _md5/_sha1/_sha256/_sha512 (helper style)"
    folder = pypy_lib_folder()
    if folder is None:
        missing = "PyPy's _md5.py, _sha1.py, _sha256.py, _sha512.py not found (apt-get install "
        missing += "pypy3-lib)"
        return Target(PYPY_LIB, "reference", description, unavailable=missing)
    constructors = {
        a: getattr(_load_file(folder / f"_{a}.py", f"pypy_lib_{a}"), a) for a in ALGORITHMS
    }
    return Target(PYPY_LIB, "reference", f"{description}, {folder}", constructors=constructors)
