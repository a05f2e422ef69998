"""The registry of variants: the one list that tests, benchmarks and the drop-in read.

Each entry says what the variant is (name, kind, where its code lives), which
algorithms it provides and, once asked, whether it can be imported here and why
not. Loading is lazy: asking for the list imports nothing.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from types import ModuleType

from variants import _algorithms, _catalog, _many, _settings
from variants._shell import (
    _EMPTY,
    ALGORITHMS,
    UNSUPPORTED,
    Compress,
    Constructor,
    HashObject,
    make_types,
)
from variants._typing import TYPE_CHECKING, cast
from variants.native import Bridge, column_io

if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

    from variants._column import Column

#: Set to a variant name to make it the drop-in's default.
DEFAULT_ENV = _settings.DEFAULT_ENV
#: Set to 1 to make every variant that this interpreter should run a hard
#: requirement: tests then fail, rather than skip, when one cannot be imported.
REQUIRE_ALL_ENV = _settings.REQUIRE_ALL_ENV

KINDS = ("interpreted", "compiled", "native")
#: The kind of HASHLIB, which is not among the registry's variants.
REFERENCE = "reference"


class VariantUnavailable(ImportError):
    """The variant exists but cannot be used in this interpreter or install."""


#: The cores of every native bridge (and of hashlib): every core of variants/_algorithms.py.
BRIDGE_CORES = tuple(core.name for core in _algorithms.CORES)


class Variant:
    """One way of running the algorithms: those of the cores it has (MD5's, SHA-256's, SHA-1's,
    SHA-512's; some shapes only some).

    A variant either plugs block functions into the shared shell
    (``block_modules``) or is native: its ``bridge`` module (a
    ``variants.native.Bridge``) brings its own hash objects, keeping the whole
    state machine in C. ``HASHLIB``, the reference, brings hashlib's.
    """

    __slots__ = (
        "block_modules",
        "bridge",
        "description",
        "kind",
        "name",
        "source",
        "study_only",
        "unsupported",
    )

    def __init__(
        self,
        name: str,
        kind: str,
        description: str,
        block_modules: Callable[[], Mapping[str, str]] = dict,
        bridge: Optional[str] = None,
        unsupported: Callable[[], Optional[str]] = lambda: None,
        source: Optional[str] = None,
        study_only: bool = False,
    ) -> None:
        self.name = name
        self.kind = kind
        self.description = description
        #: The modules holding ``compress`` for each core ("md5", "sha256", "sha1", "sha512")
        #: it provides, for this interpreter.
        self.block_modules = block_modules
        #: The native bridge module that makes the hash objects, if not the shell.
        self.bridge = bridge
        #: Why this interpreter cannot run the variant at all (None: it can).
        self.unsupported = unsupported
        #: The interpreted variant this one compiles, if it is a compiled twin.
        self.source = source
        #: Built only by the study's build (``VARIANTS_BUILD=study pip install .``).
        self.study_only = study_only

    def __repr__(self) -> str:
        return f"Variant({self.name!r}, {self.kind!r})"

    @property
    def cores(self) -> Tuple[str, ...]:
        """The block functions ("md5", "sha256", "sha1", "sha512") it has."""
        if self.bridge or self.kind == REFERENCE:
            return BRIDGE_CORES
        return tuple(self.block_modules())

    @property
    def algorithms(self) -> Tuple[str, ...]:
        """The algorithms it provides: each one whose core it has."""
        return tuple(name for name, spec in ALGORITHMS.items() if spec.core in self.cores)

    def excluded(self) -> Optional[str]:
        """Why this interpreter and this install are not meant to have the variant, or None."""
        reason = self.unsupported()
        if reason is None and self.study_only and installed_build() == _settings.BUILD_DEFAULT:
            reason = (
                "not in this install, the default build (the drop-in's variant only): "
                f"{_settings.STUDY_BUILD_HINT} builds the study's variants"
            )
        return reason

    def supported(self) -> bool:
        """Whether this interpreter and install are meant to run the variant."""
        return self.excluded() is None


@functools.cache
def installed_build() -> Optional[str]:
    """What the build of this copy of the package built: "default", "study", or None if unknown.

    The build records it in ``_build_info.json`` beside this module (setup.py);
    a source checkout has none.
    """
    try:
        with open(os.path.join(os.path.dirname(__file__), _settings.BUILD_INFO)) as file:
            import json  # (only here: a run of the command line need not pay for it)

            info = json.load(file)
    except (OSError, ValueError):
        return None
    build = info.get("build")
    return build if isinstance(build, str) else None


class Loaded:
    """An importable variant: its constructors, its batch and, where it has them, its
    block functions.

    The constructors of the algorithms it provides are attributes, as in
    hashlib (``variants.get("helpers").md5``), with ``md5_many`` and so on
    beside them; an algorithm it does not provide is no attribute, and asking
    for one raises an ``AttributeError`` that names the variant and what it
    has. Which algorithms a variant has is known only once it is loaded, so the
    type checker sees none of those attributes: typed code asks
    ``constructor("md5")`` (``VariantUnavailable`` if the variant lacks it) or
    reads ``constructors``, and calls ``digest_many``.
    """

    def __init__(
        self,
        variant: Variant,
        types: Mapping[str, Constructor],
        compress: Mapping[str, Compress],
        modules: Tuple[ModuleType, ...],
        details: str = "",
        bridge: Optional[Bridge] = None,
    ) -> None:
        self.variant = variant
        self.name = variant.name
        self.kind = variant.kind
        #: The constructors by algorithm name, of the algorithms it provides.
        self.constructors: Mapping[str, Constructor] = dict(types)
        #: Block functions by core ("md5", "sha256", "sha1", "sha512"), for the block-only
        #: benchmark.
        self.compress = dict(compress)
        #: The modules the code runs from (the compiled-twin tests inspect them).
        self.modules = modules
        #: What else to know about it here (for native: the kernels chosen).
        self.details = details
        #: A native variant's bridge to its C (its lanes hash many messages at once), or None.
        self.bridge = bridge
        for algorithm, constructor in types.items():
            setattr(self, algorithm, constructor)
            setattr(self, f"{algorithm}_many", functools.partial(self.digest_many, algorithm))
            setattr(self, f"{algorithm}_column", functools.partial(self.digest_column, algorithm))
        self.algorithms_available = frozenset(types)

    if not TYPE_CHECKING:  # (hidden from type checkers: it would make any attribute pass)

        def __getattr__(self, name: str) -> Any:
            """Only for an attribute not found: an algorithm this variant lacks, named so."""
            algorithm = name.rsplit("_", 1)[0] if name.endswith(("_many", "_column")) else name
            if algorithm in ALGORITHMS:
                raise AttributeError(self._lacks(algorithm))
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _lacks(self, algorithm: str) -> str:
        has = ", ".join(sorted(self.constructors)) or "nothing"
        return f"variant {self.name!r} does not provide {algorithm} (it provides {has})"

    def constructor(self, algorithm: str) -> Constructor:
        """The constructor of ``algorithm`` (``"md5"``, ``"sha1"``, ``"sha256"``, ..., any case),
        as ``hashlib.md5`` is one; ``VariantUnavailable`` if this variant does not provide it
        (a ``ValueError`` for an algorithm no variant has)."""
        algorithm = algorithm.lower()
        try:
            return self.constructors[algorithm]
        except KeyError:
            if algorithm not in ALGORITHMS:
                raise ValueError(f"unknown algorithm {algorithm!r}") from None
            raise VariantUnavailable(self._lacks(algorithm)) from None

    def _constructor(self, name: object) -> Tuple[str, Constructor]:
        """The algorithm called ``name`` (any case) and its constructor, or hashlib's error."""
        if not isinstance(name, str):
            raise TypeError(f"new() argument 'name' must be str, not {type(name).__name__}")
        try:
            return name.lower(), self.constructors[name.lower()]
        except KeyError:
            raise ValueError(UNSUPPORTED.format(name)) from None

    def new(self, name: str, data: object = _EMPTY, **kwargs: object) -> HashObject:
        """Like ``hashlib.new``: a hash object for the algorithm called ``name``."""
        _, constructor = self._constructor(name)
        if data is _EMPTY:
            return constructor(**kwargs)
        return constructor(data, **kwargs)

    def digest_many(
        self, name: str, messages: Iterable[object], *, hexdigest: bool = False, threads: int = 1
    ) -> List[Any]:
        """The digests of ``messages`` (bytes-like objects) with the algorithm called ``name``.

        Equal to ``[hashlib.new(name, m).digest() for m in messages]`` (or
        ``hexdigest()``), in input order. A message that is not bytes-like
        raises hashlib's error naming its index, before anything is hashed.
        ``threads`` > 1 spreads the work over that many threads (0: every
        CPU); the native variant hashes without the GIL and in SIMD lanes.
        """
        algorithm, constructor = self._constructor(name)
        count = _many.thread_count(threads)
        if self.bridge is not None:
            return self.bridge.digest_many(algorithm, messages, bool(hexdigest), count)
        return _many.loop(constructor, _many.checked(messages), bool(hexdigest), count)

    def digest_column(
        self, name: str, column: object, *, hexdigest: bool = False, threads: int = 1
    ) -> Column:
        """The digests of the rows of ``column`` (an Arrow array or chunked array, a NumPy
        ``S`` array, a 2-D uint8 array) as a column: see ``variants._column``.

        Row by row ``hashlib.new(name, row).digest()`` (or ``hexdigest()``), null
        for a null row. A column of another kind raises TypeError or ValueError
        before anything is hashed. ``threads`` > 1 spreads the work over that many
        threads (0: every CPU); the native variant hashes without the GIL and in
        SIMD lanes, with no Python object per row.
        """
        algorithm, constructor = self._constructor(name)
        count = _many.thread_count(threads)
        if self.bridge is not None:
            return self.bridge.digest_column(algorithm, column, bool(hexdigest), count)
        from variants import _column  # (only here, as json above)

        return _column.loop(algorithm, constructor, column, bool(hexdigest), count, column_io())

    def __repr__(self) -> str:
        return f"<variant {self.name!r} ({self.kind})>"


_CPYTHON = _settings.cpython()


def _cffi_on_cpython() -> Optional[str]:
    if not _CPYTHON:
        return "here the native variant itself runs through cffi"
    if not _settings.cffi_builds():
        return "cffi does not support the free-threaded CPython 3.13"
    return None


def _needs_cpython() -> Optional[str]:
    if not _CPYTHON:
        return f"compiled variants are built for CPython only; this is {sys.implementation.name}"
    return None


def _needs_mypyc() -> Optional[str]:
    if _settings.mypyc_builds():
        return None
    if _CPYTHON and sys.version_info < (3, 10):
        return "mypyc (current mypy) needs CPython 3.10 or newer"
    if _settings.free_threaded():
        return (
            "no mypyc here: current mypy does not install on the free-threaded CPython 3.13 "
            "(its compiled dependencies have no wheels for it)"
        )
    return _needs_cpython()


def _modules(package: str, modules: Mapping[str, str]) -> Callable[[], Dict[str, str]]:
    return lambda: {core: f"{package}.{module}" for core, module in modules.items()}


def _twin(twin: _catalog.Twin) -> Variant:
    """The registry entry of a compiled twin (build_support/compiled.py builds it)."""
    modules = _catalog.source(twin.source).modules
    how = f"with {twin.annotations} locals " if twin.annotations else ""
    return Variant(
        name=twin.name,
        kind="compiled",
        description=f"{twin.source}'s sources compiled {how}by {twin.compiler}",
        # the twin's package holds the source modules' files under their own names
        block_modules=_modules(twin.package, {c: m.rsplit(".", 1)[1] for c, m in modules.items()}),
        unsupported=_needs_mypyc if twin.compiler == "mypyc" else _needs_cpython,
        source=twin.source,
        study_only=True,
    )


def _source(source: _catalog.Source) -> Variant:
    return Variant(
        name=source.name,
        kind="interpreted",
        description=source.description,
        block_modules=_modules("variants", source.modules),
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
        bridge="variants.native.capi" if _CPYTHON else "variants.native.cffi_wrapper",
    ),
    Variant(
        name="native-cffi",
        kind="native",
        description="the native kernels behind cffi on CPython: what that bridge costs",
        bridge="variants.native.cffi_wrapper",
        unsupported=_cffi_on_cpython,
        study_only=True,
    ),
    Variant(
        name="cython",
        kind="compiled",
        description="typed Cython: uint32_t arithmetic (SHA-512's uint64_t) on a typed "
        "memoryview, no GIL",
        block_modules=_modules("variants", _catalog.TYPED_CYTHON),
        unsupported=_needs_cpython,
        study_only=True,
    ),
    *(_twin(twin) for twin in _catalog.TWINS),
    *(_source(source) for source in _catalog.SOURCES),
)
#: The standard library's hashlib as a variant: the drop-in's fallback and the
#: study's reference, not one of the registry's variants.
HASHLIB = Variant(
    name="hashlib",
    kind=REFERENCE,
    description="the standard library's hashlib (OpenSSL's code on CPython)",
)
_BY_NAME: Dict[str, Variant] = {v.name: v for v in (*VARIANTS, HASHLIB)}
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
    reason = entry.excluded()
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
    if entry.bridge:
        module = importlib.import_module(entry.bridge)
        bridge = cast(Bridge, module)  # (variants.native holds both bridges to the protocol)
        return Loaded(
            entry,
            bridge.constructors(),
            bridge.block_functions(),
            (module,),
            bridge.describe(),
            bridge,
        )
    if entry.kind == REFERENCE:
        from variants import _stdlib  # (only here: it imports hashlib)

        return Loaded(entry, _stdlib.constructors(), {}, (_stdlib,), _stdlib.describe())
    paths = entry.block_modules()
    modules = {core: importlib.import_module(path) for core, path in paths.items()}
    compress: Dict[str, Compress] = {core: module.compress for core, module in modules.items()}
    return Loaded(entry, make_types(entry.name, compress), compress, tuple(modules.values()))


