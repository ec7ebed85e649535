"""Menus: the steps offered at every open hole, grouped by hole.

An option's id is a deterministic string built from the function and its return metadata
in the type's field order, e.g. `choose_par{level=1, par=4}` or `leaf` (no metadata). The
pair (hole, id) names a step, stable across runs and processes, so sessions, strategies
and the CLI can refer to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from navigator.lang.formula import Value, format_value, same_value
from navigator.synth.count import Count


def option_id(function: str, metadata: tuple[tuple[str, Value], ...]) -> str:
    if not metadata:
        return function
    inner = ", ".join(f"{name}={format_value(value)}" for name, value in metadata)
    return f"{function}{{{inner}}}"


@dataclass(frozen=True)
class MenuOption:
    """One offered step: fill `hole` with `function` whose result has `metadata`."""

    hole: int
    function: str
    type: str
    #: (field, value) pairs in the return type's field order
    metadata: tuple[tuple[str, Value], ...]
    #: complete programs extending the sketch after this step
    count: Count
    #: complete programs rooted at this function with this metadata (the subtree alone)
    subtree_count: Count
    is_default: bool = False

    @property
    def id(self) -> str:
        return option_id(self.function, self.metadata)

    @property
    def meta(self) -> tuple[Value, ...]:
        return tuple(v for _, v in self.metadata)

    def metadata_dict(self) -> dict[str, Value]:
        return dict(self.metadata)

    def matches(self, function: str, metadata: Mapping[str, Value]) -> bool:
        if function != self.function or len(metadata) != len(self.metadata):
            return False
        return all(name in metadata and same_value(metadata[name], value)
                   for name, value in self.metadata)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hole": self.hole,
            "id": self.id,
            "function": self.function,
            "type": self.type,
            "metadata": self.metadata_dict(),
            "count": self.count.to_json(),
            "subtree_count": self.subtree_count.to_json(),
            "default": self.is_default,
        }


@dataclass(frozen=True)
class HoleMenu:
    hole: int
    type: str
    #: the parent application's function and parameter, None for the root hole
    parent_function: str | None
    param: str | None
    options: tuple[MenuOption, ...]
    #: metadata the hole may still take (given its parent and siblings), field order
    allowed_metadata: tuple[tuple[tuple[str, Value], ...], ...] = ()

    @property
    def default(self) -> MenuOption | None:
        for option in self.options:
            if option.is_default:
                return option
        return None

    def option(self, option_id_: str) -> MenuOption | None:
        for option in self.options:
            if option.id == option_id_:
                return option
        return None

    def __iter__(self) -> Iterator[MenuOption]:
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hole": self.hole,
            "type": self.type,
            "parent": self.parent_function,
            "param": self.param,
            "default": self.default.id if self.default else None,
            "options": [o.to_dict() for o in self.options],
        }


@dataclass(frozen=True)
class Menus:
    """Menus for every open hole of one sketch, in ascending hole order."""

    holes: tuple[HoleMenu, ...]
    #: complete programs extending the sketch (1 for a valid complete program)
    total: Count
    #: why the sketch cannot be completed, when it cannot (then every menu is empty)
    blocked: str | None = None
    _by_hole: dict[int, HoleMenu] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_hole.update({m.hole: m for m in self.holes})

    @property
    def completable(self) -> bool:
        return self.blocked is None

    def for_hole(self, hole: int) -> HoleMenu:
        try:
            return self._by_hole[hole]
        except KeyError:
            raise KeyError(f"?{hole} is not an open hole") from None

    def option(self, hole: int, option_id_: str) -> MenuOption | None:
        menu = self._by_hole.get(hole)
        return menu.option(option_id_) if menu else None

    def find(self, hole: int, function: str, metadata: Mapping[str, Value]) -> MenuOption | None:
        menu = self._by_hole.get(hole)
        if menu is None:
            return None
        for option in menu.options:
            if option.matches(function, metadata):
                return option
        return None

    def options(self) -> Iterator[MenuOption]:
        for menu in self.holes:
            yield from menu.options

    def __len__(self) -> int:
        return sum(len(m.options) for m in self.holes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total.to_json(),
            "blocked": self.blocked,
            "holes": [m.to_dict() for m in self.holes],
        }
