"""The profilers: instructions (callgrind), bytecode counts and memory (memray), per mode.

Each runs catalog cases in a mode's worker (``bench.conduct.launch.call``) and keeps its run in
``results/<kind>/<date-time>/`` as ``<kind>.json`` and its page ``<kind>.md`` (``save``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .. import store


def save(folder: Path, kind: str, report: Callable[[Any], str], data: Any = None) -> str:
    """Write ``kind``.json (``data``; None: keep the folder's) and ``kind``.md, the report of
    it, into a run's ``folder``; the report."""
    if data is None:
        data = store.read_record(folder / f"{kind}.json")
    else:
        store.write_record(folder / f"{kind}.json", data)
    text = report(data)
    (folder / f"{kind}.md").write_text(text)
    return text
