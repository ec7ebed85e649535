"""The facts cache against what may be found in its folder (issue 21): a symbolic link at an
entry, a header nested 2,000 levels deep, a folder 1,900 levels deep, an empty HOME, and an
entry edited with its checksum recomputed. None of them fails a command or changes what it
navigates."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from navigator.workspace import ProgramSpec, cache
from navigator.workspace.cache import read_entry, write_entry, write_entry_text
from navigator.workspace.spec import FACTS_CACHE
from tests.cli import SMALL_SPMM


@pytest.fixture
def folder(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(path))
    return path


def _entry(folder):
    """The facts' entry (the solved tables' entry is made from them)."""
    (entry,) = folder.glob("facts-*.cache.json")
    return entry


def _show(cli) -> str:
    return cli("show", ok=True).stdout


def test_a_symlink_at_an_entry_is_replaced_and_its_target_left_alone(cli, folder, tmp_path):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    expected = _show(cli)
    entry = _entry(folder)
    good = entry.read_bytes()
    outside = tmp_path / "precious.txt"
    outside.write_text("the user's file\n")
    entry.unlink()
    entry.symlink_to(outside)
    assert _show(cli) == expected
    assert outside.read_text() == "the user's file\n"  # before: replaced by the entry
    assert not entry.is_symlink() and entry.read_bytes() == good


def test_a_header_nested_2000_levels_deep_is_a_miss(cli, folder):
    cli("start", "spmm", *SMALL_SPMM, ok=True)
    expected = _show(cli)
    entry = _entry(folder)
    good = entry.read_bytes()
    entry.write_bytes(b"[" * 2000 + b"]" * 2000 + b"\n" + good.partition(b"\n")[2])
    result = cli("show", ok=True)  # before: RecursionError, an internal error, in every session command
    assert result.stdout == expected and result.stderr == ""
    assert entry.read_bytes() == good


def test_a_cache_folder_1900_levels_deep_is_created(tmp_path, monkeypatch):
    import tempfile

    # in memory where there is a tmpfs: 1,900 folders are slow to remove from some disks
    base = Path(tempfile.mkdtemp(dir="/dev/shm")) if os.access("/dev/shm", os.W_OK) else tmp_path
    deep = base.joinpath(*["d"] * 1900)  # Path.mkdir(parents=True) recursed once per level
    monkeypatch.setenv("NAVIGATOR_CACHE_DIR", str(deep))
    try:
        assert write_entry("facts", {"program": "p"}, {"x": 1})
        assert read_entry("facts", {"program": "p"}) == {"x": 1}
    finally:  # shutil.rmtree, which pytest cleans up with, recurses too: remove it level by level
        monkeypatch.chdir(deep)
        for _ in range(1900):
            for item in os.scandir("."):
                os.rmdir(item.name) if item.is_dir(follow_symlinks=False) else os.unlink(item.name)
            os.chdir("..")
        os.rmdir("d")
        if base != tmp_path:
            os.chdir(tmp_path)
            base.rmdir()


def test_an_empty_home_is_unset_and_no_usable_home_turns_the_cache_off(cli, tmp_path, monkeypatch):
    import pwd

    for name in ("NAVIGATOR_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", "")
    from types import SimpleNamespace

    def home_at(path):
        monkeypatch.setattr(pwd, "getpwuid", lambda uid: SimpleNamespace(pw_dir=path))

    home_at(str(tmp_path / "home"))  # as if HOME were unset: the password database says where home is
    assert cache.cache_folder() == tmp_path / "home" / ".cache" / "navigator"
    home_at("/")  # before: the cache went to /.cache
    assert cache.cache_folder() is None
    cli("start", "spmm", *SMALL_SPMM, ok=True)  # the cache is off; the command works
    assert "?0" in _show(cli)


def test_an_entry_edited_with_its_checksum_recomputed_is_not_used(folder):
    spec = ProgramSpec.from_user("spmm", dims={"N": 4, "J": 2})
    built = spec.load()
    entry = _entry(folder)
    header_line, _, payload = entry.read_bytes().partition(b"\n")
    header = json.loads(header_line)
    data = json.loads(payload)
    legal = [name for name, _ in data["props"]].index("LegalOrder")
    data["rows"] = [row for row in data["rows"] if row[0] != legal][:-1]
    edited = json.dumps(data, separators=(",", ":")).encode()
    # whoever edits the entry recomputes a checksum (the SHA-256 the header held before), not the secret
    header["hmac"] = header["sha256"] = hashlib.sha256(edited).hexdigest()
    entry.write_bytes(json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n" + edited)
    again = spec.load()
    assert again.space.facts.facts == built.space.facts.facts
    assert again.fingerprints == built.fingerprints
    # an entry navigator signed, but with the facts of another program, is refused by its content
    key = {**{k: built.fingerprints[k] for k in ("program", "library", "data")}, "dims": spec.dims_dict}
    other = ProgramSpec.from_user("gcn").load().space
    assert write_entry_text(FACTS_CACHE, key, json.dumps({**other.kept_facts(),
                                                          "fingerprint": built.fingerprints["facts"]}))
    assert spec.load().space.facts.facts == built.space.facts.facts
