"""hashlib's own objects as the registry's reference variant, ``hashlib``: the drop-in's
fallback (see ``registry.default_name``)."""

from __future__ import annotations

import functools
import hashlib
from typing import Dict

from variants._algorithms import ALGORITHMS
from variants._shell import Constructor


def constructors() -> Dict[str, Constructor]:
    """hashlib's constructors of the algorithms the native variant has (variants/_algorithms.py's;
    those it has here): its own function for each one hashlib guarantees, ``new`` by name for
    the others (OpenSSL's SHA-512/224 and SHA-512/256; a build without it lacks them)."""
    found: Dict[str, Constructor] = {}
    for algorithm in ALGORITHMS:
        name = algorithm.name
        if name in hashlib.algorithms_guaranteed:
            found[name] = getattr(hashlib, name)
        elif name in hashlib.algorithms_available:
            found[name] = functools.partial(hashlib.new, name)
    return found


def describe() -> str:
    """Where hashlib's MD5 comes from: ``_hashlib`` (OpenSSL) or a builtin module."""
    return f"hashlib, from {type(hashlib.md5()).__module__}"
