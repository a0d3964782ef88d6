# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""Runs pytest and reports each test as TAP on stdout, so that meson counts
and names them as it does the C tests' subtests. pytest's own report goes to
stderr, where it stays readable in the test log.

Usage: pytest-tap.py PYTEST-ARGUMENTS...
"""

import os
import sys

import pytest


class TapReporter:
    def __init__(self, out):
        self.out = out
        self.number = 0
        self.outcomes = {}

    def emit(self, line):
        self.out.write(line + '\n')
        self.out.flush()

    def pytest_collection_finish(self, session):
        self.emit('TAP version 13')
        self.emit('1..%d' % len(session.items))

    def pytest_runtest_logreport(self, report):
        outcomes = self.outcomes.setdefault(report.nodeid, [])
        if report.failed:
            outcomes.append(('not ok', ''))
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ''
            outcomes.append(('ok', ' # SKIP ' + reason.removeprefix('Skipped: ')))

    def pytest_runtest_logfinish(self, nodeid, location):
        outcomes = self.outcomes.pop(nodeid, [])
        failed = [o for o in outcomes if o[0] == 'not ok']
        verdict, directive = (failed or outcomes or [('ok', '')])[0]
        self.number += 1
        name = nodeid.split('::', 1)[-1].replace('#', '')
        self.emit('%s %d - %s%s' % (verdict, self.number, name, directive))


def main():
    # Everything but TAP, pytest's report included, goes to stderr.
    tap = os.fdopen(os.dup(sys.stdout.fileno()), 'w')
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    status = pytest.main(sys.argv[1:], plugins=[TapReporter(tap)])
    # Failed tests are told in TAP already; anything else (a collection or
    # usage error) fails the run as a whole.
    return 0 if status in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) else int(status)


if __name__ == '__main__':
    sys.exit(main())
