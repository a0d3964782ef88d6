#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
#   check-gir-names.py GIR [GIRDIR...]
#
# GJS puts a GObject property on the object under its name with '-' made
# '_', beside the methods: a property named like a method hides it there
# (1.2's has-status property made 1.0's process.has_status() a boolean).
# For every class and interface of GIR this fails on a property whose name
# so spelt equals a method or virtual method name of the same object, its
# ancestors or the interfaces it implements, and names each collision. The
# ancestors and interfaces from other namespaces (GObject, Gio) are read
# from their .gir files in GIRDIR (and the XDG data directories); one that
# is not found fails the check, which could not be complete without it.
# Prints TAP.

import os
import sys
import xml.etree.ElementTree as ElementTree

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'


class Repository:
    """The types of a .gir and of the .gir files it includes, by full name."""

    def __init__(self, girdirs):
        self.girdirs = girdirs
        self.types = {}
        self.loaded = set()

    def load(self, path):
        root = ElementTree.parse(path).getroot()
        namespace = root.find(CORE + 'namespace')
        name = namespace.get('name')
        self.loaded.add(f"{name}-{namespace.get('version')}")
        for include in root.findall(CORE + 'include'):
            self.load_included(include.get('name'), include.get('version'))
        for element in namespace:
            if element.tag in (CORE + 'class', CORE + 'interface'):
                self.types[f"{name}.{element.get('name')}"] = element
        return name

    def load_included(self, name, version):
        key = f'{name}-{version}'
        if key in self.loaded:
            return
        for girdir in self.girdirs:
            path = os.path.join(girdir, key + '.gir')
            if os.path.exists(path):
                self.load(path)
                return
        raise FileNotFoundError(f'{key}.gir not found in {", ".join(self.girdirs)}')

    def lookup(self, name, namespace):
        return self.types.get(name if '.' in name else f'{namespace}.{name}')


def members(repository, full_name, seen=None):
    """The property names, and the method and virtual method names, that a
    GJS object of type @full_name has, with the type declaring each."""
    seen = set() if seen is None else seen
    properties, methods = {}, {}
    element = repository.lookup(full_name, None)
    if element is None or full_name in seen:
        return properties, methods
    seen.add(full_name)
    namespace = full_name.split('.')[0]

    related = [element.get('parent')] if element.get('parent') else []
    related += [child.get('name') for child in element
                if child.tag in (CORE + 'implements', CORE + 'prerequisite')]
    for name in related:
        other = name if '.' in name else f'{namespace}.{name}'
        if repository.lookup(other, None) is None:
            raise LookupError(f'{full_name}: {other} is in no .gir read')
        more_properties, more_methods = members(repository, other, seen)
        properties.update(more_properties)
        methods.update(more_methods)

    for child in element:
        if child.tag == CORE + 'property':
            properties[child.get('name').replace('-', '_')] = (full_name, child.get('name'))
        elif child.tag == CORE + 'method':
            methods[child.get('name')] = (full_name, child.get('name') + '()')
        elif child.tag == CORE + 'virtual-method':
            methods[child.get('name')] = (full_name, 'vfunc ' + child.get('name'))
    return properties, methods


def main(gir, girdirs):
    girdirs = [girdir for girdir in girdirs if girdir]
    for data_dir in os.environ.get('XDG_DATA_DIRS', '/usr/local/share:/usr/share').split(':'):
        if data_dir:
            girdirs.append(os.path.join(data_dir, 'gir-1.0'))
    repository = Repository(girdirs)
    namespace = repository.load(gir)

    ours = sorted(name for name in repository.types if name.startswith(namespace + '.'))
    assert ours, f'no class or interface in {gir}'
    print(f'1..{len(ours)}')
    failures = 0
    for number, full_name in enumerate(ours, 1):
        properties, methods = members(repository, full_name)
        collisions = []
        for spelt, (property_owner, property_name) in sorted(properties.items()):
            if spelt not in methods:
                continue
            method_owner, method_name = methods[spelt]
            # One from another namespace on each side is not ours to fix.
            if not (property_owner.startswith(namespace + '.') or
                    method_owner.startswith(namespace + '.')):
                continue
            collisions.append(f'property {property_owner}:{property_name} hides '
                              f'{method_owner}.{method_name} in GJS')
        if collisions:
            failures += 1
            print(f'not ok {number} - {full_name}: {len(collisions)} collision(s)')
            for collision in collisions:
                print(f'# {collision}')
        else:
            print(f'ok {number} - {full_name}: {len(properties)} properties, '
                  f'{len(methods)} methods and virtual methods, no name shared')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2:]))
