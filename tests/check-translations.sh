#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# check-translations.sh SOURCE-ROOT MSGFMT: po/POTFILES.in names every
# source file with a translatable message (so that xgettext, run by the
# gio-procwatch-1.0-pot target, sees them all) and only files that exist,
# and every language in po/LINGUAS has a catalogue that msgfmt --check
# accepts (format directives matching the English, as the build's msgfmt
# does not check). Prints TAP.
set -eu
root=$1
msgfmt=$2
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tests=0
failed=0
result() {
  tests=$((tests + 1))
  if [ "$1" = ok ]; then
    echo "ok $tests - $2"
  else
    echo "not ok $tests - $2"
    failed=1
  fi
}

grep -v -e '^#' -e '^[[:space:]]*$' po/POTFILES.in > "$work/listed"

# _("...") and N_("..."), the keywords the sources use; a call split
# before its string ("_ (" or "_(\n") is not GNU style and not looked for.
grep -l -E '(^|[^A-Za-z0-9_])N?_\("' gio-procwatch/*.c gio-procwatch/*.h tools/*.c tools/*.h \
  > "$work/using" || true

while read -r file; do
  if grep -qxF "$file" "$work/listed"; then
    result ok "$file is in po/POTFILES.in"
  else
    result fail "$file has translatable messages but is not in po/POTFILES.in"
  fi
done < "$work/using"

while read -r file; do
  if [ -f "$file" ]; then
    result ok "po/POTFILES.in: $file exists"
  else
    result fail "po/POTFILES.in names $file, which does not exist"
  fi
done < "$work/listed"

for lang in $(grep -v '^#' po/LINGUAS); do
  if "$msgfmt" --check -o /dev/null "po/$lang.po" 2> "$work/msgfmt"; then
    result ok "po/$lang.po passes msgfmt --check"
  else
    sed 's/^/# /' "$work/msgfmt"
    result fail "po/$lang.po fails msgfmt --check"
  fi
done

echo "1..$tests"
exit "$failed"
