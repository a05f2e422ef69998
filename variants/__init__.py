"""MD5, SHA-224 and SHA-256 as a drop-in for ``hashlib``, in several implementations.

    >>> import variants
    >>> variants.sha256(b"abc").hexdigest()[:16]
    'ba7816bf8f01cfea'
    >>> variants.new("MD5", b"abc").hexdigest()
    '900150983cd24fb0d6963f7d28e17f72'

The drop-in, with hashlib's names and behaviour:

``md5``, ``sha224``, ``sha256``
    constructors, ``md5(data=b"", *, usedforsecurity=True)``
``new(name, data=b"")``
    a hash object by algorithm name (any case)
``file_digest(fileobj, digest)``
    hash a binary file in bounded memory, like ``hashlib.file_digest``
    (also on Python 3.9 and 3.10)
``algorithms_available``, ``algorithms_guaranteed``
    ``{"md5", "sha224", "sha256"}``

They come from the fastest variant that is importable here, ``default_variant``
(or the one named by the environment variable ``VARIANTS_DEFAULT``);
``get(name)`` gives any registered variant's, and ``variants.registry`` lists
them all. The hash objects offer ``update``, ``digest``, ``hexdigest``,
``copy``, ``name``, ``digest_size`` and ``block_size``, accept any bytes-like
data and raise what hashlib raises; they work with ``hmac``.

On the command line, ``variants-sum`` (or ``python -m variants``) stands in
for md5sum, sha224sum and sha256sum: see ``variants.cli``.

MD5 is broken for security (collisions are cheap); use it for checksums and
compatibility only. SHA-224 and SHA-256 are fine.
"""

from __future__ import annotations

from variants import registry
from variants._files import file_digest
from variants.registry import Loaded, VariantUnavailable

__all__ = [
    "Loaded",
    "VariantUnavailable",
    "algorithms_available",
    "algorithms_guaranteed",
    "default_variant",
    "file_digest",
    "get",
    "md5",
    "new",
    "sha224",
    "sha256",
]


def get(name: str) -> Loaded:
    """The variant called ``name``: its ``md5``, ``sha224``, ``sha256`` and ``new``.

    Raises ``ValueError`` for an unknown name and ``VariantUnavailable`` (an
    ``ImportError``) with the reason when the variant cannot be imported here.
    """
    return registry.load(name)


#: The variant behind the module-level constructors, chosen once at import.
default_variant: Loaded = get(registry.default_name())

md5 = default_variant.md5
sha224 = default_variant.sha224
sha256 = default_variant.sha256
new = default_variant.new
algorithms_guaranteed = frozenset(default_variant.algorithms_available)
algorithms_available = algorithms_guaranteed
