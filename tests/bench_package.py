"""The checkout's ``bench`` package, for the tests of the study (which run from tests/).

The tests import the installed ``variants``, so the checkout's root is not on
sys.path; ``bench`` is registered from its folder instead.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> None:
    """Make ``import bench.<module>`` find the checkout's bench/ (once)."""
    if "bench" in sys.modules:
        return
    folder = ROOT / "bench"
    spec = importlib.util.spec_from_file_location(
        "bench", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module
    spec.loader.exec_module(module)
