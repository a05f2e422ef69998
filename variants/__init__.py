"""MD5, SHA-1 and SHA-2 as a drop-in for ``hashlib``, in several implementations.

    >>> import variants
    >>> variants.sha256(b"abc").hexdigest()[:16]
    'ba7816bf8f01cfea'
    >>> variants.new("MD5", b"abc").hexdigest()
    '900150983cd24fb0d6963f7d28e17f72'

The drop-in, with hashlib's names and behaviour:

``md5``, ``sha1``, ``sha224``, ``sha256``, ``sha384``, ``sha512``, ``sha512_224``, ``sha512_256``
    constructors, ``md5(data=b"", *, usedforsecurity=True)`` (the last two are
    ``hashlib.new("sha512_224")`` and ``hashlib.new("sha512_256")`` in hashlib)
``new(name, data=b"")``
    a hash object by algorithm name (any case)
``file_digest(fileobj, digest)``
    hash a binary file in bounded memory, like ``hashlib.file_digest``
    (also on Python 3.9 and 3.10)
``algorithms_available``, ``algorithms_guaranteed``
    the eight names above; of them, the six hashlib guarantees (SHA-512/224 and
    SHA-512/256 are not among hashlib's guaranteed ones)

They come from the native variant, ``default_variant`` (or the variant named by
the environment variable ``VARIANTS_DEFAULT``). Where the native variant cannot
be imported (no C compiler at install time, or an unbuilt source checkout)
they are hashlib's own objects, faster than any other variant, and the first
use warns once (``SlowPathWarning``) saying why and how to build it;
``get(name)`` gives any registered variant's, and ``variants.registry`` lists
them all. The hash objects offer ``update``, ``digest``, ``hexdigest``,
``copy``, ``name``, ``digest_size`` and ``block_size``, accept any bytes-like
data and raise what hashlib raises; they work with ``hmac``.

The pure-Python and compiled variants have MD5, SHA-224 and SHA-256 only
(``get("helpers").sha1`` raises an ``AttributeError`` that says so); the
native variant and hashlib's have them all.

On the command line, ``variants-sum`` (or ``python -m variants``) stands in
for md5sum, sha1sum, sha224sum, sha256sum, sha384sum and sha512sum: see
``variants.cli``.

MD5 and SHA-1 are broken for security (collisions are cheap for MD5 and
practical for SHA-1); use them for checksums and compatibility only. The
SHA-2 algorithms are fine.
"""

from __future__ import annotations

import warnings

from variants import registry
from variants._shell import ALGORITHMS as _ALGORITHMS
from variants._shell import Constructor, HashObject
from variants._typing import TYPE_CHECKING
from variants.registry import Loaded, VariantUnavailable

if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, List, Literal, Union, overload

__all__ = [
    "Column",
    "Loaded",
    "SlowPathWarning",
    "VariantUnavailable",
    "algorithms_available",
    "algorithms_guaranteed",
    "default_variant",
    "digest_column",
    "digest_many",
    "fallback_reason",
    "file_digest",
    "get",
    "md5",
    "md5_column",
    "md5_many",
    "new",
    "sha1",
    "sha1_column",
    "sha1_many",
    "sha224",
    "sha224_column",
    "sha224_many",
    "sha256",
    "sha256_column",
    "sha256_many",
    "sha384",
    "sha384_column",
    "sha384_many",
    "sha512",
    "sha512_224",
    "sha512_224_column",
    "sha512_224_many",
    "sha512_256",
    "sha512_256_column",
    "sha512_256_many",
    "sha512_column",
    "sha512_many",
]


class SlowPathWarning(RuntimeWarning):
    """The drop-in hands out hashlib's objects: the native variant is not importable here."""


def get(name: str) -> Loaded:
    """The variant called ``name``: ``new``, ``digest_many`` and the constructors of the
    algorithms it provides (``get("helpers").md5``; typed: ``constructor("md5")``).

    Raises ``ValueError`` for an unknown name and ``VariantUnavailable`` (an
    ``ImportError``) with the reason when the variant cannot be imported here.
    ``get("hashlib")`` is hashlib's own objects, the drop-in's fallback.
    """
    return registry.load(name)


#: The variant behind the module-level constructors, chosen once at import.
default_variant: Loaded = get(registry.default_name())
#: Why the drop-in fell back to hashlib's objects, or None.
fallback_reason = registry.fallback_reason()

