"""A loaded variant exposes the algorithms it has and no other, to the type checker as well.

Some variants lack an algorithm (``streamlined-lanes`` has no MD5). Asking
such a variant for it by attribute is an ``AttributeError`` naming the variant
and what it has; ``constructor(name)``, the typed way, is ``VariantUnavailable``.
The type checker sees no algorithm attribute on ``Loaded`` at all (which ones
exist is known only at run time): ``mypy --strict`` (``nox -s lint``) checks
this file, and its ``warn_unused_ignores`` fails if the ``type: ignore`` below
stops being needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

import variants
from variants import registry
from variants._shell import ALGORITHMS

from conftest import load_or_skip


def lacking() -> List[Tuple[str, str]]:
    """(variant, algorithm) for every registered variant and algorithm it does not have."""
    return [(v.name, a) for v in registry.VARIANTS for a in ALGORITHMS if a not in v.algorithms]


def test_some_variant_lacks_an_algorithm() -> None:
    """(Else the tests below test nothing: the catalog has such a variant.)"""
    assert ("streamlined-lanes", "md5") in lacking()


def test_the_type_checker_sees_no_algorithm_attribute() -> None:
    loaded = load_or_skip("streamlined-lanes")
    with pytest.raises(AttributeError, match="'streamlined-lanes' does not provide md5"):
        loaded.md5  # type: ignore[attr-defined]  # what mypy says of Loaded, for every variant  # noqa: B018


@pytest.mark.parametrize(("name", "algorithm"), lacking())
def test_a_missing_algorithm_names_the_variant_and_what_it_has(name: str, algorithm: str) -> None:
    loaded = load_or_skip(name)
    has = ", ".join(sorted(loaded.constructors))
    message = f"variant {name!r} does not provide {algorithm} (it provides {has})"
    for attribute in (algorithm, f"{algorithm}_many"):
        with pytest.raises(AttributeError) as raised:
            getattr(loaded, attribute)
        assert str(raised.value) == message
        assert not hasattr(loaded, attribute)
    with pytest.raises(registry.VariantUnavailable) as unavailable:
        loaded.constructor(algorithm)
    assert str(unavailable.value) == message
    # The hashlib-shaped calls keep hashlib's error for an algorithm it does not know.
    with pytest.raises(ValueError, match=rf"unsupported hash (type|algorithm) {algorithm}"):
        loaded.new(algorithm)
    with pytest.raises(ValueError, match=rf"unsupported hash (type|algorithm) {algorithm}"):
        loaded.digest_many(algorithm, [b""])


def test_every_variant_has_an_attribute_per_algorithm_it_provides(
    loaded: registry.Loaded,
) -> None:
    assert set(loaded.constructors) == set(loaded.variant.algorithms)
    assert loaded.algorithms_available == frozenset(loaded.variant.algorithms)
    for algorithm in loaded.variant.algorithms:
        constructor = loaded.constructor(algorithm)
        assert getattr(loaded, algorithm) is constructor is loaded.constructor(algorithm.upper())
        assert getattr(loaded, f"{algorithm}_many")([b"abc"]) == [constructor(b"abc").digest()]


def test_other_names_are_no_algorithm() -> None:
    loaded = variants.get("hashlib")
    with pytest.raises(AttributeError, match="'Loaded' object has no attribute 'sha3_256'"):
        getattr(loaded, "sha3_256")  # noqa: B009
    with pytest.raises(ValueError, match="unknown algorithm 'sha3_256'"):
        loaded.constructor("sha3_256")


def test_a_pinned_default_lacking_an_algorithm() -> None:
    """The drop-in pinned to a variant without MD5 has no ``variants.md5``, and says why."""
    code = textwrap.dedent(
        """
        import variants
        assert variants.sha256(b"abc").digest() == variants.get("hashlib").sha256(b"abc").digest()
        try:
            variants.md5
        except AttributeError as exc:
            print(exc)
        """
    )
    env = {**os.environ, registry.DEFAULT_ENV: "streamlined-lanes"}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout == (
        "variant 'streamlined-lanes' does not provide md5 (it provides sha224, sha256)\n"
    )


def test_mypy_sees_what_the_variant_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mypy, where this environment has it, on a user's code: the attribute is an error,
    ``constructor`` is typed."""
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(tmp_path)
    package = Path(variants.__file__).resolve().parent.parent
    if "site-packages" not in package.parts:  # (mypy finds an installed package itself)
        monkeypatch.setenv("MYPYPATH", str(package))
    (tmp_path / "user.py").write_text(
        textwrap.dedent(
            """
            import variants
            h = variants.get("native").constructor("md5")(b"abc")
            reveal_type(h)
            variants.get("streamlined-lanes").md5
            """
        )
    )
    out, _, status = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"), "user.py"])
    assert status == 1, out
    assert 'Revealed type is "variants._shell.HashObject"' in out
    assert 'user.py:5: error: "Loaded" has no attribute "md5"  [attr-defined]' in out


def test_shared_modules_import_no_variant_internals() -> None:
    """The modules every variant shares (``variants/*.py``) import a variant's package only by
    its public names, never its private modules (``variants.native._kernels``, ``_capi``):
    what they need of it comes through its ``__init__`` (``variants.native.column_io``)."""
    import ast

    shared = Path(variants.__file__).resolve().parent
    packages = {p.name for p in shared.iterdir() if (p / "__init__.py").exists()}
    found = []
    for source in sorted(shared.glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                parts = name.split(".")
                inside = parts[:1] == ["variants"] and len(parts) > 2 and parts[1] in packages
                if inside and parts[2].startswith("_"):
                    found.append(f"{source.name}: {name}")
    assert found == []
