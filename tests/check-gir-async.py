#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
#   check-gir-async.py GIR SCANNER_VERSION
#
# g-ir-scanner 1.80+ pairs every *_async function with its *_finish partner
# itself and writes the pair into the .gir as glib:finish-func, so bindings
# (Vala, GJS, PyGObject) know the asynchronous methods. 1.74 knows neither
# the attribute nor the (finish-func) annotation (it warns on it), so the
# doc comments carry none and this checks that the scanner's guess holds:
# every callable taking a Gio.AsyncReadyCallback names a finish function of
# its own class. Exits 77 (skipped) for scanners before 1.80.

import sys
import xml.etree.ElementTree as ElementTree

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'


def main(gir, scanner_version):
    if tuple(int(part) for part in scanner_version.split('.')[:2]) < (1, 80):
        print(f'1..0 # SKIP g-ir-scanner {scanner_version} writes no glib:finish-func (1.80+)')
        return 0

    checked = 0
    for parent in ElementTree.parse(gir).iter():
        callables = {child.get('name'): child for child in parent
                     if child.tag in (CORE + 'method', CORE + 'function', CORE + 'constructor')}
        for name, callable_ in callables.items():
            types = [param.find(CORE + 'type') for param in callable_.iter(CORE + 'parameter')]
            if not any(t is not None and t.get('name') == 'Gio.AsyncReadyCallback' for t in types):
                continue
            checked += 1
            finish = callable_.get(GLIB + 'finish-func')
            print(f'# {name}: glib:finish-func={finish}')
            assert finish in callables, f'{name} has no glib:finish-func naming a method beside it'
    assert checked > 0, 'no asynchronous method found in the .gir'
    print(f'1..1\nok 1 - {checked} asynchronous methods name their finish function')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
