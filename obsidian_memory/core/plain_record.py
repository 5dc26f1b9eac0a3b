"""`Record`: what a dataclass would be, without importing `dataclasses` (and `inspect`, `ast`,
`dis`...), which costs a one-shot search process several milliseconds: the search shapes
(`search.base`) and the Markdown grammar's notes and links (`markdown`) are records."""
from __future__ import annotations


class Record:
    """A plain record: its fields are its `__slots__`, set by the subclass's `__init__`; equal
    when every field is, shown with them, copied with changes by `replace`. What a dataclass
    would be, without importing `dataclasses` (and `inspect`, `ast`, `dis`...) on the search
    path, where a whole search process at 20k notes costs a few dozen milliseconds."""
    __slots__ = ()

    def replace(self, **changes):
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"
