"""Kept runs (``bench.store.kept``) and the answer across machines (``bench.report.machines``).

A kept run is the run made compact; it must read back as the same figures, refuse a format it
does not know, say which machine and code it is of, and be left out of the answer when it is
of other code. The runs kept in the repository are held to their size.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict

import bench_package
import pytest

bench_package.load()

from bench import store  # noqa: E402
from bench.core import machine  # noqa: E402
from bench.report import answers, machines, pages, stability  # noqa: E402
from bench.report import readme as sections  # noqa: E402
from bench.store import kept  # noqa: E402

RUN = bench_package.ROOT / "tests" / "data" / "bench-run"
XEON = {"vendor": "Intel", "family": "6", "model": "167", "name": "Intel(R) Xeon(R) Processor",
        "flags": ["avx2", "avx512f", "sha_ni"], "cores": 2, "hypervisor": "kvm",
        "os": "Debian 12.11", "kernel": "6.18", "label": "Intel Xeon"}  # fmt: skip
ZEN3 = {**XEON, "vendor": "AMD", "family": "25", "model": "1", "name": "AMD EPYC",
        "flags": ["avx2", "sha_ni"]}  # fmt: skip


def kept_as(tmp: Path, facts: Dict[str, Any], code: str = "sha256:one", name: str = "") -> Path:
    run = store.load(RUN)
    header = replace(run.header, machine=facts, measured=code)
    return kept.write(replace(run, header=header, name=name or run.name), tmp)


def test_a_kept_run_reads_back_as_the_same_figures(tmp_path: Path) -> None:
    folder = kept_as(tmp_path, ZEN3)
    again = kept.read(folder)
    first, second = answers.build(store.load(RUN)), answers.build(again)
    a, b = stability.estimates(first), stability.estimates(second)
    assert a and a.keys() == b.keys()
    assert all(
        (a[k].value, a[k].low, a[k].high, a[k].processes)
        == (b[k].value, b[k].low, b[k].high, b[k].processes)
        for k in a
    )  # exactly
    assert [v.word() for v in first.verdicts] == [v.word() for v in second.verdicts]
    assert again.header.machine == ZEN3 and again.header.measured == "sha256:one"
    assert again.counts == store.load(RUN).counts
    # the record itself round-trips: written again, byte for byte the same
    assert (
        kept.write(again, tmp_path / "again").joinpath(kept.FILE).read_bytes()
        == (folder / kept.FILE).read_bytes()
    )


def test_a_kept_run_of_an_unknown_format_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    folder = kept_as(tmp_path, ZEN3)
    data = json.loads(gzip.decompress((folder / kept.FILE).read_bytes()))
    data["format"] = kept.FORMAT + 1
    (folder / kept.FILE).write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(store.FormatError, match=f"kept format {kept.FORMAT}"):
        kept.read(folder)


def test_keep_list_and_drop_from_the_command_line(tmp_path: Path) -> None:
    # a run that says the code it measured (as the conductor writes it): no git needed
    folder = tmp_path / "copied" / RUN.name
    shutil.copytree(RUN, folder)
    study = json.loads((folder / "study.json").read_text())
    (folder / "study.json").write_text(json.dumps({**study, "measured": "sha256:given"}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        told = ["--machine", "hypervisor=kvm", "--machine", "flags=avx2,sha_ni"]
        assert kept.main(["--kept", str(tmp_path), "keep", str(folder), *told]) == 0
        assert kept.main(["--kept", str(tmp_path), "list"]) == 0
    run = kept.read(tmp_path / RUN.name)
    facts = run.header.machine
    assert facts["hypervisor"] == "kvm" and facts["flags"] == ["avx2", "sha_ni"]
    assert facts["family"] == "25" and facts["model"] == "1" and facts["cores"] == 2
    assert run.header.measured == "sha256:given"
    assert "AMD EPYC 25/1 (Zen 3), 2 cores" in out.getvalue() and run.header.tree in out.getvalue()
    with contextlib.redirect_stdout(io.StringIO()):
        assert kept.main(["--kept", str(tmp_path), "drop", RUN.name]) == 0
    assert kept.every(tmp_path) == []


def test_a_folder_holding_a_kept_record_is_kept_as_a_run_s_folder_is(tmp_path: Path) -> None:
    # the unit machines exchange: another clone's runs/<name>/ (run.json.gz), not a copy of it
    given = kept_as(tmp_path / "theirs", ZEN3)
    with contextlib.redirect_stdout(io.StringIO()):
        assert kept.main(["--kept", str(tmp_path / "mine"), "keep", str(given)]) == 0
    again = tmp_path / "mine" / given.name / kept.FILE
    assert again.read_bytes() == (given / kept.FILE).read_bytes()  # machine and code as told


def test_a_run_that_does_not_say_its_code_is_kept_with_its_commit_s(tmp_path: Path) -> None:
    if shutil.which("git") is None:  # the sid tree's sessions: no git there to read a commit
        pytest.skip("git is not installed here: a commit's files cannot be read")
    folder = kept.keep(RUN, {"hypervisor": "kvm"}, tmp_path)
    run = kept.read(folder)
    assert run.header.measured == machine.measured(bench_package.ROOT, run.header.tree)
    assert run.header.measured.startswith("sha256:")


def test_a_run_of_unknown_code_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "copied" / RUN.name
    shutil.copytree(RUN, folder)
    study = json.loads((folder / "study.json").read_text())
    (folder / "study.json").write_text(json.dumps({**study, "tree": "0000000-dirty"}))
    with pytest.raises(SystemExit, match="which code it measured is not known"):
        kept.keep(folder, {}, tmp_path / "kept")
    assert not (tmp_path / "kept").exists() or kept.every(tmp_path / "kept") == []


def test_the_measured_code_s_digest_is_the_same_from_the_tree_and_from_git() -> None:
    root = bench_package.ROOT
    here = machine.measured(root)
    assert here.startswith("sha256:")
    head = machine.measured(root, "HEAD")
    if head:  # a checkout with history; from a tree with changes to those files they differ
        changed = machine.tree(root).endswith("-dirty")
        assert head == here or changed


def test_the_answer_leaves_out_a_run_of_other_code_and_names_it(tmp_path: Path) -> None:
    kept_as(tmp_path, ZEN3, name="20260101-000000")
    kept_as(tmp_path, XEON, name="20260102-000000")
    kept_as(tmp_path, XEON, code="sha256:other", name="20260103-000000")
    across = machines.gather(kept.every(tmp_path), "sha256:one")
    assert across.cpus == ["AMD EPYC 25/1 (Zen 3)", "Intel Xeon 6/167"]
    assert len(across.left_out) == 1 and "20260103-000000" in across.left_out[0]
    assert "other code (sha256:other" in across.left_out[0]
    section = sections.readme_section(across)
    assert "Left out: 20260103-000000" in section
    # a column an algorithm, each cell the range over the CPUs that measured it
    assert "| mode " in section and " MD5 " in section
    assert "A cell: the range over the CPUs" in section
    assert "MD5, AMD EPYC 25/1 (Zen 3)" not in section
    # the same figures on both: every ratio holds across the CPUs
    assert "hold on every one" in section and "none moves" in section
    answer = sections.answer_section(across, "x.png")
    assert "on 2 CPUs: AMD EPYC 25/1 (Zen 3), Intel Xeon 6/167" in answer


def test_a_mode_only_some_cpus_measured_stands_in_its_place_with_their_verdict_alone(
    tmp_path: Path,
) -> None:
    """A mode a later run added (3.13t to the Xeon's) keeps its neighbours of the run that has
    it, not the last row, and its verdict names the CPUs that measured it, no empty word for
    the others."""
    run = store.load(RUN)
    fewer = [c for c in run.columns if c.label != "pypy3"]
    measured = {k: v for k, v in run.measured.items() if k[0] != "pypy3"}
    header = replace(run.header, machine=ZEN3, measured="sha256:one")
    kept.write(replace(run, header=header, columns=tuple(fewer), measured=measured,
                       name="20260101-000000"), tmp_path)  # fmt: skip
    kept_as(tmp_path, XEON, name="20260102-000000")
    across = machines.gather(kept.every(tmp_path), "sha256:one")
    assert across.cpus == ["AMD EPYC 25/1 (Zen 3)", "Intel Xeon 6/167"]
    rows = [line.split("|") for line in sections.readme_section(across).splitlines()]
    modes = [
        r[1].strip() for r in rows if len(r) > 3 and r[1].strip() in {c.label for c in run.columns}
    ]
    assert modes[:3] == ["3.11", "pypy3", "pypy3-nojit"]
    verdict = next(r for r in rows if len(r) > 3 and r[1].strip() == "pypy3")[-2].strip()
    assert verdict.endswith("(Intel Xeon 6/167)") and "Zen 3" not in verdict
    assert not verdict.startswith("(")


def test_machines_merge_their_modes_in_place_and_a_span_is_in_version_order() -> None:
    assert machines.merged([["3.10", "3.13", "3.14", "jdk17"], ["3.13", "3.13t", "3.14"]]) == [
        "3.10", "3.13", "3.13t", "3.14", "jdk17"]  # fmt: skip
    assert machines.merged([["3.11", "jdk17"], ["3.11", "pypy3"]]) == ["3.11", "pypy3", "jdk17"]
    assert pages.span_of(["3.10", "3.15", "3.13t"]) == "3.10-3.15"
    assert pages.span_of(["pypy3-nojit", "pypy8-nojit"]) == "pypy3-nojit, pypy8-nojit"


def test_a_machine_s_older_run_is_its_rerun(tmp_path: Path) -> None:
    kept_as(tmp_path, ZEN3, name="20260101-000000")
    kept_as(tmp_path, ZEN3, name="20260102-000000")
    across = machines.gather(kept.every(tmp_path), "sha256:one")
    (report,) = across.reports
    assert report.rerun is not None and report.rerun.name == "20260101-000000"
    assert across.runs == (("20260101-000000", "20260102-000000"),)


def test_stability_on_two_machines_prints_the_per_mode_table(tmp_path: Path) -> None:
    a, b = kept_as(tmp_path, ZEN3, name="a"), kept_as(tmp_path, XEON, name="b")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert stability.main([str(a), str(b)]) == 0
    text = out.getvalue()
    assert "runs of two machines: not reruns" in text
    assert "| mode" in text and "instr., A" in text and "beyond both" not in text.split("\n")[0]
    rows, n, moved, _ = stability.machines(*(answers.build(kept.read(f)) for f in (a, b)))
    assert n == len(rows) - 1 and moved == 0  # the same run twice: nothing moved


@pytest.mark.parametrize("folder", sorted(kept.KEPT.glob(f"*/{kept.FILE}")), ids=str)
def test_each_run_kept_in_the_repository_is_small_and_says_its_machine(folder: Path) -> None:
    assert folder.stat().st_size <= kept.MOST
    run = kept.read(folder.parent)
    facts = run.header.machine
    assert {"vendor", "family", "model", "name", "flags", "cores", "os", "kernel"} <= set(facts)
    assert run.header.measured.startswith("sha256:") and run.header.effort != "quick"
    assert str(Path.home()) not in gzip.decompress(folder.read_bytes()).decode()


def test_a_comment_keeps_the_measured_code_s_digest_and_code_changes_it(tmp_path: Path) -> None:
    source = tmp_path / "variants" / "helpers" / "md5.py"
    source.parent.mkdir(parents=True)
    source.write_text("def f(x):\n    return x + 1\n")
    first = machine.measured(tmp_path)
    source.write_text("# a comment\n\ndef f(x):\n    #: and another\n    return x + 1\n")
    assert machine.measured(tmp_path) == first
    source.write_text("def f(x):\n    return x + 2\n")
    changed = machine.measured(tmp_path)
    assert changed != first
    (tmp_path / "variants" / "helpers" / "md5.c").write_text("built beside it")
    assert machine.measured(tmp_path) == changed  # what a build leaves is not the code


def test_the_run_line_names_the_modes_a_quick_run_left_unsettled() -> None:
    stop = {"rule": "budget", "passes": 3, "seconds": 100.0, "half_width": 0.08, "target": 0.095,
            "unsettled": {"pypy8": 0.14, "jdk17-zero": 0.11}}  # fmt: skip
    header = store.Header("quick", {}, "", "", 1, 1, 3, 0, stop=stop)
    assert header.stop_reason.endswith(
        "not settled to the promise: pypy8 ±14.0%, jdk17-zero ±11.0%"
    )
    assert "the README's median ±8.0%" in header.stop_reason
    styles = store.Header("quick", {}, "", "", 1, 1, 3, 0, stop=stop, study="styles")
    assert "the ratios' median ±8.0% within the run" in styles.stop_reason  # no README there


def test_code_declared_to_measure_the_same_keeps_the_runs_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept_as(tmp_path, ZEN3, code="sha256:one", name="20260101-000000")
    kept_as(tmp_path, XEON, code="sha256:new", name="20260102-000000")
    kept_as(tmp_path, XEON, code="sha256:other", name="20260103-000000")
    assert len(machines.gather(kept.every(tmp_path), "sha256:new").left_out) == 2
    monkeypatch.setitem(machine.SAME_CODE, "sha256:new", "sha256:one")
    across = machines.gather(kept.every(tmp_path), "sha256:new")
    assert across.cpus == ["AMD EPYC 25/1 (Zen 3)", "Intel Xeon 6/167"]
    assert len(across.left_out) == 1 and "20260103-000000" in across.left_out[0]
    assert not machine.comparable("", "")  # a run that does not say its code is never the same


def test_each_declared_digest_maps_to_one_that_is_not_itself_mapped() -> None:
    for new, old in machine.SAME_CODE.items():
        assert new != old and old not in machine.SAME_CODE
        assert all(d.startswith("sha256:") and len(d) == 23 for d in (new, old))


def test_a_readme_cell_is_one_cpu_s_figure_or_the_range_over_several() -> None:
    from bench.report.figures import Ratio

    slower = Ratio(2.24, 2.16, 2.32)
    assert machines.across_cell([slower]) == "2.24x slower (2.16-2.32)"
    assert machines.across_cell([None, slower]) == "2.24x slower (2.16-2.32)"
    assert machines.across_cell([slower, Ratio(2.32, 2.21, 2.44)]) == "2.2-2.3x slower"
    same = [Ratio(0.99, 0.93, 1.05), Ratio(1.01, 0.97, 1.04)]
    assert machines.across_cell(same) == "no difference"
    mixed = [Ratio(1.08, 1.05, 1.12), Ratio(0.95, 0.9, 0.99)]  # one slower, one faster
    assert machines.across_cell(mixed) == "1.1x faster to 1.1x slower"
    assert machines.across_cell([None, None]) is None
