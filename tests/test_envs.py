"""The study's environments (bench/conduct/envs.py): which interpreters a request names, the digest
that decides when an environment is remade, reuse of a ready one and the records it leaves
(no interpreter is installed into: a ready environment is made up)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import bench_package
import pytest

bench_package.load()

from bench.catalog import modes  # noqa: E402
from bench.conduct import envs  # noqa: E402


def test_modes_name_the_interpreters_whose_environments_they_run_in() -> None:
    assert envs.chosen("3.14-jit,3.12,3.14") == ["3.14", "3.12"]
    assert envs.chosen("pypy8*") == ["pypy8"]
    with pytest.raises(ValueError, match="no mode matches"):
        envs.chosen("3.99")


def test_the_digest_follows_the_build_inputs_not_the_readme(tmp_path: Path) -> None:
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "a.py").write_text("x = 1\n")
    (tmp_path / "README.md").write_text("words\n")
    files = [Path("variants/a.py"), Path("README.md")]
    first = envs.source_digest(files, tmp_path)
    (tmp_path / "README.md").write_text("other words\n")
    assert envs.source_digest(files, tmp_path) == first
    (tmp_path / "variants" / "a.py").write_text("x = 2\n")
    assert envs.source_digest(files, tmp_path) != first


def test_the_build_inputs_are_the_checkouts_files() -> None:
    files = envs.project_files()
    assert Path("setup.py") in files and Path("variants/__init__.py") in files
    assert not any(p.parts[0] in ("tests", "bench", "results") for p in files)


def test_every_file_the_build_loads_is_a_build_input() -> None:
    # build_support loads the twins' generator from tools/: an environment built without it
    # had no compiled variants (and its digest did not follow the generator)
    files = envs.project_files()
    loaded = set()
    for module in (bench_package.ROOT / "build_support").glob("*.py"):
        loaded |= set(re.findall(r'load\("([^"]+)"\)', module.read_text()))
    assert "tools/gen_streamlined.py" in loaded
    assert {Path(name) for name in loaded} <= set(files)
    assert Path("tools/generated.py") in files and Path("tools/debian.py") not in files


def test_a_ready_environment_is_reused_and_recorded(tmp_path: Path) -> None:
    cache, results = tmp_path / "cache", tmp_path / "results"
    digest = envs.source_digest(envs.project_files())
    ready = cache / f"3.12-{digest}"
    ready.mkdir(parents=True)
    record = {"python": str(ready / "bin" / "python"), "install_seconds": 1.0, "build": None}
    (ready / envs.READY).write_text(json.dumps(record))
    older = cache / "3.12-0123456789abcdef"  # left alone: only a new build removes older ones
    older.mkdir()
    assert envs.prepare(["3.12"], cache, results) == {"3.12": record["python"]}
    assert json.loads(envs.pythons_file(results).read_text()) == {"3.12": record["python"]}
    kept = json.loads((results / "envs" / "3.12.json").read_text())
    assert kept["reused"] is True and kept["python"] == record["python"]
    assert older.exists()


def test_an_interpreter_that_is_not_here_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modes, "find", lambda label: (None, "not here"))
    assert envs.prepare(["3.10"], tmp_path / "cache", tmp_path / "results") == {}
    assert json.loads(envs.pythons_file(tmp_path / "results").read_text()) == {}


def _made(cache: Path, name: str, hours_ago: float, now: float) -> Path:
    folder = cache / name
    folder.mkdir(parents=True)
    (folder / envs.READY).write_text("{}")
    os.utime(folder / envs.READY, (now - hours_ago * 3600,) * 2)
    return folder


def test_tidy_keeps_the_environments_used_last_or_lately(tmp_path: Path) -> None:
    now = time.time()
    kept = [_made(tmp_path, f"3.12-{i:016x}", i * 24, now) for i in range(envs.KEEP)]
    gone = _made(tmp_path, "3.12-00000000000000ff", envs.IN_USE_HOURS + 100, now)
    other = _made(tmp_path, "3.11-00000000000000ff", envs.IN_USE_HOURS + 100, now)
    stale = _made(tmp_path, "3.9-00000000000000ff", envs.STALE_DAYS * 24 + 1, now)
    (tmp_path / "3.12-00000000000000ff.lock").touch()
    envs.tidy(tmp_path, "3.12", now=now)
    assert all(folder.exists() for folder in kept) and other.exists()
    assert not gone.exists() and not stale.exists()
    assert not (tmp_path / "3.12-00000000000000ff.lock").exists()
    # beyond KEEP, those used lately stay: another checkout's run may be using them
    lately = [_made(tmp_path, f"3.10-{i:016x}", i * 0.5, now) for i in range(envs.KEEP + 2)]
    assert envs.IN_USE_HOURS > (envs.KEEP + 2) * 0.5
    envs.tidy(tmp_path, "3.10", now=now)
    assert all(folder.exists() for folder in lately)


def test_the_environments_live_in_the_per_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(envs.ENVS_ENV, raising=False)
    monkeypatch.delenv(envs.build_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert envs.default_cache() == Path("/somewhere/variants/envs")
    monkeypatch.setenv(envs.build_cache.CACHE_ENV, "/moved")
    assert envs.default_cache() == Path("/moved/envs")
    monkeypatch.setenv(envs.ENVS_ENV, "/envs-here")
    assert envs.default_cache() == Path("/envs-here")
    assert envs.parser().parse_known_args([])[0].cache is None  # prepare's default_cache()


def test_the_options_envs_takes_do_not_reach_the_run() -> None:
    from bench.conduct.envs import not_its_own

    args = ["--build-jobs", "2", "--effort", "quick", "--cache=/x", "--modes", "3.12"]
    assert not_its_own(args) == ["--effort", "quick", "--modes", "3.12"]
