"""The framework's file helpers one by one: the atomic swap (`renames`), extended
attributes (`file_metadata`) and the run's files read on demand (`sources`). Written to
kill what the mutation run left alive in them; each asserts what a caller relies on."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from pathlib import Path

import pytest

from acp_schema.migrations.framework.disk import renames, sources
from acp_schema.migrations.framework.disk.file_metadata import Kept, apply_kept, kept_by
from acp_schema.migrations.framework.disk.sources import SourceFiles

# --- renames --------------------------------------------------------------------------------


def test_exchange_swaps_two_names_in_one_step(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("A")
    second.write_text("B")
    inode = first.stat().st_ino
    if not renames.exchange(first, second):
        pytest.skip("no atomic swap of names on this system")
    assert (first.read_text(), second.read_text()) == ("B", "A")
    assert second.stat().st_ino == inode


def _failing(code: int) -> object:
    def call(*args: object) -> int:
        ctypes.set_errno(code)
        return -1

    return call


@pytest.mark.parametrize("code", [errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP])
def test_exchange_says_no_where_the_file_system_cannot(
    code: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(renames, "_renameat2", lambda: _failing(code))
    assert renames.exchange(tmp_path / "a", tmp_path / "b") is False


def test_exchange_raises_what_the_swap_itself_met(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(renames, "_renameat2", lambda: _failing(errno.EACCES))
    with pytest.raises(PermissionError) as raised:
        renames.exchange(tmp_path / "a", tmp_path / "b")
    assert raised.value.errno == errno.EACCES and raised.value.filename == str(tmp_path / "b")


def test_exchange_without_renameat2_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_text("A")
    second.write_text("B")
    renames._renameat2.cache_clear()
    monkeypatch.setattr(renames.sys, "platform", "darwin")
    try:
        assert renames.exchange(first, second) is False
    finally:
        renames._renameat2.cache_clear()
    assert (first.read_text(), second.read_text()) == ("A", "B")


def test_renameat2_is_found_on_linux() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    renames._renameat2.cache_clear()
    call = renames._renameat2()
    if call is None:
        pytest.skip("this libc has no renameat2")
    assert call.restype is ctypes.c_int
    assert len(call.argtypes) == 5


# --- extended attributes --------------------------------------------------------------------


def _xattrs(path: Path) -> bool:
    try:
        os.setxattr(path, "user.probe", b"1")
        os.removexattr(path, "user.probe")
    except (OSError, AttributeError):
        return False
    return True


def test_attributes_are_read_and_given_and_others_removed(tmp_path: Path) -> None:
    source, target = tmp_path / "s", tmp_path / "t"
    source.write_text("s")
    target.write_text("t")
    if not _xattrs(source):
        pytest.skip("no user extended attributes here")
    os.setxattr(source, "user.a", b"1")
    os.setxattr(source, "user.b", b"\x00two")
    os.setxattr(target, "user.inherited", b"x")
    os.setxattr(target, "user.a", b"old")
    kept = kept_by(source)
    assert kept.attributes == {"user.a": b"1", "user.b": b"\x00two"}
    assert apply_kept(target, kept) is True
    assert kept_by(target) == kept  # the same, and nothing else
    os.setxattr(target, "user.later", b"y")
    assert apply_kept(target, kept, remove_others=False) is True
    assert kept_by(target).attributes["user.later"] == b"y"


def test_attributes_that_cannot_be_given_are_said(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.write_text("t")
    if not _xattrs(target):
        pytest.skip("no user extended attributes here")
    assert apply_kept(target, Kept({"bogus.namespace": b"1"})) is False
    assert apply_kept(target, Kept()) is True
    assert apply_kept(tmp_path / "missing", Kept({"user.a": b"1"})) is False
    assert apply_kept(tmp_path / "missing", Kept()) is True


def test_a_file_that_is_not_there_keeps_nothing(tmp_path: Path) -> None:
    assert kept_by(tmp_path / "missing") == Kept()


# --- the run's files ------------------------------------------------------------------------


def test_files_past_the_cache_are_read_again_each_walk(tmp_path: Path) -> None:
    small, large = tmp_path / "small.py", tmp_path / "large.py"
    small.write_bytes(b"s" * 10)
    large.write_bytes(b"L" * 100)
    files = SourceFiles([small, large], cache_bytes=50)
    small.write_bytes(b"changed")
    large.write_bytes(b"changed too")
    # The small file was kept from the first walk; the large one is read again.
    assert list(files) == [(small, b"s" * 10), (large, b"changed too")]
    assert files.read(large) is not None and files.read(large).data == b"changed too"  # type: ignore[union-attr]


def test_the_cache_holds_up_to_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [tmp_path / f"{i}.py" for i in range(3)]
    for path in paths:
        path.write_bytes(b"x" * 10)
    monkeypatch.setattr(sources, "CACHE_BYTES", 20)  # the default comes from the module
    files = SourceFiles(paths)
    for path in paths:
        path.write_bytes(b"new")
    assert [data for _, data in files] == [b"x" * 10, b"x" * 10, b"new"]
    exact = SourceFiles(paths[:1], cache_bytes=3)  # exactly its size: kept
    paths[0].write_bytes(b"abc")
    assert exact.data(paths[0]) == b"new"


def test_unreadable_files_are_recorded_once_and_left_out(tmp_path: Path) -> None:
    good, gone, directory = tmp_path / "good.py", tmp_path / "gone.py", tmp_path / "dir.py"
    good.write_text("x = 1\n")
    directory.mkdir()
    files = SourceFiles([good, gone, directory])
    assert set(files.failed) == {gone, directory}
    assert files.failed[gone].startswith("cannot read: No such file")
    assert files.failed[directory] == "cannot read: Is a directory"
    gone.write_text("now here\n")  # unreadable at the first walk: stays out
    assert list(files) == [(good, b"x = 1\n")]
    assert len(files) == 1 and files.readable() == [good]
    assert files[0] == (good, b"x = 1\n") and files[-1] == (good, b"x = 1\n")
    assert files[0:5] == [(good, b"x = 1\n")]
    assert files.read(gone) is None and files.data(gone) == b""


def test_a_file_that_disappears_after_the_first_walk_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"y" * 100)
    files = SourceFiles([path], cache_bytes=0)
    path.unlink()
    assert files.data(path) == b""
    assert path in files.failed
