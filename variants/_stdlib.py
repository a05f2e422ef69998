"""hashlib's own objects as the registry's reference variant, ``hashlib``: the drop-in's
fallback (see ``registry.default_name``)."""

from __future__ import annotations

import hashlib
from typing import Dict

from variants._shell import Constructor


def constructors() -> Dict[str, Constructor]:
    """hashlib's constructors of the three algorithms."""
    return {"md5": hashlib.md5, "sha224": hashlib.sha224, "sha256": hashlib.sha256}


def describe() -> str:
    """Where hashlib's MD5 comes from: ``_hashlib`` (OpenSSL) or a builtin module."""
    return f"hashlib, from {type(hashlib.md5()).__module__}"
