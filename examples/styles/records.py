"""A ``dataclass`` (with and without ``__slots__``) against a plain tuple and a namedtuple:
making records of points and reading their fields back."""

from collections import namedtuple
from dataclasses import dataclass

TITLE = "Records: a tuple, a namedtuple, a dataclass, a dataclass with __slots__"
SIZES = (16, 4096)


@dataclass
class Point:
    x: int
    y: int


@dataclass
class SlottedPoint:
    __slots__ = ("x", "y")  # written out: dataclass(slots=True) needs Python 3.10
    x: int
    y: int


NamedPoint = namedtuple("NamedPoint", "x y")


def inputs(size):
    return (list(range(size)),)


def plain_tuple(xs):
    """(x, y) tuples, read by index"""
    points = [(x, x + 1) for x in xs]
    return sum(p[0] * p[1] for p in points)


def named_tuple(xs):
    """namedtuple, read by name"""
    points = [NamedPoint(x, x + 1) for x in xs]
    return sum(p.x * p.y for p in points)


def dataclass_dict(xs):
    """@dataclass, its fields in a __dict__"""
    points = [Point(x, x + 1) for x in xs]
    return sum(p.x * p.y for p in points)


def dataclass_slots(xs):
    """@dataclass with __slots__"""
    points = [SlottedPoint(x, x + 1) for x in xs]
    return sum(p.x * p.y for p in points)


STYLES = (plain_tuple, named_tuple, dataclass_dict, dataclass_slots)
