# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Fixtures: a monitor, a recorder of its signals, processes cleaned up after.

import asyncio

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Procwatch  # noqa: E402

from procwatch_testing import TIMEOUT_SECONDS, Recorder, drain  # noqa: E402


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


@pytest.fixture
def run():
    """Runs a coroutine to its end on the event loop of GLib's default main
    context, the monitor's; fails it after a deadline instead of hanging.
    (Not asyncio.run(): that makes a loop of a new main context.)"""
    from gi.events import GLibEventLoopPolicy

    policy = GLibEventLoopPolicy()
    asyncio.set_event_loop_policy(policy)
    loop = policy.get_event_loop()

    def run_until_complete(coroutine):
        # Stopping the loop fails run_until_complete() with "Event loop
        # stopped before Future completed"; no cancel of what is awaited.
        deadline = loop.call_later(TIMEOUT_SECONDS, loop.stop)
        try:
            return loop.run_until_complete(coroutine)
        finally:
            deadline.cancel()

    try:
        yield run_until_complete
    finally:
        loop.close()
        asyncio.set_event_loop_policy(None)
