# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Process tokens: Process.dup_file_handle() gives bytes (GLib.Bytes, as a
# D-Bus "ay" would carry them) that ProcessMonitor.watch_file_handle()
# turns back into the process, and into nothing once it is reaped.

import os
import struct

import pytest
from gi.repository import Gio, GLib, Procwatch

from procwatch_testing import (
    Child, NonChild, assert_io_error, pidfd_open_or_skip, pidfd_refused_errno, pidfs_inode)


def token_of(monitor, pid):
    """A token of @pid, watched through a pidfd, which every backend holds."""
    pidfd = pidfd_open_or_skip(pid, 'to watch by, and so to have a token of')
    try:
        process = monitor.watch_pidfd(pidfd)
    finally:
        os.close(pidfd)
    if not monitor.get_features() & Procwatch.Features.FILE_HANDLES \
            and monitor.get_backend() == 'pidfd':
        with pytest.raises(GLib.Error) as excinfo:
            process.dup_file_handle()
        assert_io_error(excinfo, Gio.IOErrorEnum.NOT_SUPPORTED)
        pytest.skip('no pidfs file handles here')
    return process, process.dup_file_handle()


@pytest.mark.parametrize('kind', [Child, NonChild], ids=['child', 'non-child'])
def test_file_handle_round_trip(monitor, recorder, processes, kind):
    target = processes(kind)
    process, token = token_of(monitor, target.pid)
    assert isinstance(token, GLib.Bytes)
    assert len(token.get_data()) == 40

    # As D-Bus would carry it: plain bytes, into a new GLib.Bytes.
    carried = GLib.Bytes.new(bytes(token.get_data()))
    assert monitor.watch_file_handle(carried) is process
    other = Procwatch.ProcessMonitor.new()
    elsewhere = other.watch_file_handle(carried)
    assert elsewhere is not process
    assert elsewhere.get_pid() == target.pid
    assert elsewhere.get_inode() == process.get_inode()
    other.close()

    target.exit(0)
    recorder.wait_for(target.pid, 'exited')
    target.reap()
    recorder.wait_for(target.pid, 'reaped')
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_file_handle(carried)
    assert_io_error(excinfo, Gio.IOErrorEnum.NOT_FOUND)


def token_by_hand(inode):
    """A token as the format says: "PWFH", version 1, the handle type (254,
    pidfs's), this boot's id, the handle's length (8) and pidfs's 8 bytes,
    the inode @inode. Needs no kernel with file handles."""
    with open('/proc/sys/kernel/random/boot_id') as file:
        boot_id = bytes.fromhex(file.read().strip().replace('-', ''))
    assert len(boot_id) == 16
    return GLib.Bytes.new(b'PWFH' + struct.pack('<II', 1, 254) + boot_id
                          + struct.pack('<IQ', 8, inode))


def test_file_handle_invalid_bytes(monitor):
    """Bytes that are no token: INVALID_ARGUMENT; a token of another boot:
    NOT_FOUND. The library's own token of the test process where it can
    give one, else, where this process may not open the pidfd to watch it
    by, one made by hand, so that the parser runs there too."""
    if pidfd_refused_errno():
        token = token_by_hand(1)
    else:
        _, token = token_of(monitor, os.getpid())
        assert token.get_data() == token_by_hand(pidfs_inode(os.getpid())).get_data()
    data = token.get_data()
    for bad in [b'', data[:-1], data + b'\0', b'\0' * len(data), b'PWFH' + b'\xff' * 36]:
        with pytest.raises(GLib.Error) as excinfo:
            monitor.watch_file_handle(GLib.Bytes.new(bad))
        assert_io_error(excinfo, Gio.IOErrorEnum.INVALID_ARGUMENT)

    # Another boot: the first byte of the boot id changed.
    other_boot = bytearray(data)
    other_boot[12] ^= 1
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_file_handle(GLib.Bytes.new(bytes(other_boot)))
    assert_io_error(excinfo, Gio.IOErrorEnum.NOT_FOUND)
