"""A third study, defined here and nowhere else, through the one pipeline every study takes
(``bench.__main__.pipeline``: measure -> count -> report -> keep): the proof that
``bench.catalog.study.Study`` is all the machinery needs of a study.

Its two trivial cases are what every worker lists already: MD5 of 64 bytes through hashlib
and through the interpreter's own ``_md5`` (CPython's builtin module, PyPy's pure-Python
library one); its one table is their ratio per mode.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import bench_package
import pytest

bench_package.load()

from bench import __main__ as entry  # noqa: E402
from bench import store  # noqa: E402
from bench.catalog import studies  # noqa: E402
from bench.catalog.cases import Grid  # noqa: E402
from bench.catalog.columns import Column, Layout  # noqa: E402
from bench.catalog.comparisons import Cell, Table, modes, ratio, table  # noqa: E402
from bench.catalog.study import Study, headline_of  # noqa: E402
from bench.catalog.tables import Headline  # noqa: E402
from bench.conduct import launch  # noqa: E402
from bench.conduct.effort import settings_of  # noqa: E402
from bench.conduct.options import Options  # noqa: E402
from bench.report import answers  # noqa: E402

NAME = "two-md5s"
LENGTH = 64
#: The interpreter's own _md5 as the study's references name it (PyPy has no builtin _md5).
OWN = "pypy-lib" if sys.implementation.name == "pypy" else "builtin"


@dataclass(frozen=True)
class TwoMd5s:
    """hashlib's MD5 against the interpreter's own _md5, 64 bytes, per mode."""

    question: str = "Does hashlib's md5 cost more than the builtin _md5?"
    name: str = NAME
    settle_modes: bool = False
    counters: Tuple[str, ...] = ()

    def listing(self, column: Column) -> Dict[str, Any]:
        grid = Grid((LENGTH,), get_max=LENGTH, block_max=LENGTH, batches=())
        return {
            "op": "list",
            "algorithms": ["md5"],
            "grid": grid.as_json(),
            "variants": ["hashlib"],
            "benchmarks": ["digest"],
            "references": True,
            "pypy_lib": OWN == "pypy-lib",
        }

    def tables(self, lay: Layout) -> List[Table]:
        def cell(row: None, column: str) -> Optional[Cell]:
            return ratio(lay.get(column, "digest", "md5", "hashlib", LENGTH),
                         lay.get(column, "digest", "md5", OWN, LENGTH))  # fmt: skip

        found = table("md5s", "hashlib's md5 against the builtin _md5",
                      "time of hashlib ÷ time of _md5", ["pair"], [(["hashlib ÷ _md5"], None)],
                      modes(lay), cell, readme=True)  # fmt: skip
        return [found] if found.rows else []

    def headline(self, lay: Layout) -> Headline:
        return {c: pairs for t in self.tables(lay) for c, pairs in headline_of(t).items()}

    def record(self, cannot_run: Mapping[str, str]) -> Dict[str, Any]:
        return {"question": self.question, "cannot_run": dict(cannot_run)}

    def cannot_run(self, columns: Sequence[Column]) -> Dict[str, str]:
        return {}


def test_a_third_study_runs_the_whole_pipeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    study: Study = TwoMd5s()
    # as studies.register would make it readable, undone after the test
    monkeypatch.setitem(studies.READERS, NAME, lambda record: TwoMd5s(str(record["question"])))
    options = Options(python=(f"here={sys.executable}",), effort="quick", budget=2.0,
                      results=tmp_path)  # fmt: skip
    pages: List[str] = []

    def report(folder: Path, given: Options, notes: Sequence[str]) -> int:
        r = answers.build(store.load(folder))
        (shown,) = r.tables
        pages.append(shown.markdown())
        return 0

    columns = launch.columns_of(options)
    assert entry.pipeline(options, study, columns, {}, settings_of(options), report) == 0
    (folder,) = (tmp_path / NAME).iterdir()  # the study's own results folder
    run = store.load(folder)
    assert run.header.study == NAME and run.header.record["question"] == TwoMd5s.question
    assert isinstance(run.study, TwoMd5s)
    cases = {m[1] for m in run.measured}
    assert cases == {"digest/md5/hashlib/64", f"digest/md5/{OWN}/64"}
    (page,) = pages
    assert "hashlib ÷ _md5" in page and "here" in page
    assert "bench:" in capsys.readouterr().out  # the conductor's own opening line
    assert not entry.keeps(options, study)  # only a whole hash study's run is kept
