"""The folder of the device locks (issue 42, part 5): in the user's home, which no other account
can create; a folder another account made, a symbolic link or one with wrong modes never blocks
this account. Folders of another account are made by chown, so those tests run as root."""

from __future__ import annotations

import os
import pwd
import tempfile

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_lock as device_lock
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import LockError

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making another account's folder needs root (chown)")


def other_account():
    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        return 65534


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A home of this user's and a sticky temporary directory like /tmp; returns (the lock
    folder in the home, the one in the temporary directory)."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(mode=0o700)
    tmp.mkdir()
    tmp.chmod(0o1777)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return home / ".ansible" / "broadcast.monitoring-locks", tmp / ("broadcast.monitoring-locks-%d" % os.getuid())


def foreign(path, mode=0o700):
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    os.chown(path, other_account(), -1)


def locks_in(folder):
    with device_lock.device_lock("ts-1:80", 0, "the test") as path:
        assert os.path.dirname(path) == str(folder)
        assert os.stat(folder).st_mode & 0o777 == 0o700 and os.stat(folder).st_uid == os.getuid()


def test_the_locks_are_in_the_users_home_made_private(places):
    home_folder, tmp_folder = places
    locks_in(home_folder)
    assert not tmp_folder.exists()


@as_root
def test_a_folder_another_account_made_in_the_temporary_directory_is_not_used(places):
    """The old place, $TMPDIR/broadcast.monitoring-locks-<uid>, taken first by another account
    (which this one cannot remove from a sticky /tmp): the locks are in the home, untouched by it."""
    home_folder, tmp_folder = places
    foreign(tmp_folder, 0o777)
    locks_in(home_folder)
    assert list(tmp_folder.iterdir()) == []


def test_a_folder_of_this_users_with_wider_modes_is_narrowed(places):
    home_folder = places[0]
    home_folder.mkdir(parents=True)
    home_folder.chmod(0o777)
    locks_in(home_folder)


@as_root
def test_a_lock_folder_of_another_account_in_the_home_is_passed_over(places):
    home_folder, tmp_folder = places
    foreign(home_folder)
    locks_in(tmp_folder)
    assert list(home_folder.iterdir()) == []


@as_root
def test_a_dot_ansible_of_another_account_is_passed_over(places):
    """Another account's ~/.ansible could move the lock folder away: not used."""
    home_folder, tmp_folder = places
    foreign(home_folder.parent, 0o755)
    locks_in(tmp_folder)
    assert not home_folder.exists()


def test_a_symbolic_link_is_never_followed(places, tmp_path):
    home_folder, tmp_folder = places
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    home_folder.parent.mkdir(mode=0o700)
    home_folder.symlink_to(elsewhere)
    locks_in(tmp_folder)
    assert list(elsewhere.iterdir()) == []


def test_a_home_that_cannot_be_used_falls_back_to_the_temporary_directory(places, monkeypatch, tmp_path):
    tmp_folder = places[1]
    monkeypatch.setenv("HOME", str(tmp_path / "no" / "such" / "home"))
    locks_in(tmp_folder)


@as_root
def test_when_no_place_is_this_users_the_message_names_them_and_nothing_is_locked(places):
    home_folder, tmp_folder = places
    foreign(home_folder)
    foreign(tmp_folder)
    with pytest.raises(LockError) as failure:
        device_lock.lock_file("ts-1:80")
    message = str(failure.value)
    assert str(home_folder) in message and str(tmp_folder) in message and "nothing was sent" in message


def test_a_dot_ansible_that_is_a_link_of_this_users_is_followed(places, tmp_path):
    """~/.ansible kept elsewhere (dotfiles): only this user can have made the link in its home."""
    home_folder, tmp_folder = places
    kept = tmp_path / "dotfiles-ansible"
    kept.mkdir(mode=0o700)
    home_folder.parent.symlink_to(kept)
    locks_in(home_folder)
    assert (kept / "broadcast.monitoring-locks").is_dir() and not tmp_folder.exists()
