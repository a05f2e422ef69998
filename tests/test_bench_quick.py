"""The quick effort's plan (``Settings.headline_first``), on a fake clock and fake workers.

The conductor's own passes run (``one_pass``, ``group``): only the workers are fakes, each
asking the clock to move by what a value or a preparation would take.
"""

from __future__ import annotations

import io
import json
import math
import random
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, List, Mapping, Set, Tuple

import bench_package
import pytest

bench_package.load()

from bench import store  # noqa: E402
from bench.catalog import modes, tables  # noqa: E402
from bench.catalog.cases import Case  # noqa: E402
from bench.catalog.columns import Column, Layout, Listing  # noqa: E402
from bench.catalog.hash_study import HashStudy  # noqa: E402
from bench.catalog.targets import VariantInfo  # noqa: E402
from bench.conduct import conductor, effort, launch  # noqa: E402
from bench.report import publish  # noqa: E402

#: Seconds per operation of each row (a mode's speed aside).
TRUE = {"helpers": 4e-3, "streamlined": 1e-3, "native": 1.1e-5, "hashlib": 1e-5}
KINDS = {"helpers": "interpreted", "streamlined": "interpreted", "native": "native"}
#: Fake seconds a case's preparation and a value take.
PREPARE, VALUE = 0.5, 0.05


class Fake:
    """A run's fake machine: its clock, and workers whose processes each draw their speed of
    a case (log-normal, ``spread`` by mode) and whose values move the clock."""

    def __init__(self, spread: Dict[str, float]) -> None:
        self.clock, self.spread, self.rng = 0.0, spread, random.Random(5)
        self.asked: List[Tuple[str, str]] = []  # (mode, case) of every value, in order
        self.warm: Dict[Tuple[str, str], Tuple[float, ...]] = {}  # (mode, case): jit_warm asked

    def worker(self, column: Column, results: Path, log: Any) -> Any:
        machine, label = self, column.label

        class Worker:
            def __init__(self) -> None:
                self.speed: Dict[str, float] = {}

            def ask(self, request: Dict[str, Any]) -> Dict[str, Any]:
                if request["op"] == "prepare":
                    out = {}
                    for entry in request["cases"]:
                        name = entry["name"]
                        machine.warm[(label, name)] = tuple(request["jit_warm"])
                        spread = machine.spread.get(label, 0.01)
                        self.speed[name] = math.exp(machine.rng.gauss(0, spread))
                        machine.clock += PREPARE
                        out[name] = {"loops": 1, "seconds": 0.002, "prepare_seconds": PREPARE,
                                     "warmups": [], "warmed": True}  # fmt: skip
                    return {"cases": out}
                name = request["case"]
                machine.clock += VALUE
                machine.asked.append((label, name))
                value = TRUE[Case.parse(name).variant] * self.speed[name]
                return {"value": value * math.exp(machine.rng.gauss(0, 0.002)), "wall": VALUE}

            def close(self) -> None:
                pass

        return Worker()


def columns(
    labels: str = "abc", jits: Mapping[str, Mapping[str, str]] = MappingProxyType({})
) -> List[Column]:
    """Fake columns, those in ``jits`` under a JIT (their environment: ``modes.JIT_ON`` for
    CPython's)."""
    names = [Case(b, alg, v, n).name for b in ("digest", "getAndDigest")
             for alg in ("md5", "sha256") for n in (64, 1024, 16384) for v in TRUE]  # fmt: skip
    variants = {v: VariantInfo(v, KINDS.get(v, "reference"), v) for v in TRUE}
    listing = Listing({"implementation": "CPython", "version": "3.11.7"}, variants, tuple(names))
    return [Column(modes.Mode(x, x, jits.get(x, {}), (), None, "", x in jits), "python", listing)
            for x in labels]  # fmt: skip


