# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The run-time version getters, the only version a binding can see.

import os

import gi

gi.require_version('Procwatch', '1.0')
from gi.repository import Procwatch  # noqa: E402


def runtime_version():
    return (Procwatch.get_major_version(),
            Procwatch.get_minor_version(),
            Procwatch.get_micro_version())


def test_getters_return_the_project_version():
    expected = tuple(int(part) for part in os.environ['PROCWATCH_TEST_PROJECT_VERSION'].split('.'))
    assert runtime_version() == expected


def test_getters_agree_with_the_typelib_constants():
    assert runtime_version() == (Procwatch.MAJOR_VERSION,
                                 Procwatch.MINOR_VERSION,
                                 Procwatch.MICRO_VERSION)
    assert '%d.%d.%d' % runtime_version() == Procwatch.VERSION_S
