#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-abi-baseline.sh ABIDIFF LIBRARY BASELINE...: a program built against
# a released version runs unchanged with LIBRARY. abidiff (abigail-tools)
# compares each BASELINE (abidw's dump of a release's library, kept in
# tests/abi/ by tests/abi/make-baseline.sh) with LIBRARY: any function or
# variable removed, any change of a function's parameters or return type,
# or of a type a public function reaches, fails; functions added since are
# welcome. An empty ABIDIFF (not installed) skips, saying so, unless
# PROCWATCH_TEST_REQUIRE_ALL is set. Prints TAP.
#
# The baseline was dumped with the installed headers, so that the instance
# structs, which only the library's sources define, are bare declarations
# in it and may change. LIBRARY is read without them on purpose: abidiff
# with --headers-dir2 and --drop-private-types drops a function whose
# struct is private from the comparison, and then misses a getter of
# ProcwatchProcess whose guint64 became a guint32 (it says "0 Changed (1
# filtered out)"); read whole, it reports the changed return type.
set -eu
abidiff=$1
library=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "$abidiff" ]; then
  if [ -n "${PROCWATCH_TEST_REQUIRE_ALL:-}" ]; then
    echo "not ok 1 - abidiff is not installed (abigail-tools), and PROCWATCH_TEST_REQUIRE_ALL is set"
    echo "1..1"
    exit 1
  fi
  echo "1..0 # SKIP abidiff is not installed (abigail-tools): the ABI is not compared with the baselines"
  exit 0
fi

# Without debug information abidiff compares symbol names only and passes
# whatever the types did: that is no check.
abidw=$(dirname "$abidiff")/abidw
"$abidw" --drop-undefined-syms "$library" > "$work/library.abi"
if ! grep -q '<function-decl ' "$work/library.abi"; then
  if [ -n "${PROCWATCH_TEST_REQUIRE_ALL:-}" ]; then
    echo "not ok 1 - $library has no debug information (-g), and PROCWATCH_TEST_REQUIRE_ALL is set"
    echo "1..1"
    exit 1
  fi
  echo "1..0 # SKIP $library has no debug information (built without -g): abidiff could compare symbol names only"
  exit 0
fi

tests=0
failures=0
for baseline in "$@"; do
  tests=$((tests + 1))
  version=$(basename "$baseline" .abi)
  version=${version#gio-procwatch-}
  status=0
  "$abidiff" --no-added-syms "$baseline" "$library" > "$work/report" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "ok $tests - nothing of $version removed or changed"
    grep 'changes summary' "$work/report" | sed 's/^/# /'
  else
    failures=$((failures + 1))
    echo "not ok $tests - $version's ABI removed or changed (abidiff exit status $status)"
    sed 's/^/# /' "$work/report"
  fi
  # What was added since (abidiff without --no-added-syms names it).
  "$abidiff" "$baseline" "$library" > "$work/added" 2>&1 || true
  sed -n "s/^  \[A\] 'function [^']*'.*{\(.*\)}$/\1/p" "$work/added" > "$work/added-names"
  echo "# $(wc -l < "$work/added-names") functions added since $version"
done
# ... and the names for the newest baseline, the last.
sed 's/^/#   /' "$work/added-names"

echo "1..$tests"
[ "$failures" -eq 0 ]
