#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""psutil as a peer of procwatch-bench: for each pid read on stdin, prints
"ready", waits with psutil.wait_procs() and prints time.monotonic_ns() (the
same CLOCK_MONOTONIC as the benchmark) once the process is gone."""
import sys
import time

import psutil

for line in sys.stdin:
    try:
        process = psutil.Process(int(line))
    except psutil.NoSuchProcess:
        print("ready", flush=True)
        print(-1, flush=True)
        continue
    print("ready", flush=True)
    psutil.wait_procs([process], timeout=30)
    print(time.monotonic_ns(), flush=True)
