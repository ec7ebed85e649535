"""The cache seen from the command line: hits, misses, damage and `off` print the same."""

from __future__ import annotations

import shutil

import pytest

from tests.cli import SMALL_SPMM


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(folder))
    return folder


def _show(cli, *extra: str) -> str:
    return cli("show", *extra, ok=True).stdout


def test_show_and_fill_print_the_same_with_and_without_the_cache(cli, cache_folder, monkeypatch):
    cli("start", "gcn", ok=True)
    entries = sorted(entry.name.split("-")[0] for entry in cache_folder.glob("*.cache.json"))
    assert entries == ["facts", "solved"]
    hit = _show(cli)
    off = _show(cli, "--no-cache")
    monkeypatch.setenv("NAVIGATOR_CACHE", "off")
    assert _show(cli) == hit == off
    monkeypatch.delenv("NAVIGATOR_CACHE")
    filled = cli("fill", "?0", "1", ok=True).stdout
    assert "?0 := schedule" in filled
    assert cli("undo", ok=True).returncode == 0
    assert _show(cli) == hit.replace("redo: no", "redo: yes")


@pytest.mark.parametrize("kind", ["facts", "solved"])
@pytest.mark.parametrize("damage", ["empty", "garbage", "truncated", "folder removed"])
def test_a_damaged_cache_is_ignored_and_written_again(cli, cache_folder, damage, kind):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    expected = _show(cli)
    (entry,) = cache_folder.glob(f"{kind}-*.cache.json")
    good = entry.read_bytes()
    if damage == "empty":
        entry.write_bytes(b"")
    elif damage == "garbage":
        entry.write_bytes(b"\x00\xff not json\n{]")
    elif damage == "truncated":
        entry.write_bytes(good[: len(good) // 2])
    else:
        shutil.rmtree(cache_folder)
    result = cli("show", ok=True)
    assert result.stdout == expected and result.stderr == ""
    (entry,) = cache_folder.glob(f"{kind}-*.cache.json")
    if damage == "folder removed":  # a new folder has a new secret: the same payload, signed anew
        assert entry.read_bytes().partition(b"\n")[2] == good.partition(b"\n")[2]
    else:
        assert entry.read_bytes() == good


def test_a_cache_folder_in_the_way_is_not_an_error(cli, tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder would be", encoding="utf-8")
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(blocker))
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    assert "?0" in _show(cli)


def test_hints_are_kept_for_the_next_command_and_a_damaged_entry_is_recomputed(cli, cache_folder, monkeypatch):
    from fuseflow.cost import hints
    from navigator.fuseflow import sketch_hints

    estimated = []
    region_cost = hints.region_cost
    monkeypatch.setattr(hints, "region_cost", lambda *a, **k: estimated.append(1) or region_cost(*a, **k))

    def show_hints(*extra: str) -> tuple[str, int]:
        sketch_hints._COSTS.clear()   # as a new process would start: without this process's memo
        estimated.clear()
        return _show(cli, "--hints", *extra), len(estimated)

    cli("start", "gcn", "--dim", "N=6", "--dim", "F=3", "--dim", "H=2", "--dim", "C=2", ok=True)
    first, computed = show_hints()
    assert computed > 0
    (entry,) = cache_folder.glob("hints-*.cache.json")
    kept = entry.read_bytes()
    assert b'"estimates"' in kept
    assert show_hints() == (first, 0)           # read back: the same hints, none estimated again
    entry.write_bytes(kept.replace(b'"estimates"', b'"estimatez"', 1))   # its signature no longer checks out
    assert show_hints() == (first, computed)    # a miss: computed again, and written again
    assert entry.read_bytes() == kept
    assert show_hints("--no-cache") == (first, computed)
