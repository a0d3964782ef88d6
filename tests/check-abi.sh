#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-abi.sh NM LIBRARY: the shared library still exports every symbol a
# released version exported, and nothing outside the procwatch_ prefix.
# Symbols added since are welcome; a release adds them to the list below.
# Prints TAP.
set -eu
nm=$1
library=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Exported by 1.0 (nm -D --defined-only of 1.0.0).
cat > "$work/expected" <<'SYMBOLS'
procwatch_process_get_exit_status
procwatch_process_get_if_exited
procwatch_process_get_if_signaled
procwatch_process_get_pid
procwatch_process_get_state
procwatch_process_get_status
procwatch_process_get_term_sig
procwatch_process_get_type
procwatch_process_has_status
procwatch_process_monitor_get_backend
procwatch_process_monitor_get_type
procwatch_process_monitor_new
procwatch_process_monitor_unwatch
procwatch_process_monitor_wait_async
procwatch_process_monitor_wait_finish
procwatch_process_monitor_watch_pid
procwatch_process_monitor_watch_pidfd
procwatch_process_state_get_type
SYMBOLS
# Added in 1.2.
cat >> "$work/expected" <<'SYMBOLS'
procwatch_get_major_version
procwatch_get_micro_version
procwatch_get_minor_version
procwatch_process_monitor_close
procwatch_process_dup_pidfd
procwatch_process_get_inode
procwatch_process_get_name
procwatch_process_monitor_lookup
procwatch_process_monitor_unwatch_process
procwatch_process_monitor_watch_pid_inode
procwatch_process_send_signal
procwatch_process_wait_async
procwatch_process_wait_finish
procwatch_process_monitor_watch_dbus_sender_async
procwatch_process_monitor_watch_dbus_sender_finish
procwatch_cgroup_get_path
procwatch_cgroup_get_populated
procwatch_cgroup_get_type
procwatch_cgroup_wait_empty_async
procwatch_cgroup_wait_empty_finish
procwatch_process_get_cgroup
procwatch_process_monitor_unwatch_cgroup
procwatch_process_monitor_watch_cgroup
SYMBOLS
# Added in 1.4.
cat >> "$work/expected" <<'SYMBOLS'
procwatch_cgroup_find_app_instances
procwatch_cgroup_get_app_id
procwatch_cgroup_send_signal_async
procwatch_cgroup_send_signal_finish
procwatch_features_get_type
procwatch_process_dup_file_handle
procwatch_process_get_core_dumped
procwatch_process_monitor_get_features
procwatch_process_monitor_watch_file_handle
SYMBOLS

"$nm" -D --defined-only "$library" | awk '{ print $NF }' | sort -u > "$work/exported"

tests=0
failures=0
while read -r symbol; do
  tests=$((tests + 1))
  if grep -qx -- "$symbol" "$work/exported"; then
    echo "ok $tests - exports $symbol"
  else
    echo "not ok $tests - exports $symbol"
    failures=$((failures + 1))
  fi
done < "$work/expected"

tests=$((tests + 1))
outside=$(grep -v '^procwatch_' "$work/exported" || true)
if [ -z "$outside" ]; then
  echo "ok $tests - every exported symbol starts with procwatch_"
else
  echo "not ok $tests - symbols exported outside the procwatch_ prefix"
  echo "$outside" | sed 's/^/# /'
  failures=$((failures + 1))
fi

# New symbols are not a failure, but worth seeing in the log.
sort "$work/expected" | comm -13 - "$work/exported" | sed 's/^/# also exported: /'

echo "1..$tests"
[ "$failures" -eq 0 ]
