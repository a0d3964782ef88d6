#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
#   tests/abi/make-baseline.sh COMMIT VERSION
#
# Makes the baselines the abi suite compares the build with, from the
# release VERSION (1.2) at COMMIT: builds COMMIT's library and .gir in a
# temporary worktree and writes, beside this script,
#   gio-procwatch-VERSION.abi    abidw's dump of the library (abigail-tools)
#   Procwatch-1.0-VERSION.gir    its .gir without documentation
# A release adds its own with this script (RELEASING in CONTRIBUTING.md);
# run it on Debian 12, as CI's baselines were made.
#
# The dump describes the types through the installed headers
# (--headers-dir): a struct only the library's sources define (every
# instance struct: G_DECLARE_FINAL_TYPE) is kept as a bare declaration, so
# the library may change it; every type a public function takes or returns
# is kept whole. The library being compared is then read without headers
# (tests/check-abi-baseline.sh says why).
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 COMMIT VERSION" >&2
  exit 2
fi
commit=$1
version=$2
here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
cleanup ()
{
  git -C "$source_root" worktree remove --force "$work/src" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$source_root" worktree add --detach "$work/src" "$commit" >/dev/null
grep -q "version: '$version\\.0'" "$work/src/meson.build" || {
  echo "$commit is not version $version.0 (its meson.build):" >&2
  grep -m1 "version: '" "$work/src/meson.build" >&2
  exit 1
}
# The default buildtype (debugoptimized) gives the debug information abidw reads.
meson setup "$work/build" "$work/src" --prefix="$work/prefix" --libdir=lib \
  -Dtests=false -Dintrospection=enabled >"$work/setup.log" 2>&1 || {
  tail -n 20 "$work/setup.log" >&2
  exit 1
}
meson install -C "$work/build" >"$work/install.log" 2>&1 || {
  tail -n 20 "$work/install.log" >&2
  exit 1
}

library=$(readlink -f "$work/prefix/lib/libgio-procwatch-1.0.so.0")
abidw --no-corpus-path --no-comp-dir-path --short-locs --drop-private-types \
  --drop-undefined-syms --headers-dir "$work/prefix/include/gio-procwatch-1.0" \
  --out-file "$here/gio-procwatch-$version.abi" "$library"
/usr/bin/python3 "$source_root/tests/check-gir-compat.py" --strip \
  "$work/prefix/share/gir-1.0/Procwatch-1.0.gir" "$here/Procwatch-1.0-$version.gir"

functions=$(grep -c '<elf-symbol ' "$here/gio-procwatch-$version.abi")
echo "gio-procwatch-$version.abi: $functions symbols, from $(git -C "$source_root" rev-parse --short "$commit")"
echo "Procwatch-1.0-$version.gir"
