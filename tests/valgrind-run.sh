#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# valgrind-run.sh PROGRAM [ARGS...]: PROGRAM under memcheck, failing on any
# report. The test program itself fails on any error, leaks included. Its
# forked helper processes (targets that exit with a chosen status) fail only
# on memory errors: they _exit() from deep inside a helper, where memcheck
# takes what only the parent's other threads pointed to for a leak, and an
# exit status changed by --error-exitcode would break the test itself.
set -u
logs=$(mktemp -d)
srcdir=$(dirname "$0")

valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
  --errors-for-leak-kinds=definite --num-callers=30 --log-file="$logs/%p" \
  --suppressions=/usr/share/glib-2.0/valgrind/glib.supp \
  --suppressions="$srcdir/valgrind.supp" "$@" &
main=$!
wait "$main"
status=$?

for log in "$logs"/*; do
  [ -e "$log" ] || continue
  if [ "$(basename "$log")" = "$main" ]; then
    bad=$(grep -E "ERROR SUMMARY: [1-9]" "$log")
  else
    bad=$(grep -E "Invalid (read|write|free)|uninitialised|Conditional jump|Syscall param|Mismatched free|overlap|Source and destination" "$log")
  fi
  if [ -n "$bad" ]; then
    echo "valgrind-run.sh: memcheck reported errors in process $(basename "$log"):" >&2
    cat "$log" >&2
    [ "$status" -ne 0 ] || status=1
  fi
done

rm -rf "$logs"
exit "$status"
