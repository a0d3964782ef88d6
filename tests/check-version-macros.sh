#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-version-macros.sh BUILD_ROOT NM LIBRARY STABLE BASELINE... -- CC
# [CC ARGS...]: compiles programs against the headers of the uninstalled
# build in BUILD_ROOT with the project's compiler, and checks what
# PROCWATCH_VERSION_MIN_REQUIRED and PROCWATCH_VERSION_MAX_ALLOWED make the
# compiler say: a warning for API newer than allowed and for API deprecated
# by the version required, silence otherwise. Also checks that the headers
# export symbols only while the library itself is compiled.
#
# And for every function LIBRARY exports (read with NM), enum and flags
# types' get_type () included: each BASELINE (tests/abi/gio-procwatch-X.Y.abi)
# lists what release X.Y exported, and LIBRARY is release STABLE (1.4 for
# 1.3.x). A function that came with a release warns, "Not available before"
# that release, under PROCWATCH_VERSION_MAX_ALLOWED of the release before;
# the functions of that release before do not warn. So a function missing
# its PROCWATCH_AVAILABLE_IN_ macro, or carrying the wrong one, fails. An
# empty NM skips that part, saying so. Prints TAP.
set -eu
build_root=$1
nm=$2
library=$3
stable=$4
shift 4
baselines=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  baselines="$baselines $1"
  shift
