"""The native variant: MD5 and SHA-256 kernels in C per architecture, chosen at run time.

The kernels (one C file per architecture and algorithm), their dispatch
(``dispatch.c``) and the hash state machine (``hash.c``) are reached through
one of two bridges, each an extension module of its own:

- ``variants.native.capi``: a CPython C-API type (``capi.c``), the
  ``native`` variant on CPython;
- ``variants.native.cffi_wrapper``: cffi, the ``native`` variant on PyPy
  (where cffi is the fast way into C) and ``native-cffi`` on CPython.

At import each bridge detects the CPU's features once and chooses a kernel
per core; setting ``VARIANTS_NATIVE_PORTABLE=1`` before the import makes it
choose the portable C kernels instead. ``kernels()``, ``kernel()`` and
``describe()`` here answer for this interpreter's native bridge.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Dict, List, Tuple

from variants import _settings

__all__ = ["BRIDGE", "PORTABLE_ENV", "bridge", "describe", "kernel", "kernels"]

#: Set (to anything but "" or "0") before import to run the portable kernels.
PORTABLE_ENV = _settings.NATIVE_PORTABLE_ENV

#: The module of this interpreter's native variant: the C-API type on CPython,
#: cffi elsewhere (PyPy).
BRIDGE = "variants.native.capi" if _settings.cpython() else "variants.native.cffi_wrapper"


def bridge() -> ModuleType:
    """This interpreter's native bridge module (ImportError, with why, if it was not built)."""
    return importlib.import_module(BRIDGE)


def kernels() -> Dict[str, List[Tuple[str, bool]]]:
    """Each core's kernels in this build, portable first, with whether this CPU runs them."""
    result: Dict[str, List[Tuple[str, bool]]] = bridge().kernels()
    return result


def kernel() -> Dict[str, str]:
    """The kernel chosen for each core: ``{"md5": ..., "sha256": ...}``."""
    result: Dict[str, str] = bridge().kernel()
    return result


def describe() -> str:
    """The kernels chosen, e.g. ``md5: x86-64 scalar, sha256: x86-64 SHA-NI``."""
    result: str = bridge().describe()
    return result
