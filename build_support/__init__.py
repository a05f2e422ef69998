"""Build-time helpers for setup.py: which extensions this interpreter gets, and how."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load(relative: str) -> ModuleType:
    """A stdlib-only module of the project loaded by its path (the package need not import)."""
    path = ROOT / relative
    name = "_variants_build_" + path.stem.lstrip("_")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would: dataclasses and pickling look it up
    spec.loader.exec_module(module)
    return module


#: The environment variables (variants/_settings.py) and the variants written in
#: Python with their compiled twins (variants/_catalog.py).
settings = load("variants/_settings.py")
catalog = load("variants/_catalog.py")
