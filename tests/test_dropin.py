"""The module-level drop-in: default variant, new(), get(), the environment pin."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

import variants
from variants import registry


def test_module_constructors_are_the_default_variants() -> None:
    default = variants.default_variant
    assert variants.md5 is default.md5
    assert variants.sha224 is default.sha224
    assert variants.sha256 is default.sha256
    for name in ("md5", "sha224", "sha256"):
        assert getattr(variants, name)(b"abc").digest() == hashlib.new(name, b"abc").digest()


def test_default_is_first_importable_full_variant() -> None:
    if os.environ.get(registry.DEFAULT_ENV):
        pytest.skip("the default is pinned by the environment")
    full = [n for n in registry.available() if len(registry.variant(n).algorithms) == 3]
    assert variants.default_variant.name == full[0]


@pytest.mark.parametrize("name", ["md5", "MD5", "Sha256", "SHA224", "sha256"])
def test_new_is_case_insensitive(name: str) -> None:
    assert variants.new(name, b"abc").digest() == hashlib.new(name.lower(), b"abc").digest()
    assert variants.new(name, data=b"abc").name == name.lower()


def test_new_errors_like_hashlib() -> None:
    with pytest.raises(ValueError, match="unsupported hash type sha3_256"):
        variants.new("sha3_256")
    with pytest.raises(TypeError):
        variants.new(b"md5")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        variants.new("md5", "text")


def test_algorithms_available() -> None:
    assert variants.algorithms_available == {"md5", "sha224", "sha256"}
    assert variants.algorithms_guaranteed <= hashlib.algorithms_guaranteed


def test_get_returns_each_variant() -> None:
    for name in registry.available():
        v = variants.get(name)
        assert v.name == name
        for algorithm in v.algorithms_available:
            assert v.new(algorithm, b"abc").digest() == hashlib.new(algorithm, b"abc").digest()
    with pytest.raises(ValueError, match="unknown variant"):
        variants.get("no-such-variant")


def test_every_variant_is_importable_or_says_why() -> None:
    for entry in registry.VARIANTS:
        assert entry.kind in registry.KINDS
        assert entry.algorithms
        reason = registry.status(entry.name)
        assert reason is None or reason.strip()
        if registry.require_all() and entry.supported():
            assert reason is None, f"{entry.name} is required: {reason}"


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "name", [n for n in registry.names() if len(registry.variant(n).algorithms) == 3]
)
def test_environment_pins_the_default(name: str) -> None:
    if registry.status(name) is not None:
        pytest.skip(f"{name} unavailable here")
    result = run_python(
        "import variants; print(variants.default_variant.name)", VARIANTS_DEFAULT=name
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == name


def test_environment_pin_to_unknown_variant_fails_loudly() -> None:
    result = run_python("import variants", VARIANTS_DEFAULT="no-such-variant")
    assert result.returncode != 0
    assert "unknown variant" in result.stderr


def test_generated_sources_are_up_to_date() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    generator = os.path.join(root, "tools", "gen_streamlined.py")
    if not os.path.exists(generator):
        pytest.skip("not a source checkout")
    result = subprocess.run(
        [sys.executable, generator, "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout
