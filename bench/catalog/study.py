"""What a study is: the one interface the conductor, the store, the profilers and the report
take (``Study``), whatever the study measures.

A study has *cases* (what its workers list for a column: ``listing``), *tables* (the
comparison spec's, each with an id of its own: ``tables``), a *headline* (the ratios a
first answer measures first and the stopping rule looks at: ``headline``), a *header
record* (what a run's header keeps of it: ``record``), *checks* before timing (which
columns cannot run it: ``cannot_run``) and *counters* (the counts taken after measuring,
by name: ``bench.profile.counters``). Its ``name`` is the results folder's kind and what
a run's header records (``bench.store.Header.study``), so that a report finds the study
again from the record alone (``bench.catalog.studies``).

Two studies implement it, a module each: the hash study (``bench.catalog.hash_study``) and a
user's styles file (``bench.catalog.styles_study``); a test defines a third of its own.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Protocol, Sequence, Tuple

from .columns import Column, Layout
from .comparisons import Table
from .tables import Headline


class Study(Protocol):
    """What a study is to the machinery that measures, counts, reports and keeps it."""

    @property
    def name(self) -> str:
        """The study's id: the results folder's kind (``results/<name>/<date-time>``) and the
        header's ``study``."""
        ...

    @property
    def settle_modes(self) -> bool:
        """Whether the stopping rule waits, beyond the median half-width, for every mode's
        widest headline ratio to be within the promise (a styles run: its reader reads each
        mode)."""
        ...

    @property
    def counters(self) -> Tuple[str, ...]:
        """The counters (``bench.profile.counters``) run after measuring, by name."""
        ...

    def listing(self, column: Column) -> Dict[str, Any]:
        """The request that asks ``column``'s worker which of the study's cases it runs."""
        ...

    def tables(self, lay: Layout) -> List[Table]:
        """Every table of the study, in the report's order, those without a row left out."""
        ...

    def headline(self, lay: Layout) -> Headline:
        """The headline's ratios by mode (the quick effort measures their cases first)."""
        ...

    def record(self, cannot_run: Mapping[str, str]) -> Dict[str, Any]:
        """What a run's header keeps of the study (``Header.record``), with the columns that
        could not run it (``cannot_run``)."""
        ...

    def cannot_run(self, columns: Sequence[Column]) -> Dict[str, str]:
        """The columns, listed, that cannot run the study (measured without them), each with
        why: a check before timing."""
        ...


def headline_of(table: Table) -> Headline:
    """Every ratio of ``table`` by column: a headline that is one table's ratios."""
    by: Headline = {c: [] for c in table.columns}
    for row in table.rows:
        for column, c in zip(table.columns, row.cells):
            if c is not None and c.kind == "ratio" and c.b is not None:
                by[column].append((c.a, c.b))
    return {c: pairs for c, pairs in by.items() if pairs}


def unavailable(columns: Sequence[Column]) -> Dict[str, str]:
    """The columns whose worker said it cannot run the study at all (``Listing.unavailable``)."""
    return {c.label: str(c.listing.unavailable) for c in columns if c.listing.unavailable}
