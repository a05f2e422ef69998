"""The studies a run's record may name (``bench.store.Header.study``), each read back from
its header record: what the report, the kept runs and stability find a run's tables by.

A study defined elsewhere (a test's) is ``register``ed here by its name.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping

from .hash_study import HashStudy
from .study import Study
from .styles_study import StylesStudy

#: A study read back from its header record.
Reader = Callable[[Mapping[str, Any]], Study]

READERS: Dict[str, Reader] = {
    "bench": lambda record: HashStudy(),
    "styles": StylesStudy.of_record,
}


def register(name: str, reader: Reader) -> None:
    """Make the study ``name`` readable from its runs' records."""
    READERS[name] = reader


def of_record(name: str, record: Mapping[str, Any]) -> Study:
    """The study a run's header names (``name``), from what it recorded of it (``record``)."""
    if name not in READERS:
        raise KeyError(f"no study named {name!r} (known: {', '.join(READERS)})")
    return READERS[name](record)