def quick(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    budget: float,
    spread: Dict[str, float],
    name: str = "quick",
    jits: Mapping[str, Mapping[str, str]] = MappingProxyType({}),
) -> Tuple[conductor.Conductor, Dict[str, Any], Fake]:
    fake = Fake(spread)
    monkeypatch.setattr(launch, "worker", fake.worker)
    settings = replace(effort.EFFORTS[name], budget=budget, jdk_budget=0.0, slow_limit=None)
    folder = tmp_path / "run"
    folder.mkdir()
    run = conductor.Conductor(HashStudy(), columns(jits=jits), settings, folder, tmp_path,
                              io.StringIO(), lambda: fake.clock)  # fmt: skip
    return run, run.run(), fake


def headline_cases() -> set[Tuple[str, str]]:
    found = tables.headline(Layout(columns(), [(c.label, n) for c in columns()
                                                for n in c.listing.cases]))  # fmt: skip
    return {m for pairs in found.values() for pair in pairs for m in pair}


def test_the_headline_is_the_styles_tables_ratios_helpers_against_streamlined_at_16_kib() -> None:
    found = headline_cases()
    assert len(found) == 3 * 2 * 2  # modes, algorithms, the two styles
    assert {(Case.parse(n).benchmark, Case.parse(n).length) for _, n in found} == {
        ("digest", 16384)
    }
    assert {Case.parse(n).variant for _, n in found} == {"helpers", "streamlined"}


def test_the_quick_effort_measures_the_headline_first_and_stops_when_it_is_precise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, outcome, fake = quick(tmp_path, monkeypatch, 400.0, {})
    headline, s = headline_cases(), run.settings
    assert run.by_headline and run.lead == headline
    # pass 0: the headline's cases alone, and so every pass until the stop
    taken = {(label, name): [r.number for r in c.runs]
             for label, cases in run.data.items() for name, c in cases.items()}  # fmt: skip
    tail = run.done[-1]
    stop = outcome["stop"]
    assert stop["rule"] == "precision" and stop["half_width"] <= s.target
    assert stop["passes"] == s.first_stop + s.confirm - 1  # under the target twice in a row
    assert all(taken[m] == [*range(stop["passes"]), tail] for m in headline)
    others = [m for m in taken if m not in headline]
    assert others and all(taken[m] == [tail] for m in others)  # one pass of every other case
    assert len(taken) == sum(len(c.listing.cases) for c in run.columns)  # the budget sufficed
    assert stop["groups_left"] == 0 and stop["unsettled"] == {}
    assert outcome["measure_seconds"] < 400 and outcome["passes"] == stop["passes"] + 1
    # the headline's processes over every stretch in order; the other cases' pass the last's
    for label, name in headline:
        where = [r.stretch for r in run.data[label][name].runs]
        assert set(where) == set(range(s.stretches)) and where == sorted(where)
    assert {run.data[m[0]][m[1]].runs[0].stretch for m in others} == {s.stretches - 1}
    # the values of the headline's cases before any other in the pass of every other case
    first = fake.asked.index(next(m for m in fake.asked if m not in headline))
    assert set(fake.asked[first:]) & headline == set()
    assert "modes not settled (over ±10%): none" in run.log.getvalue()  # type: ignore[attr-defined]


def test_the_quick_effort_stops_between_groups_when_the_budget_is_spent_and_the_report_copes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, outcome, _ = quick(tmp_path, monkeypatch, 60.0, {})
    stop = outcome["stop"]
    measured = {(label, n) for label, cases in run.data.items() for n in cases}
    groups = {Case.parse(n).group for _, n in measured}
    assert headline_cases() <= measured and 0 < stop["groups_left"] == len(run.left)
    assert not groups & set(run.left)  # a group is measured whole or not at all
    assert {k[2] for k in groups} == {16384}  # the README's other cases (native's) came first
    assert outcome["measure_seconds"] < 60 + 10  # at most one group past the budget
    header = store.Header("quick", {"clock": "cpu"}, "Test CPU", "", 1.0, 1.0, **{
        k: outcome[k] for k in ("passes", "steal", "plan", "stop")})  # fmt: skip
    folder = tmp_path / "run"
    store.write(folder, header, run.columns, run.data)
    assert publish.report_main([str(folder), "--no-plots"]) == 0
    shown = {t["key"] for t in json.loads((folder / "summary.json").read_text())["tables"]}
    assert {"styles", "buys"} <= shown and "hashlib-64" not in shown  # never measured: absent
    assert store.load(folder).header.stop["groups_left"] == stop["groups_left"]


