"""`Record`: what a dataclass would be, without importing `dataclasses` (and `inspect`, `ast`,
`dis`...), which costs a one-shot search process several milliseconds: the search shapes
(`search.base`) and the Markdown grammar's notes and links (`markdown`) are records."""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """A plain record: its fields are its `__slots__`, set by the subclass's `__init__`; equal
    when every field is, shown with them, copied with changes by `replace`. What a dataclass
    would be, without importing `dataclasses` (and `inspect`, `ast`, `dis`...) on the search
    path, where a whole search process at 20k notes costs a few dozen milliseconds."""
    __slots__: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """{field: value}, in the order of the fields."""
        return {name: getattr(self, name) for name in self.__slots__}

    def replace(self: R, **changes: Any) -> R:
        return type(self)(**{**self.as_dict(), **changes})

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None     # type: ignore[assignment]  # (equal by value and changeable: no hash)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"
