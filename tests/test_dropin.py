"""The module-level drop-in: default variant, new(), get(), the environment pin."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig

import pytest

import variants
from variants import registry

from conftest import SOURCE_ROOT


def test_module_constructors_are_the_default_variants() -> None:
    default = variants.default_variant
    for name in ("md5", "sha224", "sha256"):
        assert getattr(variants, name) is default.constructor(name)
        assert getattr(variants, name)(b"abc").digest() == hashlib.new(name, b"abc").digest()


def test_default_is_native_else_hashlib() -> None:
    if os.environ.get(registry.DEFAULT_ENV):
        pytest.skip("the default is pinned by the environment")
    if registry.status("native") is None:
        assert variants.default_variant.name == "native"
        assert variants.fallback_reason is None
    else:
        assert variants.default_variant.name == "hashlib"
        assert variants.fallback_reason is not None


WITHOUT_NATIVE = (
    "import sys, warnings\n"
    "sys.modules['variants.native._capi'] = sys.modules['variants.native._cffi'] = None\n"
    "import variants\n"
)


def test_without_native_the_drop_in_is_hashlib_and_warns_once() -> None:
    code = WITHOUT_NATIVE + (
        "import hashlib\n"
        "assert variants.default_variant.name == 'hashlib'\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    h = variants.md5(b'abc')\n"
        "    variants.sha256(b'abc'); variants.new('sha224'); variants.md5()\n"
        "assert type(h) is type(hashlib.md5(b'abc')), type(h)\n"  # PyPy 8: a one-shot type
        "assert [w.category.__name__ for w in caught] == ['SlowPathWarning'], caught\n"
        "print(caught[0].message)\n"
    )
    result = run_python(code, VARIANTS_DEFAULT="")
    assert result.returncode == 0, result.stderr
    message = result.stdout
    assert "native variant is not importable" in message and "hashlib" in message
    assert "pip install" in message  # how to get the fast one


def test_the_fallback_is_a_variant_to_ask_for() -> None:
    hashlib_variant = variants.get("hashlib")
    assert hashlib_variant.kind == registry.REFERENCE
    assert hashlib_variant.constructor("md5") is hashlib.md5
    assert "hashlib" not in registry.names()  # not measured or tested as a variant


@pytest.mark.parametrize("name", ["md5", "MD5", "Sha256", "SHA224", "sha256"])
def test_new_is_case_insensitive(name: str) -> None:
    assert variants.new(name, b"abc").digest() == hashlib.new(name.lower(), b"abc").digest()
    assert variants.new(name, data=b"abc").name == name.lower()


def test_new_passes_usedforsecurity_and_refuses_unknown_names_like_hashlib() -> None:
    for name in registry.available():
        loaded = variants.get(name)
        for algorithm in loaded.algorithms_available:
            expected = hashlib.new(algorithm, b"abc").digest()
            assert loaded.new(algorithm, b"abc", usedforsecurity=False).digest() == expected
            assert (
                loaded.new(algorithm, usedforsecurity=True).digest()
                == hashlib.new(algorithm).digest()
            )
        with pytest.raises(ValueError) as ours:
            loaded.new("no-such-hash")
        with pytest.raises(ValueError) as theirs:
            hashlib.new("no-such-hash")
        assert str(ours.value) == str(theirs.value)


def test_new_errors_like_hashlib() -> None:
    with pytest.raises(ValueError, match=r"unsupported hash (type|algorithm) sha3_256"):
        variants.new("sha3_256")
    with pytest.raises(TypeError):
        variants.new(b"md5")
    with pytest.raises(TypeError):
        variants.new("md5", "text")


def test_algorithms_available() -> None:
    """The default variant's algorithms; of them, those hashlib guarantees."""
    assert variants.algorithms_available == set(variants.default_variant.algorithms_available)
    if variants.default_variant.name == "native":
        names = "md5 sha1 sha224 sha256 sha384 sha512 sha512_224 sha512_256"
        assert variants.algorithms_available == set(names.split())
    assert variants.algorithms_guaranteed <= hashlib.algorithms_guaranteed
    assert variants.algorithms_guaranteed == (
        variants.algorithms_available & hashlib.algorithms_guaranteed
    )


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


@pytest.mark.skipif(
    not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="a free-threaded CPython"
)
def test_no_variant_turns_the_gil_back_on() -> None:
    """Every variant importable on a free-threaded build declares it runs without the GIL."""
    code = (
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"  # the import warning that re-enables the GIL
        "from variants import registry\n"
        "names = registry.available()\n"
        "print(sys._is_gil_enabled(), ' '.join(names))\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    enabled, names = result.stdout.split(" ", 1)
    assert enabled == "False", names
    assert "native" in names.split()


def test_environment_pin_to_unknown_variant_fails_loudly() -> None:
    result = run_python("import variants", VARIANTS_DEFAULT="no-such-variant")
    assert result.returncode != 0
    assert "unknown variant" in result.stderr


@pytest.mark.parametrize(
    "generator", ["gen_streamlined.py", "gen_constants.py", "gen_sha512_amd64.py"]
)
def test_generated_sources_are_up_to_date(generator: str) -> None:
    path = SOURCE_ROOT / "tools" / generator
    if not path.exists():
        pytest.skip("not a source checkout")
    result = subprocess.run(
        [sys.executable, str(path), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout
