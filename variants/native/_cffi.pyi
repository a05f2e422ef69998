# The extension cffi generates (see _build.py): untyped handles to the C side.
from typing import Any

ffi: Any
lib: Any
