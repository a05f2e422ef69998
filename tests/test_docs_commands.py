"""The docs name only commands and options that exist: every ``python -m bench ...`` line of
README.md and docs/ (and what ``nox -s bench -- ...`` passes to the study) is parsed by the
study's own parser, nothing run; the README keeps to one page and docs/study.md to its length,
its prose wrapped."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import List, Tuple

import bench_package
import pytest

bench_package.load()

from bench.__main__ import parse  # noqa: E402
from bench.conduct import envs  # noqa: E402
from bench.report import readme as sections  # noqa: E402

DOCS = (
    "README.md",
    "docs/study.md",
    "docs/columns.md",
    "docs/development.md",
    "docs/styles.md",
    "docs/instructions.md",
)
#: ``python -m bench ...`` in a code block's line or between backticks; ``nox -s bench -- ...``.
COMMAND = re.compile(
    r"(?:python3? -m bench(?P<module>\.[\w.]+)?|nox -s bench --)(?P<args>[^`\n#]*)"
)


def commands() -> List[Tuple[str, str, List[str]]]:
    """(file, the line as written, its arguments to ``python -m bench``) of every mention."""
    found = []
    for name in DOCS:
        for line in (bench_package.ROOT / name).read_text().splitlines():
            for match in COMMAND.finditer(line):
                words = [w for w in shlex.split(match["args"]) if w not in ("...", "…")]
                if match.group(0).startswith("nox"):  # envs takes its own, run the rest
                    words = ["run", *envs.not_its_own(words)]
                if match["module"]:
                    words = [f"bench{match['module']}", *words]
                found.append((name, match.group(0).strip(), words))
    return found


def test_the_docs_mention_the_study_s_commands() -> None:
    named = {words[0] for _, _, words in commands() if words}
    assert {"run", "quick", "report", "docs", "stability", "check", "envs"} <= named


@pytest.mark.parametrize("where, line, words", commands(), ids=lambda x: str(x)[:60])
def test_each_command_in_the_docs_exists(where: str, line: str, words: List[str]) -> None:
    if not words:
        return  # "python -m bench" alone, the entry point's name
    assert not words[0].startswith("bench."), f"{where}: `{line}`: use python -m bench <command>"
    try:
        parse(words)
    except SystemExit as exit:
        pytest.fail(f"{where}: `{line}` is not a command the study has ({exit})")


def test_a_wrong_option_is_caught() -> None:
    with pytest.raises(SystemExit):
        parse(["run", "--interpreters", "3.12"])
    with pytest.raises(SystemExit):
        parse(["compare", "native"])
    assert Path(bench_package.ROOT / "docs" / "study.md").exists()


def prose(name: str) -> List[str]:
    """The lines of a page outside its tables and code blocks."""
    found, code = [], False
    for line in (bench_package.ROOT / name).read_text().splitlines():
        code = code != line.startswith("```")
        if not code and not line.startswith(("|", "```")):
            found.append(line)
    return found


def test_the_pages_keep_their_length() -> None:
    """The README is one page per reader (at most 250 lines), its Results section at most 60
    lines and 1,500 characters of prose; docs/study.md at most 1,000 lines, no prose line
    over 120 characters."""
    readme = (bench_package.ROOT / "README.md").read_text().splitlines()
    assert len(readme) <= 250
    results = readme[readme.index("## Results") : readme.index("<!-- results:end -->")]
    assert len(results) <= sections.RESULTS_LINES
    words = sections.prose_length(results)
    assert words <= sections.RESULTS_PROSE, f"the Results section has {words} characters of prose"
    study = (bench_package.ROOT / "docs" / "study.md").read_text().splitlines()
    assert len(study) <= 1000
    long = [line[:60] for line in prose("docs/study.md") if len(line) > 120]
    assert not long, long
