"""The profilers: instructions (callgrind), bytecode counts and memory (memray), per mode.

Each runs catalog cases in a mode's worker (``bench.conduct.launch.call``) and keeps its run in
``results/<kind>/<date-time>/`` as ``<kind>.json`` and its page ``<kind>.md`` (``save``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable


def save(folder: Path, kind: str, report: Callable[[Any], str], data: Any = None) -> str:
    """Write ``kind``.json (``data``; None: keep the folder's) and ``kind``.md, the report of
    it, into a run's ``folder``; the report."""
    if data is None:
        data = json.loads((folder / f"{kind}.json").read_text())
    else:
        (folder / f"{kind}.json").write_text(json.dumps(data, indent=1))
    text = report(data)
    (folder / f"{kind}.md").write_text(text)
    return text
