#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-version-macros.sh BUILD_ROOT CC [CC ARGS...]: compiles a program
# against the headers of the uninstalled build in BUILD_ROOT with the
# project's compiler, and checks what PROCWATCH_VERSION_MIN_REQUIRED and
# PROCWATCH_VERSION_MAX_ALLOWED make the compiler say: a warning for API
# newer than allowed and for API deprecated by the version required, silence
# otherwise. Also checks that the headers export symbols only while the
# library itself is compiled. Prints TAP.
set -eu
build_root=$1
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

echo "1..$tests"
[ "$failures" -eq 0 ]
