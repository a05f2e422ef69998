"""The native variant: MD5, SHA-256, SHA-1 and SHA-512 kernels in C per architecture, chosen at
run time (the drop-in's every algorithm: SHA-224 on SHA-256's, SHA-384 and SHA-512/t on SHA-512's).

The kernels (one C file per architecture and algorithm), their dispatch
(``dispatch.c``) and the hash state machine (``hash.c``) are reached through
one of two bridges, each an extension module of its own with the Python
interface ``Bridge`` below:

- ``variants.native.capi``: a CPython C-API type (``capi.c``), the
  ``native`` variant on CPython;
- ``variants.native.cffi_wrapper``: cffi, the ``native`` variant on PyPy
  (where cffi is the fast way into C) and ``native-cffi`` on CPython.

A loaded native variant reaches its bridge as ``Loaded.bridge``
(``variants.get("native").bridge``); other variants have none.

At import each bridge detects the CPU's features once and chooses a kernel
per core; setting ``VARIANTS_NATIVE_PORTABLE=1`` before the import makes it
choose the portable C kernels instead. ``kernels()``, ``kernel()`` and
``describe()`` here answer for this interpreter's native bridge.
"""

from __future__ import annotations

import importlib

from variants import _settings
from variants._shell import Compress, Constructor, HashObject
from variants._typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

    from variants._column import Column, RowIO
    from variants.native._kernels import Kernel

__all__ = [
    "BRIDGE",
    "PORTABLE_ENV",
    "Bridge",
    "bridge",
    "column_io",
    "describe",
    "kernel",
    "kernels",
]

#: Set (to anything but "" or "0") before import to run the portable kernels.
PORTABLE_ENV = _settings.NATIVE_PORTABLE_ENV

#: The module of this interpreter's native variant: the C-API type on CPython,
#: cffi elsewhere (PyPy).
BRIDGE = "variants.native.capi" if _settings.cpython() else "variants.native.cffi_wrapper"

#: Per file name given to ``Bridge.digest_files``: its digest, an errno, or None.
if TYPE_CHECKING:
    FileResult = Union[bytes, int, None]


class Bridge(Protocol):
    """What a native bridge module offers the registry, ``digest_many``, the command line's
    lanes (``variants.cli.lanes``) and the study (the modules have more for their own tests:
    ``block_function``, ``digest_many_with`` to force a kernel).

    The type checker holds both bridge modules to it (the end of this module)."""

    def constructors(self) -> Dict[str, Constructor]:
        """hashlib-compatible constructors by algorithm name."""

    def block_functions(self) -> Dict[str, Compress]:
        """The chosen kernels as block functions by core ("md5", "sha256", "sha1", "sha512")."""

    def describe(self) -> str:
        """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI, ...``."""

    def kernels(self) -> Dict[str, List[Kernel]]:
        """Each core's kernels in this build, portable first."""

    def kernel(self) -> Dict[str, str]:
        """The name of the kernel chosen for each core."""

    def ran(self) -> Dict[str, List[str]]:
        """The ids of each core's kernels that have run in this process."""

    def digest_many(
        self, algorithm: str, messages: Iterable[object], hexdigest: bool, threads: int
    ) -> List[Any]:
        """The digests of ``messages`` in the lanes (``Loaded.digest_many`` checks the
        arguments first)."""

    def absorb_many(self, hashes: Sequence[HashObject], chunks: Sequence[object]) -> None:
        """``hashes[i].update(chunks[i])`` for every i, several streams at once in the lanes:
        distinct objects of this bridge, of one core (MD5; SHA-1; SHA-224 and SHA-256; SHA-384
        and the SHA-512s)."""

    def digest_column(
        self, algorithm: str, column: object, hexdigest: bool, threads: int
    ) -> Column:
        """The digests of a column's rows as a column (``Loaded.digest_column`` checks the
        other arguments first; see ``variants._column``)."""

    def digest_files(
        self, algorithm: str, names: Sequence[bytes], small: int, threads: int = 1
    ) -> List[FileResult]:
        """Per file name: its digest if it is a regular file of at most ``small`` bytes, an
        errno if it cannot be opened or read, else None (``threads`` may read them)."""


def bridge() -> Bridge:
    """This interpreter's native bridge module (ImportError, with why, if it was not built)."""
    return cast(Bridge, importlib.import_module(BRIDGE))


def column_io() -> Optional[RowIO]:
    """The C-API module's row reader and column maker, for the variants that hash a column's
    rows one by one (``variants._column.loop``); None where it is not built."""
    try:
        from variants.native import capi
    except ImportError:
        return None
    return capi


def kernels() -> Dict[str, List[Kernel]]:
    """Each core's kernels in this build, portable first, with whether this CPU runs them."""
    return bridge().kernels()


def kernel() -> Dict[str, str]:
    """The kernel chosen for each core: ``{"md5": ..., "sha256": ...}``."""
    return bridge().kernel()


def describe() -> str:
    """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI``."""
    return bridge().describe()


if TYPE_CHECKING:  # the type checker holds both bridge modules to the protocol
    from variants.native import capi, cffi_wrapper

    _CAPI: Bridge = capi
    _CFFI: Bridge = cffi_wrapper