#: hashlib's guaranteed algorithms among those the drop-in has (hashlib reaches SHA-512/224 and
#: SHA-512/256 only by name, and only where OpenSSL has them; the native variant always has them).
_HASHLIB_GUARANTEED = frozenset({"md5", "sha1", "sha224", "sha256", "sha384", "sha512"})
algorithms_available = frozenset(default_variant.algorithms_available)
algorithms_guaranteed = algorithms_available & _HASHLIB_GUARANTEED
#: The algorithms with a constructor of their own in the drop-in, hashlib's names.
_CONSTRUCTED = tuple(sorted(_ALGORITHMS))  # (variants/_algorithms.py)
#: The names the drop-in binds to ``default_variant``'s.
_DROP_IN = (
    *_CONSTRUCTED,
    "new",
    "digest_many",
    *(f"{algorithm}_many" for algorithm in _CONSTRUCTED),
    "digest_column",
    *(f"{algorithm}_column" for algorithm in _CONSTRUCTED),
)

md5: Constructor
sha1: Constructor
sha224: Constructor
sha256: Constructor
sha384: Constructor
sha512: Constructor
sha512_224: Constructor
sha512_256: Constructor
new: Callable[..., HashObject]

#: Names imported when first used (PEP 562), so that ``import variants.cli`` (a run of the
#: command line) does not pay for them: by name, the module that defines them.
_LAZY = {"Column": "variants._column", "file_digest": "variants._files"}

if TYPE_CHECKING:  # the drop-in's batch functions, as type checkers see them
    from typing_extensions import Buffer

    from variants._column import Column
    from variants._files import file_digest

    @overload
    def digest_many(
        name: str,
        messages: Iterable[Buffer],
        *,
        hexdigest: Literal[False] = False,
        threads: int = 1,
    ) -> List[bytes]: ...
    @overload
    def digest_many(
        name: str, messages: Iterable[Buffer], *, hexdigest: Literal[True], threads: int = 1
    ) -> List[str]: ...
    def digest_many(
        name: str, messages: Iterable[Buffer], *, hexdigest: bool = False, threads: int = 1
    ) -> Union[List[bytes], List[str]]:
        """The digests of ``messages``, as ``[hashlib.new(name, m).digest() for m in
        messages]`` (or ``hexdigest()``) in input order: many messages at once, in the
        native variant's SIMD lanes, on ``threads`` threads (0: every CPU). A message that
        is not bytes-like raises hashlib's error naming its index, before any result."""

    @overload
    def md5_many(
        messages: Iterable[Buffer], *, hexdigest: Literal[False] = False, threads: int = 1
    ) -> List[bytes]: ...
    @overload
    def md5_many(
        messages: Iterable[Buffer], *, hexdigest: Literal[True], threads: int = 1
    ) -> List[str]: ...
    def md5_many(
        messages: Iterable[Buffer], *, hexdigest: bool = False, threads: int = 1
    ) -> Union[List[bytes], List[str]]:
        """``digest_many("md5", messages, ...)``."""

    sha1_many = md5_many
    sha224_many = md5_many
    sha256_many = md5_many
    sha384_many = md5_many
    sha512_many = md5_many
    sha512_224_many = md5_many
    sha512_256_many = md5_many

    def digest_column(
        name: str, column: object, *, hexdigest: bool = False, threads: int = 1
    ) -> Column:
        """The digests of the rows of ``column`` (an Arrow array or chunked array, a NumPy
        ``S`` array, a 2-D uint8 array) as a column exporting Arrow's PyCapsule interface
        and the buffer protocol, made in C with no Python object per row: see
        ``variants._column``."""

    def md5_column(column: object, *, hexdigest: bool = False, threads: int = 1) -> Column:
        """``digest_column("md5", column, ...)``."""

    sha1_column = md5_column
    sha224_column = md5_column
    sha256_column = md5_column
    sha384_column = md5_column
    sha512_column = md5_column
    sha512_224_column = md5_column
    sha512_256_column = md5_column


def _bind() -> None:
    """Bind the drop-in's names that ``default_variant`` has (a variant pinned by
    ``VARIANTS_DEFAULT`` may lack an algorithm: then so does the drop-in)."""
    for each in _DROP_IN:
        # md5_many: md5; sha512_224_column: sha512_224; new, digest_many: every variant's
        algorithm = each.removesuffix("_many").removesuffix("_column")
        if algorithm in default_variant.algorithms_available or algorithm not in _ALGORITHMS:
            globals()[each] = getattr(default_variant, each)


def __getattr__(name: str) -> Any:
    """A name of ``_LAZY``, imported now; a drop-in name not bound yet: after the fallback's
    one warning, bound on first use; else an algorithm the default variant lacks, named so
    (PEP 562)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name not in _DROP_IN:
        raise AttributeError(f"module 'variants' has no attribute {name!r}")
    if fallback_reason is not None:
        warnings.warn(str(fallback_reason), SlowPathWarning, stacklevel=2)
        _bind()
    return getattr(default_variant, name)


if fallback_reason is None:
    _bind()
