# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Fixtures: a monitor, a recorder of its signals, processes cleaned up after.

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Procwatch  # noqa: E402

from procwatch_testing import Recorder, drain  # noqa: E402


@pytest.fixture
def monitor():
    monitor = Procwatch.ProcessMonitor.new()
    yield monitor
    monitor.run_dispose()
    drain()


@pytest.fixture
def recorder(monitor):
    return Recorder(monitor)


@pytest.fixture
def processes():
    """Makes Child and NonChild processes that are cleaned up after the test."""
    made = []

    def make(kind):
        process = kind()
        made.append(process)
        return process

    yield make
    for process in made:
        process.close()