done
if [ $# -eq 0 ]; then
  echo "usage: $0 BUILD_ROOT NM LIBRARY STABLE BASELINE... -- CC [CC ARGS...]" >&2
  exit 2
fi
shift
# The compiler command may be several words (ccache cc); paths with spaces
# are not supported.
cc=$*
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The compiler's messages are matched in English.
export LC_ALL=C

cflags=$(PKG_CONFIG_PATH="$build_root/meson-uninstalled" pkg-config --cflags gio-procwatch-1.0)
old="-DPROCWATCH_VERSION_MIN_REQUIRED=PROCWATCH_VERSION_1_0 -DPROCWATCH_VERSION_MAX_ALLOWED=PROCWATCH_VERSION_1_0"
tests=0
failures=0

# A 1.0, a 1.2 and a 1.4 function, and two declared the way a later release
# will declare what it deprecates in 1.2.
cat > "$work/uses-api.c" <<'PROGRAM'
#include <gio-procwatch/procwatch.h>

PROCWATCH_DEPRECATED_IN_1_2 void old_api (void);
PROCWATCH_DEPRECATED_IN_1_2_FOR (new_api) void older_api (void);

void uses_api (void);

void
uses_api (void)
{
#ifdef USE_1_0
  g_object_unref (procwatch_process_monitor_new ());
#endif
#ifdef USE_1_2
  g_print ("%u\n", procwatch_get_major_version ());
#endif
#ifdef USE_1_4
  g_print ("%d\n", procwatch_process_get_core_dumped (NULL));
  g_print ("%s\n", procwatch_cgroup_get_app_id (NULL));
#endif
#ifdef USE_1_4_TYPE
  g_print ("%s\n", g_type_name (PROCWATCH_TYPE_FEATURES));
#endif
#ifdef USE_DEPRECATED
  old_api ();
  older_api ();
#endif
}
PROGRAM

pass ()
{
  tests=$((tests + 1))
  echo "ok $tests - $1"
}

# fail DESCRIPTION: the compiler's last messages go along as TAP comments.
fail ()
{
  tests=$((tests + 1))
  failures=$((failures + 1))
  echo "not ok $tests - $1"
  tail -n 20 "$work/out" | sed 's/^/# /'
}

# compile FLAGS: compiles uses-api.c, the compiler's messages into out.
compile ()
{
  # shellcheck disable=SC2086
  $cc $cflags -Wall -Wextra $1 -c -o "$work/uses-api.o" "$work/uses-api.c" > "$work/out" 2>&1
}

# check NAME PATTERN FLAGS: with an empty PATTERN the compiler must be
# silent, otherwise one of its messages must match PATTERN.
check ()
{
  if ! compile "$3"; then
    fail "$1: does not compile"
  elif [ -z "$2" ] && [ -s "$work/out" ]; then
    fail "$1: the compiler warns"
  elif [ -n "$2" ] && ! grep -q -- "$2" "$work/out"; then
    fail "$1: no message matching \"$2\""
  elif [ -n "$2" ]; then
    pass "$1: $(grep -m1 -- "$2" "$work/out" | sed 's/^[^ ]* //')"
  else
    pass "$1: no warning"
  fi
}

check "1.2 API, default bounds" "" "-DUSE_1_0 -DUSE_1_2"
check "1.2 API, MAX_ALLOWED 1.0" \
  "procwatch_get_major_version.*Not available before 1.2" "$old -DUSE_1_2"
check "1.0 API, MAX_ALLOWED 1.0" "" "$old -DUSE_1_0"
check "1.4 API, default bounds" "" "-DUSE_1_0 -DUSE_1_2 -DUSE_1_4"
check "1.4 API, MAX_ALLOWED 1.2" \
  "procwatch_process_get_core_dumped.*Not available before 1.4" \
  "-DPROCWATCH_VERSION_MIN_REQUIRED=PROCWATCH_VERSION_1_2 -DPROCWATCH_VERSION_MAX_ALLOWED=PROCWATCH_VERSION_1_2 -DUSE_1_4"
check "1.4 flags type, default bounds" "" "-DUSE_1_4_TYPE"
check "1.4 flags type, MAX_ALLOWED 1.2" \
  "procwatch_features_get_type.*Not available before 1.4" \
  "-DPROCWATCH_VERSION_MIN_REQUIRED=PROCWATCH_VERSION_1_2 -DPROCWATCH_VERSION_MAX_ALLOWED=PROCWATCH_VERSION_1_2 -DUSE_1_4_TYPE"
check "API deprecated in 1.2, default bounds" "old_api.*deprecated" "-DUSE_DEPRECATED"
check "API deprecated in 1.2 for another, default bounds" \
  "older_api.*Use 'new_api' instead" "-DUSE_DEPRECATED"
check "API deprecated in 1.2, MIN_REQUIRED 1.0" "" "$old -DUSE_DEPRECATED"
check "PROCWATCH_DISABLE_DEPRECATION_WARNINGS" "" \
  "$old -DUSE_1_2 -DUSE_DEPRECATED -DPROCWATCH_DISABLE_DEPRECATION_WARNINGS"

if compile "-DPROCWATCH_VERSION_MIN_REQUIRED=PROCWATCH_VERSION_1_2 -DPROCWATCH_VERSION_MAX_ALLOWED=PROCWATCH_VERSION_1_0"; then
  fail "MAX_ALLOWED older than MIN_REQUIRED: compiles"
elif grep -q "PROCWATCH_VERSION_MAX_ALLOWED must not be older" "$work/out"; then
  pass "MAX_ALLOWED older than MIN_REQUIRED: refused"
else
  fail "MAX_ALLOWED older than MIN_REQUIRED: fails for another reason"
fi

# exported NAME EXPECTED FLAGS: whether a public declaration, preprocessed
# with FLAGS, carries the visibility attribute (EXPECTED: yes or no).
exported ()
{
  # shellcheck disable=SC2086
  if ! $cc $cflags $3 -E -P -o "$work/pre.c" "$work/uses-api.c" > "$work/out" 2>&1; then
    fail "$1: does not preprocess"
    return
  fi
  if tr -s ' \n\t' '   ' < "$work/pre.c" |
      grep -q -F 'visibility ("default"))) extern guint procwatch_get_major_version'; then
    found=yes
  else
    found=no
  fi
  if [ "$found" = "$2" ]; then
    pass "$1"
  else
    fail "$1: visibility attribute found: $found"
  fi
}

exported "an application's declarations are plain extern" no ""
exported "the library's own declarations are exported" yes "-DPROCWATCH_COMPILATION"

# symbols BASELINE: the function symbols of a baseline dump.
symbols ()
{
  sed -n "s/^ *<elf-symbol name='\([^']*\)' type='func-type'.*/\1/p" "$1" | sort -u
}

# uses_each SYMBOLS: a program that refers to each function of SYMBOLS.
uses_each ()
{
  {
    echo '#include <gio-procwatch/procwatch.h>'
    echo 'void uses_each (void);'
    echo 'void uses_each (void) {'
    sed 's/.*/  (void) \&&;/' "$1"
    echo '}'
  } > "$work/uses-each.c"
}

# availability LIST RELEASE PREVIOUS: under MAX_ALLOWED PREVIOUS, each
# function of LIST must warn that it is not available before RELEASE, and
# those of PREVIOUS's baseline must be silent.
availability ()
{
  # MIN_REQUIRED 1.0: no deprecation warnings, only availability.
  max="-DPROCWATCH_VERSION_MIN_REQUIRED=PROCWATCH_VERSION_1_0"
  max="$max -DPROCWATCH_VERSION_MAX_ALLOWED=PROCWATCH_VERSION_$(echo "$3" | tr . _)"
  uses_each "$1"
  # shellcheck disable=SC2086
  if ! $cc $cflags -Wall -Wextra $max -c -o "$work/uses-each.o" "$work/uses-each.c" \
      > "$work/out" 2>&1; then
    fail "$2's functions under MAX_ALLOWED $3: do not compile"
    return
  fi
  missing=
  while read -r symbol; do
    grep -q -- "'$symbol' is deprecated: Not available before $2" "$work/out" ||
      missing="$missing $symbol"
  done < "$1"
  if [ -z "$missing" ]; then
    pass "each of the $(wc -l < "$1") functions added in $2 warns under MAX_ALLOWED $3"
  else
    # fail () shows the end of out: the names, not the compiler's words.
    echo "without it:$missing" | fold -s -w 90 > "$work/out"
    fail "functions added in $2 without PROCWATCH_AVAILABLE_IN_$(echo "$2" | tr . _)"
  fi

  uses_each "$work/previous"
  # shellcheck disable=SC2086
  if $cc $cflags -Wall -Wextra $max -c -o "$work/uses-each.o" "$work/uses-each.c" \
      > "$work/out" 2>&1 && ! [ -s "$work/out" ]; then
    pass "the $(wc -l < "$work/previous") functions of $3 are silent under MAX_ALLOWED $3"
  else
    sed -n "s/.*'\([a-z0-9_]*\)' is deprecated: \(.*\) \[-W.*/\1: \2/p" "$work/out" > "$work/warned"
    [ -s "$work/warned" ] && mv "$work/warned" "$work/out"
    fail "functions of $3 warn under MAX_ALLOWED $3"
  fi
}

if [ -z "$nm" ]; then
  tests=$((tests + 1))
  echo "ok $tests # SKIP no nm: each function's availability is not checked"
else
  "$nm" -D --defined-only "$library" | awk '$NF ~ /^procwatch_/ { print $NF }' | sort -u > "$work/exported"
  # Each release is compared with the one before; the last with LIBRARY.
  previous=
  for baseline in $baselines $library; do
    if [ "$baseline" = "$library" ]; then
      release=$stable
      cp "$work/exported" "$work/release"
    else
      release=$(basename "$baseline" .abi)
      release=${release#gio-procwatch-}
      symbols "$baseline" > "$work/release"
    fi
    if [ -n "$previous" ]; then
      comm -23 "$work/release" "$work/previous" > "$work/added"
      availability "$work/added" "$release" "$previous"
    fi
    previous=$release
    cp "$work/release" "$work/previous"
  done
fi

echo "1..$tests"
[ "$failures" -eq 0 ]