def loaded() -> List[str]:
    """The variants imported in this process so far."""
    return list(_loaded)


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


require_all = _settings.require_all


def default_name() -> str:
    """The drop-in's variant: the pinned one, else ``native``, else hashlib's own objects.

    Without the native variant (no C compiler at install time, or a source
    checkout that was never built) every other variant is slower than hashlib,
    by how much the study's generated table "Every variant against hashlib" in
    docs/study.md says. The drop-in then hands out hashlib's objects, which
    behave as hashlib's by definition, and ``fallback_reason()`` says why.
    """
    pinned = os.environ.get(DEFAULT_ENV)
    if pinned:
        problem = status(pinned)
        if problem is not None:
            raise VariantUnavailable(f"{DEFAULT_ENV}={pinned}: {problem}")
        return pinned
    if status("native") is None:
        return "native"
    return HASHLIB.name


def fallback_reason() -> Optional[str]:
    """Why the drop-in hands out hashlib's objects and how to get the native variant, or None."""
    if os.environ.get(DEFAULT_ENV) or default_name() != HASHLIB.name:
        return None
    package = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.exists(os.path.join(package, os.pardir, "pyproject.toml"))
    where = (
        f" ({package} is a source checkout that was never built: it shadows any installed copy;"
        " run from elsewhere, or build in place with `pip install -e .`)"
        if checkout
        else ""
    )
    return (
        f"the native variant is not importable here{where}: {status('native')}; "
        "md5(), sha1(), sha256(), sha512(), new() and the others are hashlib's own objects "
        "instead, faster than any other variant here; `pip install .` with a C compiler builds "
        "the native one"
    )