def test_the_quick_effort_records_the_modes_it_could_not_settle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, outcome, _ = quick(tmp_path, monkeypatch, 400.0, {"c": 0.3})
    stop = outcome["stop"]
    assert stop["rule"] == "precision"  # the median: the other modes' ratios
    assert list(stop["unsettled"]) == ["c"] and stop["unsettled"]["c"] > run.settings.promise
    assert "modes not settled (over ±10%): c ±" in run.log.getvalue()  # type: ignore[attr-defined]


def test_the_quick_effort_spends_its_later_passes_where_the_spread_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, outcome, _ = quick(tmp_path, monkeypatch, 400.0, {"c": 0.3})
    s, tail = run.settings, run.done[-1]
    passes = outcome["stop"]["passes"]
    assert passes > s.first_stop  # a pass after the stretches' own, to be narrowed
    for label, name in headline_cases():
        runs = run.data[label][name].runs
        took = [r.number for r in runs if r.number != tail]
        # every mode in the stretches' passes; after them, the unsettled mode c alone
        assert took == list(range(passes if label == "c" else s.first_stop))
        # each mode's own passes over every stretch, in order: a settled mode's too
        where = [r.stretch for r in runs if r.number != tail]
        assert set(where) == set(range(s.stretches)) and where == sorted(where)


def test_the_quick_effort_takes_its_budget_share_when_the_headline_stays_wide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, outcome, _ = quick(tmp_path, monkeypatch, 100.0, {x: 0.4 for x in "abc"})
    stop, s = outcome["stop"], run.settings
    assert stop["rule"] == "budget" and stop["half_width"] > s.target
    assert stop["seconds"] <= s.headline_share * 100.0
    assert set(stop["unsettled"]) == {"a", "b", "c"}
    assert outcome["passes"] == stop["passes"] + 1  # the rest of the budget: the other cases


def test_the_default_effort_measures_every_case_in_pass_0_and_records_no_unsettled_modes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not effort.EFFORTS["default"].headline_first
    assert not effort.EFFORTS["rigorous"].headline_first
    run, outcome, _ = quick(tmp_path, monkeypatch, 300.0, {}, name="default")
    assert not run.by_headline and run.lead == run.readme
    assert all(c.runs[0].number == 0 for cases in run.data.values() for c in cases.values())
    assert "unsettled" not in outcome["stop"] and "headline_cases" not in outcome["plan"]


def test_the_default_effort_warms_cpython_jit_from_its_own_floor_and_the_rest_to_a_lower_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under CPython's JIT the warm-up's floor is ``cpython_jit_least``; outside the README's
    cases every JIT's is capped at ``others_jit_most``; the README's cases keep ``jit_warm``'s."""
    s = effort.EFFORTS["default"]
    assert s.cpython_jit_least is not None and s.others_jit_most is not None
    assert s.cpython_jit_least < s.jit_warm[0] and s.others_jit_most < s.jit_warm[1]
    jits = {"a": dict(modes.JIT_ON), "b": {}}  # CPython's JIT, another (PyPy's); c: none
    run, _, fake = quick(tmp_path, monkeypatch, 300.0, {}, name="default", jits=jits)
    assert [c.mode.cpython_jit for c in run.columns] == [True, False, False]
    (least, most), floor, cap = s.jit_warm, s.cpython_jit_least, s.others_jit_most
    want = {("a", True): (floor, most), ("a", False): (floor, cap),
            ("b", True): (least, most), ("b", False): (least, cap)}  # fmt: skip
    seen: Dict[Tuple[str, bool], Set[Tuple[float, ...]]] = {}
    for (label, name), warm in fake.warm.items():
        seen.setdefault((label, (label, name) in run.lead), set()).add(warm)
    assert {k: v for k, v in seen.items() if k[0] != "c"} == {k: {v} for k, v in want.items()}


