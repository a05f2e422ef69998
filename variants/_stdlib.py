"""hashlib's own objects as the registry's reference variant, ``hashlib``: the drop-in's
fallback (see ``registry.default_name``)."""

from __future__ import annotations

import functools
import hashlib
from typing import Dict

from variants._shell import Constructor

#: The algorithms hashlib reaches only through ``new`` (OpenSSL's; a build without it lacks them).
BY_NAME = ("sha512_224", "sha512_256")


def constructors() -> Dict[str, Constructor]:
    """hashlib's constructors of the algorithms the native variant has (those it has here)."""
    found: Dict[str, Constructor] = {
        "md5": hashlib.md5,
        "sha224": hashlib.sha224,
        "sha256": hashlib.sha256,
        "sha1": hashlib.sha1,
        "sha384": hashlib.sha384,
        "sha512": hashlib.sha512,
    }
    for name in BY_NAME:
        if name in hashlib.algorithms_available:
            found[name] = functools.partial(hashlib.new, name)
    return found


def describe() -> str:
    """Where hashlib's MD5 comes from: ``_hashlib`` (OpenSSL) or a builtin module."""
    return f"hashlib, from {type(hashlib.md5()).__module__}"
