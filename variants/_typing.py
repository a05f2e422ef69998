"""What the package needs of ``typing`` at run time, without importing ``typing``.

``import typing`` costs a command-line run about a third of its fixed cost (``typing`` brings
``re``, ``contextlib`` and more; measured with ``python -X importtime -m variants``), and a
plain ``variants-sum`` run uses none of it: with ``from __future__ import annotations`` every
annotation stays a string. So the modules that such a run imports take their annotations'
names from ``typing`` under ``if TYPE_CHECKING:`` only, and the few names that exist at run
time from here: type checkers see ``typing``'s own (below), the interpreter a stand-in that
behaves as ``typing``'s does for this package's use:

* ``NamedTuple``: a base whose subclasses are ``collections.namedtuple`` classes with the
  class body's annotated fields (in order, with their defaults), methods and docstring;
* ``Protocol``: a plain base (none of the package's protocols is checked at run time);
* ``cast``: the value itself.

``tests/test_cli_imports.py`` holds the rule: a plain run does not import ``typing``.
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
    from typing import Protocol as Protocol
    from typing import cast as cast
else:
    from collections import namedtuple

    class _NamedTupleMeta(type):
        """Makes ``class X(NamedTuple): a: int; b: str = ""`` a namedtuple class."""

        def __new__(mcs, name, bases, namespace):
            if namespace.get("__module__") == __name__:  # NamedTuple itself
                return super().__new__(mcs, name, bases, namespace)
            fields = list(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            if defaults and [f for f in fields if f in namespace] != fields[-len(defaults) :]:
                raise TypeError(f"{name}: a field without a default follows one with a default")
            base = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            body = {k: v for k, v in namespace.items() if k not in fields}
            body["__slots__"] = ()
            return type(name, (base,), body)

    class NamedTuple(metaclass=_NamedTupleMeta):
        """The stand-in for ``typing.NamedTuple`` (see the module's docstring)."""

    class Protocol:
        """The stand-in for ``typing.Protocol``: a plain base class."""

    def cast(_type, value):
        """The stand-in for ``typing.cast``: ``value`` itself."""
        return value
