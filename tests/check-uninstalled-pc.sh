#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-uninstalled-pc.sh BUILD_ROOT EXAMPLE_C: builds EXAMPLE_C the way a
# project next to an uninstalled build would, with only the .pc file in
# BUILD_ROOT/meson-uninstalled, then runs it on a real process.
set -eu
build_root=$1
example=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export PKG_CONFIG_PATH="$build_root/meson-uninstalled"
# shellcheck disable=SC2046
${CC:-cc} -o "$work/watch" "$example" $(pkg-config --cflags --libs gio-procwatch-1.0)

sleep 1 &
target=$!
LD_LIBRARY_PATH="$build_root/gio-procwatch" "$work/watch" "$target" > "$work/out"
grep -qx "$target exited.*" "$work/out"
grep -qx "$target reaped.*" "$work/out"
echo "ok: built against gio-procwatch-1.0-uninstalled.pc and watched $target"
