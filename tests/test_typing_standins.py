"""``variants._typing``'s run-time stand-ins behave as ``typing``'s do where the package uses
them (they exist so that a plain command-line run need not import ``typing``)."""

from __future__ import annotations

import collections
import typing

import pytest

from variants import _typing
from variants._catalog import TWINS, Twin


class Record(_typing.NamedTuple):
    """A record."""

    name: str
    size: int = 0

    def doubled(self) -> int:
        return 2 * self.size


class TypingRecord(typing.NamedTuple):
    name: str
    size: int = 0


def test_a_named_tuple_stand_in_is_a_namedtuple_with_the_fields_defaults_and_methods() -> None:
    record = Record("a", 3)
    assert isinstance(record, tuple) and record == ("a", 3)
    assert Record._fields == TypingRecord._fields == ("name", "size")
    assert tuple(Record("b")) == tuple(TypingRecord("b")) == ("b", 0)
    assert record.doubled() == 6 and record._replace(size=1).size == 1
    assert Record.__doc__ == "A record." and Record.__name__ == "Record"
    assert Record.__module__ == __name__ and repr(record) == "Record(name='a', size=3)"
    name, size = record
    assert (name, size) == ("a", 3)
    with pytest.raises(AttributeError):
        record.other = 1  # type: ignore[attr-defined]  # __slots__: no instance dict


def test_a_field_without_a_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default"):
        type("Bad", (_typing.NamedTuple,), {"__annotations__": {"a": "int", "b": "int"}, "a": 1})


def test_the_package_records_are_namedtuples() -> None:
    twin = TWINS[0]
    assert isinstance(twin, tuple) and twin == Twin(*twin)
    assert issubclass(Twin, tuple) and hasattr(Twin, "_make")
    assert collections.namedtuple.__module__ == "collections"


def test_protocol_and_cast_stand_ins() -> None:
    class Proto(_typing.Protocol):
        def f(self) -> int: ...

    class Concrete(Proto):
        def f(self) -> int:
            return 1

    marker = object()
    assert _typing.cast("int", marker) is marker
    assert Concrete().f() == 1 and Proto in Concrete.__mro__
