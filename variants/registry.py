"""The registry of variants: the one list that tests, benchmarks and the drop-in read.

Each entry says what the variant is (name, kind, where its code lives), which
algorithms it provides and, once asked, whether it can be imported here and why
not. Loading is lazy: asking for the list imports nothing.
"""

from __future__ import annotations

import importlib
import os
import sys
import sysconfig
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Dict, List, Mapping, Optional, Tuple

from variants._shell import _EMPTY, ALGORITHMS, Compress, Constructor, HashObject, make_types

#: Set to a variant name to make it the drop-in's default.
DEFAULT_ENV = "VARIANTS_DEFAULT"
#: Set to 1 to make every variant that this interpreter should run a hard
#: requirement: tests then fail, rather than skip, when one cannot be imported.
REQUIRE_ALL_ENV = "VARIANTS_REQUIRE_ALL"

KINDS = ("interpreted", "compiled", "native")


class VariantUnavailable(ImportError):
    """The variant exists but cannot be used in this interpreter or install."""


@dataclass(frozen=True)
class Variant:
    """One way of running the two algorithms.

    A variant either plugs block functions into the shared shell
    (``block_modules``) or brings its own hash objects (``provider``: a module
    with ``constructors()``, ``block_functions()`` and ``describe()``, as the
    native variant does, keeping the whole state machine in C).
    """

    name: str
    kind: str
    description: str
    #: The modules holding ``compress`` for each core ("md5", "sha256") it
    #: provides, for this interpreter.
    block_modules: Callable[[], Mapping[str, str]] = dict
    #: The module that provides the hash objects itself, if not the shell.
    provider: Optional[str] = None
    #: The cores a provider implements.
    provider_cores: Tuple[str, ...] = ()
    #: Why this interpreter cannot run the variant at all (None: it can).
    unsupported: Callable[[], Optional[str]] = lambda: None
    #: The interpreted variant this one compiles, if it is a compiled twin.
    source: Optional[str] = None

    @property
    def cores(self) -> Tuple[str, ...]:
        """The block functions ("md5", "sha256") it has."""
        return self.provider_cores if self.provider else tuple(self.block_modules())

    @property
    def algorithms(self) -> Tuple[str, ...]:
        """The algorithms it provides: each one whose core it has."""
        return tuple(name for name, spec in ALGORITHMS.items() if spec.core in self.cores)

    def supported(self) -> bool:
        """Whether this interpreter is one the variant is meant to run on."""
        return self.unsupported() is None


class Loaded:
    """An importable variant: its constructors and, where it has them, its block functions.

    ``md5``, ``sha224`` and ``sha256`` are the constructors of the algorithms
    the variant provides.
    """

    md5: Constructor
    sha224: Constructor
    sha256: Constructor

    def __init__(
        self,
        variant: Variant,
        types: Mapping[str, Constructor],
        compress: Mapping[str, Compress],
        modules: Tuple[ModuleType, ...],
        details: str = "",
    ) -> None:
        self.variant = variant
        self.name = variant.name
        self.kind = variant.kind
        self.constructors = dict(types)
        #: Block functions by core ("md5", "sha256"), for the block-only benchmark.
        self.compress = dict(compress)
        #: The modules the code runs from (the compiled-twin tests inspect them).
        self.modules = modules
        #: What else to know about it here (for native: the kernels chosen).
        self.details = details
        for algorithm, constructor in types.items():
            setattr(self, algorithm, constructor)
        self.algorithms_available = frozenset(types)

    def new(self, name: str, data: object = _EMPTY, **kwargs: object) -> HashObject:
        """Like ``hashlib.new``: a hash object for the algorithm called ``name``."""
        if not isinstance(name, str):
            raise TypeError(f"new() argument 'name' must be str, not {type(name).__name__}")
        try:
            constructor = self.constructors[name.lower()]
        except KeyError:
            raise ValueError(f"unsupported hash type {name}") from None
        if data is _EMPTY:
            return constructor(**kwargs)
        return constructor(data, **kwargs)

    def __repr__(self) -> str:
        return f"<variant {self.name!r} ({self.kind})>"


_PYPY = sys.implementation.name == "pypy"
_CPYTHON = sys.implementation.name == "cpython"


def _cffi_on_cpython() -> Optional[str]:
    if not _CPYTHON:
        return "here the native variant itself runs through cffi"
    if sysconfig.get_config_var("Py_GIL_DISABLED") and sys.version_info < (3, 14):
        return "cffi does not support the free-threaded CPython 3.13"
    return None


def _streamlined() -> Dict[str, str]:
    # SHA-256's fastest shape on CPython computes the message schedule in big
    # integers, which PyPy's JIT cannot keep in machine words: there the
    # variant runs the machine-word shape, which the JIT compiles well.
    sha256 = "sha256_words" if _PYPY else "sha256"
    return {"md5": "variants.streamlined.md5", "sha256": f"variants.streamlined.{sha256}"}


def _needs_cpython() -> Optional[str]:
    if sys.implementation.name != "cpython":
        return f"compiled twins are built for CPython only; this is {sys.implementation.name}"
    return None


def _needs_mypyc() -> Optional[str]:
    if sys.implementation.name == "cpython" and sys.version_info < (3, 10):
        return "mypyc (current mypy) needs CPython 3.10 or newer"
    return _needs_cpython()


def _modules(
    package: str, md5: str = "md5", sha256: str = "sha256"
) -> Callable[[], Dict[str, str]]:
    return lambda: {"md5": f"{package}.{md5}", "sha256": f"{package}.{sha256}"}


def _twin(source: str, compiler: str, md5: str = "md5", sha256: str = "sha256") -> Variant:
    """The compiled twin of ``source``'s modules, built by build_support/compiled.py."""
    package = f"variants._twins.{source.replace('-', '_')}_{compiler}"
    return Variant(
        name=f"{source}-{compiler}",
        kind="compiled",
        description=f"{source}'s unchanged sources compiled by {compiler}",
        block_modules=_modules(package, md5, sha256),
        unsupported=_needs_mypyc if compiler == "mypyc" else _needs_cpython,
        source=source,
    )


#: Every variant, in the drop-in's order of preference (fastest first).
VARIANTS: Tuple[Variant, ...] = (
    Variant(
        name="native",
        kind="native",
        description=(
            "C kernels per architecture behind a CPython C-API type, dispatched at run time"
            if _CPYTHON
            else "C kernels per architecture behind cffi (PyPy's fast way into C)"
        ),
        provider="variants.native.capi" if _CPYTHON else "variants.native.cffi_wrapper",
        provider_cores=("md5", "sha256"),
    ),
    Variant(
        name="native-cffi",
        kind="native",
        description="the native kernels behind cffi on CPython: what that bridge costs",
        provider="variants.native.cffi_wrapper",
        provider_cores=("md5", "sha256"),
        unsupported=_cffi_on_cpython,
    ),
    Variant(
        name="cython",
        kind="compiled",
        description="typed Cython: uint32_t arithmetic on a typed memoryview, no GIL",
        block_modules=_modules("variants.cython"),
        unsupported=_needs_cpython,
    ),
    Variant(
        name="streamlined-i64-mypyc",
        kind="compiled",
        description="streamlined-bytes with i64 locals, compiled by mypyc",
        block_modules=_modules("variants._twins.streamlined_i64_mypyc", "md5_i64", "sha256_i64"),
        unsupported=_needs_mypyc,
        # The annotations are not code: interpreted, these sources are
        # streamlined-bytes line for line.
        source="streamlined-bytes",
    ),
    _twin("streamlined", "cython"),
    _twin("streamlined", "mypyc"),
    _twin("streamlined-bytes", "mypyc", md5="md5_bytes", sha256="sha256_bytes"),
    _twin("helpers", "cython"),
    _twin("helpers", "mypyc"),
    Variant(
        name="streamlined",
        kind="interpreted",
        description="pure Python, each block function one unrolled loop body"
        + (" (SHA-256 in machine words on PyPy)" if _PYPY else ""),
        block_modules=_streamlined,
    ),
    Variant(
        name="streamlined-words",
        kind="interpreted",
        description="streamlined with every value a machine word (PyPy's shape)",
        block_modules=_modules("variants.streamlined", sha256="sha256_words"),
    ),
    Variant(
        name="streamlined-bytes",
        kind="interpreted",
        description="streamlined-words reading message words byte by byte (the compilers' shape)",
        block_modules=_modules("variants.streamlined", "md5_bytes", "sha256_bytes"),
    ),
    Variant(
        name="helpers",
        kind="interpreted",
        description="pure Python, textbook helper functions called per step",
        block_modules=_modules("variants.helpers"),
    ),
)
_BY_NAME: Dict[str, Variant] = {v.name: v for v in VARIANTS}
_loaded: Dict[str, Loaded] = {}
_failed: Dict[str, str] = {}


def names() -> List[str]:
    """Every registered variant, fastest first (the drop-in's order of preference)."""
    return [v.name for v in VARIANTS]


def variant(name: str) -> Variant:
    """The registry entry called ``name``."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(names())}") from None


def load(name: str) -> Loaded:
    """Import the variant called ``name``; ``VariantUnavailable`` says why it cannot be."""
    if name in _loaded:
        return _loaded[name]
    entry = variant(name)
    if name in _failed:
        raise VariantUnavailable(_failed[name])
    reason = entry.unsupported()
    if reason is None:
        try:
            loaded = _import(entry)
        except ImportError as exc:
            reason = f"{type(exc).__name__}: {exc}"
        else:
            _loaded[name] = loaded
            return loaded
    _failed[name] = reason
    raise VariantUnavailable(reason)


def _import(entry: Variant) -> Loaded:
    if entry.provider:
        provider = importlib.import_module(entry.provider)
        return Loaded(
            entry,
            provider.constructors(),
            provider.block_functions(),
            (provider,),
            provider.describe(),
        )
    paths = entry.block_modules()
    modules = {core: importlib.import_module(path) for core, path in paths.items()}
    compress: Dict[str, Compress] = {core: module.compress for core, module in modules.items()}
    return Loaded(entry, make_types(entry.name, compress), compress, tuple(modules.values()))


def status(name: str) -> Optional[str]:
    """None if the variant is importable here, else the reason it is not."""
    try:
        load(name)
    except VariantUnavailable as exc:
        return str(exc)
    return None


def available() -> List[str]:
    """The variants importable here, fastest first."""
    return [name for name in names() if status(name) is None]


def require_all() -> bool:
    """Whether the environment demands every supported variant (CI does)."""
    return os.environ.get(REQUIRE_ALL_ENV, "") not in ("", "0")


def default_name() -> str:
    """The drop-in's variant: the pinned one, or the fastest importable."""
    pinned = os.environ.get(DEFAULT_ENV)
    if pinned:
        problem = status(pinned)
        if problem is not None:
            raise VariantUnavailable(f"{DEFAULT_ENV}={pinned}: {problem}")
        return pinned
    for name in names():
        if status(name) is None and set(variant(name).algorithms) == set(ALGORITHMS):
            return name
    raise VariantUnavailable("no variant is importable")  # the pure-Python ones always are