def test_the_readme_says_which_algorithms_a_kept_run_measured_and_invents_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.report import answers, machines, readme

    run, outcome, _ = quick(tmp_path, monkeypatch, 400.0, {})
    header = store.Header("quick", {"clock": "cpu"}, "Test CPU", "", 1.0, 1.0, **{
        k: outcome[k] for k in ("passes", "steal", "plan", "stop")})  # fmt: skip
    folder = tmp_path / "run"
    store.write(folder, header, run.columns, run.data)
    across = machines.Across.one(answers.build(store.load(folder)))
    # the fake run has MD5 and SHA-256 alone, and no JDK: SHA-1's, SHA-512's answers are absent
    said = readme.algorithms_said(across)
    assert said.startswith("MD5 and SHA-256 on ") and said.endswith(
        "; SHA-1 and SHA-512: no kept run yet"
    )
    assert readme.measured_names(across) == "MD5 and SHA-256"
    assert (
        readme.sha5_said(across) == "**SHA-512 on the JDK**: no kept run has measured it there yet."
    )


def test_the_readme_answers_the_sha5_question_from_the_runs_styles_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.report import answers, machines, readme

    fake = Fake({})
    monkeypatch.setattr(launch, "worker", fake.worker)
    names = tuple(Case("digest", alg, v, 16384).name for alg in ("md5", "sha512")
                  for v in ("helpers", "streamlined", "MessageDigest"))  # fmt: skip
    monkeypatch.setitem(TRUE, "MessageDigest", 4.4e-3)  # the JDK's SHA5: helpers' cost and more
    variants = {v: VariantInfo(v, KINDS.get(v, "reference"), v) for v in TRUE}
    jdk = Listing({"implementation": "OpenJDK", "version": "17"}, variants, names)
    roles = (("jdk17", "Server", True), ("jdk17-xint", "-Xint", False))
    cols = [Column(modes.Mode(label, "jdk17", {}, (), None, role, jit), "java", jdk)
            for label, role, jit in roles]  # fmt: skip
    settings = replace(effort.EFFORTS["quick"], budget=400.0, jdk_budget=0.0, slow_limit=None)
    folder = tmp_path / "run"
    folder.mkdir()
    run = conductor.Conductor(HashStudy(), cols, settings, folder, tmp_path, io.StringIO(),
                              lambda: fake.clock)  # fmt: skip
    outcome = run.run()
    header = store.Header("quick", {"clock": "cpu"}, "Test CPU", "", 1.0, 1.0, **{
        k: outcome[k] for k in ("passes", "steal", "plan", "stop")})  # fmt: skip
    store.write(folder, header, run.columns, run.data)
    report = answers.build(store.load(folder))
    styles, own = report.table("styles"), report.table("jdk-own")
    assert styles is not None and own is not None
    across = machines.Across.one(report)
    said = readme.sha5_said(across)
    # the fake's speeds: helpers 4x streamlined in every mode (a fake knows no JIT)
    xint, server = (styles.at((m,), "SHA-512") for m in ("jdk17-xint", "jdk17"))
    assert xint is not None and server is not None
    assert f"JDK 17's -Xint {answers.direction([xint.value], 'faster')}" in said
    assert f"its compilers within {abs(server.value - 1):.0%}" in said
    mine = own.at(("SHA-512", "÷ streamlined"), "jdk17-xint")
    assert mine is not None and 4.2 < mine.value < 4.6
    assert f"under JDK 17's -Xint {answers.direction([mine.value])} than our streamlined" in said
