"""navigator.workspace.cache: entries are used only when they check out, and the cache never fails a command.

The guarantees: read_entry returns exactly what write_entry stored under the same key, or
None (never other data, never an exception), whatever happened to the file; a space made
from cached facts is the space built from the program; and a cache that is missing,
corrupt, foreign, off or not private only costs time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navigator.workspace import cache
from navigator.workspace.cache import read_entry, write_entry
from navigator.workspace import ProgramSpec
from navigator.workspace.spec import FACTS_CACHE, SOLVED_CACHE

PAYLOAD = {"facts": [["Extent", {"var": "i", "extent": 8, "compressed": False}]], "goal": ["Schedule", {}],
           "fingerprint": "0123456789abcdef", "big": 10 ** 300}
KEY = {"program": "aa", "library": "bb", "data": None, "dims": {"N": 8}}


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(path))
    monkeypatch.delenv("NAVIGATOR_CACHE", raising=False)
    return path


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.cache.json")) if folder.exists() else []


def test_an_entry_reads_back_under_its_key_only(folder):
    assert read_entry("facts", KEY) is None
    assert write_entry("facts", KEY, PAYLOAD)
    assert read_entry("facts", KEY) == PAYLOAD
    assert read_entry("facts", {**KEY, "dims": {"N": 9}}) is None
    assert read_entry("other", KEY) is None
    (entry,) = _entries(folder)
    assert oct(folder.stat().st_mode & 0o777) == oct(0o700)
    assert not [p for p in folder.iterdir() if p not in (entry, folder / cache.KEY_FILE)]  # no temporary file left


def test_an_entry_of_other_code_or_another_version_is_not_used(folder, monkeypatch):
    write_entry("facts", KEY, PAYLOAD)
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "another build")
    assert read_entry("facts", KEY) is None
    monkeypatch.undo()
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(folder))
    monkeypatch.setattr("navigator.version.__version__", "99.0")
    assert read_entry("facts", KEY) is None


def test_a_renamed_entry_is_refused_by_its_key(folder):
    """The file name is only a hash of the key; the key inside decides."""
    write_entry("facts", KEY, PAYLOAD)
    write_entry("facts", {**KEY, "program": "cc"}, {"other": True})
    first, second = _entries(folder)
    data = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(data)
    assert read_entry("facts", KEY) is None
    assert read_entry("facts", {**KEY, "program": "cc"}) is None


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_damaged_entry_reads_as_the_original_or_as_nothing(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("cache")
    previous = os.environ.get("NAVIGATOR_CACHE_DIR")
    os.environ["NAVIGATOR_CACHE_DIR"] = str(folder)
    try:
        write_entry("facts", KEY, PAYLOAD)
        (entry,) = _entries(folder)
        raw = bytearray(entry.read_bytes())
        damage = data.draw(st.sampled_from(["flip", "truncate", "append", "replace"]))
        if damage == "flip":
            position = data.draw(st.integers(0, len(raw) - 1))
            raw[position] ^= data.draw(st.integers(1, 255))
        elif damage == "truncate":
            raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
        elif damage == "append":
            raw += data.draw(st.binary(min_size=1, max_size=20))
        else:
            raw = bytearray(data.draw(st.binary(max_size=200)))
        entry.write_bytes(bytes(raw))
        assert read_entry("facts", KEY) in (None, PAYLOAD)
    finally:
        if previous is None:
            os.environ.pop("NAVIGATOR_CACHE_DIR", None)
        else:
            os.environ["NAVIGATOR_CACHE_DIR"] = previous


def test_off_means_nothing_is_read_or_written(folder, monkeypatch):
    monkeypatch.setenv("NAVIGATOR_CACHE", "off")
    assert not write_entry("facts", KEY, PAYLOAD)
    assert not folder.exists()
    monkeypatch.delenv("NAVIGATOR_CACHE")
    write_entry("facts", KEY, PAYLOAD)
    cache.switch_off()
    try:
        assert read_entry("facts", KEY) is None
    finally:
        cache.switch_off(False)
    assert read_entry("facts", KEY) == PAYLOAD


def test_a_folder_others_can_write_is_not_used(folder):
    write_entry("facts", KEY, PAYLOAD)
    folder.chmod(0o777)
    try:
        assert read_entry("facts", KEY) is None
        assert not write_entry("facts", {**KEY, "program": "cc"}, PAYLOAD)
    finally:
        folder.chmod(0o700)
    assert read_entry("facts", KEY) == PAYLOAD


def test_an_unusable_folder_only_turns_the_cache_off(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(blocker / "cache"))
    assert not write_entry("facts", KEY, PAYLOAD)
    assert read_entry("facts", KEY) is None
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(blocker))
    assert not write_entry("facts", KEY, PAYLOAD)


def test_old_entries_are_pruned(folder, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for index in range(5):
        write_entry("facts", {**KEY, "program": str(index)}, PAYLOAD)
    assert len(_entries(folder)) == 3


def test_the_default_folder_is_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("NAVIGATOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_folder() == tmp_path / "xdg" / "navigator"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_folder() == tmp_path / "home" / ".cache" / "navigator"


# ---------------------------------------------------------------- the space a session navigates

def _menus(space):
    menus = space.oracle.menus(space.initial_sketch())
    return [(m.hole, [(o.id, o.count.to_json()) for o in m.options]) for m in menus.holes]


@pytest.mark.parametrize("program, dims", [("spmm", {"N": 4, "J": 2}), ("gcn", {})])
def test_a_space_from_cached_facts_is_the_space_built_from_the_program(folder, program, dims):
    spec = ProgramSpec.from_user(program, dims=dims)
    built = spec.load()
    assert [p.name.split("-")[0] for p in _entries(folder)] == sorted([FACTS_CACHE, SOLVED_CACHE])
    cached = spec.load()
    assert cached.space.oracle.restored_solved and not built.space.oracle.restored_solved
    assert cached.fingerprints == built.fingerprints
    assert cached.space.facts.facts == built.space.facts.facts
    assert _menus(cached.space) == _menus(built.space)
    assert cached.space._binding is None  # bound only when asked
    assert cached.binding.extents == built.binding.extents


def test_a_cached_entry_that_does_not_make_a_space_is_computed_again(folder):
    spec = ProgramSpec.from_user("spmm", dims={"N": 4, "J": 2})
    built = spec.load()
    loaded = json.loads(json.dumps({"facts": [["NoSuchProp", {}]], "goal": ["Schedule", {}],
                                    "fingerprint": "x"}))
    key = {**{k: built.fingerprints[k] for k in ("program", "library", "data")}, "dims": spec.dims_dict}
    assert write_entry(FACTS_CACHE, key, loaded)
    again = spec.load()
    assert again.fingerprints == built.fingerprints
    assert read_entry(FACTS_CACHE, key)["fingerprint"] == built.fingerprints["facts"]  # rewritten


def test_a_changed_data_file_is_a_new_entry(folder, tmp_path):
    data = tmp_path / "graph.txt"
    data.write_text("0 1\n1 2\n2 0\n", encoding="utf-8")
    spec = ProgramSpec.from_user("spmm", data=str(data), dims={"J": 2})
    first = spec.load()
    data.write_text("0 1\n1 2\n2 3\n3 0\n", encoding="utf-8")
    second = spec.load()
    assert first.fingerprints["data"] != second.fingerprints["data"]
    assert len(_entries(folder)) == 4  # facts and solved tables, for each
    assert second.binding.extents != first.binding.extents


def test_solved_tables_of_another_shape_are_solved_again_and_written_again(folder):
    spec = ProgramSpec.from_user("gcn")
    built = spec.load()
    key = {**{k: built.fingerprints[k] for k in ("program", "library", "data")}, "dims": spec.dims_dict}
    good = read_entry(SOLVED_CACHE, key)
    assert write_entry(SOLVED_CACHE, key, {**good, "groups": [["NoSuchType", [], [], []]]})
    again = spec.load()
    assert not again.space.oracle.restored_solved
    assert _menus(again.space) == _menus(built.space)
    assert read_entry(SOLVED_CACHE, key) == good  # rewritten
    assert spec.load().space.oracle.restored_solved


def test_kept_facts_read_back_in_order_and_facts_of_another_shape_are_refused():
    from fuseflow.support.errors import UserError
    from navigator.fuseflow.schedule_space import ScheduleSpace

    built = ProgramSpec.from_user("spmm", dims={"N": 4, "J": 2}).load().space
    kept = json.loads(json.dumps(built.kept_facts()))
    again = ScheduleSpace.from_kept(built.program, kept)
    assert again.facts == built.facts and again.facts_fingerprint == built.facts_fingerprint
    at = next(i for i, (_, fields) in enumerate(kept["props"]) if len(fields) > 1)
    props = [list(p) for p in kept["props"]]
    props[at][1] = props[at][1][::-1]
    reordered = {**kept, "props": props}
    first = next(i for i, row in enumerate(kept["rows"]) if row[0] == at)  # checked in full
    rows = [list(r) for r in kept["rows"]]
    rows[first][1] = [1]  # no field holds a list
    wrong_value = {**kept, "rows": rows}
    for broken in (reordered, wrong_value):
        with pytest.raises(UserError):
            ScheduleSpace.from_kept(built.program, broken)
