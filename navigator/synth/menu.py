"""Menus: the steps offered at every open hole, grouped by hole.

An option's id is a deterministic string built from the function and its return metadata
in the type's field order, e.g. `choose_par{level=1, par=4}` or `leaf` (no metadata). The
pair (hole, id) names a step, stable across runs and processes, so sessions, strategies
and the CLI can refer to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator, Mapping

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
    #: the function is a shortcut (`alias = true`): what it builds is also built without it,
    #: so `count` is not part of the hole's total (the other options partition it)
    alias: bool = False

    @cached_property
    def id(self) -> str:
        # built once: strategies and screens ask for it at every step
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
            "alias": self.alias,
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


class Menus:
    """Menus for every open hole of one sketch, in ascending hole order.

    A hole's menu may be given lazily, as a function that builds it (`makers`): a step taken
    one hole at a time (a strategy, sampling) then builds one menu rather than every open
    hole's, which keeps large sketches from costing time in proportion to their holes."""

    def __init__(self, holes: tuple[HoleMenu, ...] = (), total: Count | None = None,
                 blocked: str | None = None, *,
                 makers: Mapping[int, Callable[[], HoleMenu]] | None = None):
        #: complete programs extending the sketch (1 for a valid complete program)
        self.total = total
        #: why the sketch cannot be completed, when it cannot (then every menu is empty)
        self.blocked = blocked
        self._by_hole: dict[int, HoleMenu] = {m.hole: m for m in holes}
        #: hole -> how to build its menu, in ascending hole order (holes given lazily; the
        #: mapping itself may make each on demand, Oracle's _HoleMakers)
        self._makers = makers if makers is not None else {}
        self._holes: tuple[HoleMenu, ...] | None = None if self._makers else tuple(holes)

    @property
    def holes(self) -> tuple[HoleMenu, ...]:
        if self._holes is None:
            self._holes = tuple(self._menu(hole) for hole in self._makers)
        return self._holes

    def _menu(self, hole: int) -> HoleMenu | None:
        menu = self._by_hole.get(hole)
        if menu is None:
            maker = self._makers.get(hole)
            if maker is None:
                return None
            menu = self._by_hole[hole] = maker()
        return menu

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Menus):
            return NotImplemented
        return (self.holes, self.total, self.blocked) == (other.holes, other.total, other.blocked)

    def __repr__(self) -> str:
        return f"Menus(total={self.total}, blocked={self.blocked!r}, holes={len(self.holes)})"

    @property
    def completable(self) -> bool:
        return self.blocked is None

    def for_hole(self, hole: int) -> HoleMenu:
        menu = self._menu(hole)
        if menu is None:
            raise KeyError(f"?{hole} is not an open hole")
        return menu

    def only(self, holes: Iterable[int]) -> "Menus":
        """The menus of `holes` alone, with the same total and blocked reason: what a view or a
        prompt shows, so that work per menu (cost hints) is done for those only."""
        return Menus(tuple(self.for_hole(hole) for hole in sorted(set(holes))), self.total, self.blocked)

    def option(self, hole: int, option_id_: str) -> MenuOption | None:
        menu = self._menu(hole)
        return menu.option(option_id_) if menu else None

    def find(self, hole: int, function: str, metadata: Mapping[str, Value]) -> MenuOption | None:
        menu = self._menu(hole)
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
