"""The PEP 517 build backend: setuptools', asking for each build's own requirements.

What a build needs depends on the interpreter and on what is built, which a
static ``[build-system] requires`` cannot say: the default build (the native
variant and what the drop-in and the command line use) needs only setuptools
and a C compiler; the study's build (``VARIANTS_BUILD=study``, or
``pip install . -C variants-build=study``) adds Cython, mypy (where mypyc
runs: CPython 3.10+ with a GIL) and cffi (where it builds: not the
free-threaded 3.13). PyPy brings its own cffi.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

from setuptools import build_meta as _setuptools

from build_support import settings

#: The config setting that stands for VARIANTS_BUILD (``-C variants-build=study``).
CONFIG_KEY = "variants-build"

ConfigSettings = Optional[Dict[str, Any]]

# The hooks this module does not change.
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
build_sdist = _setuptools.build_sdist


def _apply(config_settings: ConfigSettings) -> ConfigSettings:
    """Move our config setting into the environment; the rest for setuptools."""
    if not config_settings or CONFIG_KEY not in config_settings:
        return config_settings
    rest = dict(config_settings)
    os.environ[settings.BUILD_ENV] = str(rest.pop(CONFIG_KEY))
    return rest


def _requirements(config_settings: ConfigSettings) -> List[str]:
    """What this interpreter needs beyond setuptools for the build asked for."""
    _apply(config_settings)
    if not settings.cpython() or settings.build_kind() != settings.BUILD_STUDY:
        return []
    needs = ["Cython>=3.1"]
    if settings.mypyc_builds():
        needs.append("mypy>=1.10")
    if settings.cffi_builds():
        needs.append("cffi>=1.15")
    return needs


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> List[str]:
    rest = _apply(config_settings)
    return [*_setuptools.get_requires_for_build_wheel(rest), *_requirements(config_settings)]


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> List[str]:
    rest = _apply(config_settings)
    return [*_setuptools.get_requires_for_build_editable(rest), *_requirements(config_settings)]


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: Optional[str] = None,
) -> str:
    result: str = _setuptools.build_wheel(
        wheel_directory, _apply(config_settings), metadata_directory
    )
    return result


def build_editable(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: Optional[str] = None,
) -> str:
    result: str = _setuptools.build_editable(
        wheel_directory, _apply(config_settings), metadata_directory
    )
    return result
