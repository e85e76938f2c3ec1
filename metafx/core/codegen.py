"""Small text helpers for generated code (``metafx export`` and the families' ``export_c`` / ``export_numpy``)."""

from __future__ import annotations

from typing import Any

__all__ = ["c_table", "py_list"]


def c_table(values: Any, per_line: int = 16, indent: str = "    ") -> str:
    """The items of ``values`` as the lines of a C initializer, ``per_line`` a line, each followed by a comma.

    >>> print(c_table([1, 2, 3], per_line=2))
        1, 2,
        3,
    """
    items = [str(v) for v in values]
    return "\n".join(indent + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line))


def py_list(values: Any, per_line: int = 16, indent: str = "    ") -> str:
    """The ``repr`` of the items of ``values`` as the lines inside a Python list (empty for no items).

    >>> print("[" + py_list(["a", 1], per_line=1) + "]")
    [
        'a',
        1,
    ]
    """
    items = [repr(v) for v in values]
    if not items:
        return ""
    return "\n" + "\n".join(indent + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line)) \
        + "\n"
