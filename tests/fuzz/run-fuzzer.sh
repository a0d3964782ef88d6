#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# run-fuzzer.sh FUZZER SEED_CORPUS WORK_DIR: a bounded libFuzzer run
# (PROCWATCH_FUZZ_SECONDS, 60 by default). New inputs and any crash go into
# WORK_DIR, never into the source tree; a finding fails the run.
set -eu
fuzzer=$1 seeds=$2 work=$3
mkdir -p "$work/corpus"
exec "$fuzzer" -max_total_time="${PROCWATCH_FUZZ_SECONDS:-60}" -print_final_stats=1 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/corpus" "$seeds"
