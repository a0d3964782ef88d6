#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
#   check-gir-compat.py GIR SINCE BASELINE...
#   check-gir-compat.py --strip GIR OUTPUT
#
# Python, GJS and Vala programs see the API through the .gir: what a
# released version's .gir (each BASELINE, tests/abi/Procwatch-1.0-X.Y.gir)
# has, GIR must still have, the same. Nothing removed or renamed: classes,
# records, enums and flags and their members and values, functions,
# methods, constructors, virtual methods, properties, signals, fields,
# constants; nothing changed in a call: the parameters in order with their
# names, types, direction and ownership, the return type and its ownership,
# "throws". A parameter may become nullable, a return value stop being
# nullable, a property become writable: programs written for the baseline
# still work. Additions are welcome; each function, method, constructor,
# property, signal and type added since the newest BASELINE must say when
# it came: "Since: SINCE" (the release in progress) or later. Constants'
# values are not compared: the version constants change with every
# release. Prints TAP: per BASELINE, one test per type or function of it;
# one for the additions.
#
# --strip writes GIR without its documentation and source positions (what
# this check does not read), the form kept in tests/abi/.

import sys
import xml.etree.ElementTree as ElementTree

NAMESPACES = {
    '': 'http://www.gtk.org/introspection/core/1.0',
    'c': 'http://www.gtk.org/introspection/c/1.0',
    'glib': 'http://www.gtk.org/introspection/glib/1.0',
}
CORE = '{%s}' % NAMESPACES['']
C = '{%s}' % NAMESPACES['c']
GLIB = '{%s}' % NAMESPACES['glib']

# What --strip drops.
DOCUMENTATION = {CORE + tag for tag in ('doc', 'doc-deprecated', 'doc-version',
                                        'doc-stability', 'source-position')}

# The elements compared, by tag: the attributes that must stay the same.
# Elements with a name are matched by name; the others (parameters, types)
# by their position among their siblings of the same tag.
COMPARED = {
    CORE + 'class': ('parent', 'abstract', C + 'type', GLIB + 'type-name', GLIB + 'get-type'),
    CORE + 'interface': (C + 'type', GLIB + 'type-name', GLIB + 'get-type'),
    CORE + 'record': (C + 'type', GLIB + 'type-name', GLIB + 'get-type', 'disguised', 'opaque'),
    CORE + 'union': (C + 'type', GLIB + 'type-name', GLIB + 'get-type'),
    CORE + 'enumeration': (C + 'type', GLIB + 'type-name', GLIB + 'get-type'),
    CORE + 'bitfield': (C + 'type', GLIB + 'type-name', GLIB + 'get-type'),
    CORE + 'member': ('value', C + 'identifier'),
    CORE + 'alias': (C + 'type',),
    CORE + 'callback': ('throws',),
    CORE + 'constant': (),
    CORE + 'function-macro': (),
    CORE + 'function': (C + 'identifier', 'throws'),
    CORE + 'method': (C + 'identifier', 'throws'),
    CORE + 'constructor': (C + 'identifier', 'throws'),
    CORE + 'virtual-method': ('throws',),
    CORE + 'implements': (),
    CORE + 'prerequisite': (),
    CORE + 'property': ('readable', 'writable', 'construct', 'construct-only',
                        'transfer-ownership'),
    GLIB + 'signal': ('detailed', 'action', 'no-recurse'),
    CORE + 'field': ('readable', 'writable', 'private', 'bits'),
    CORE + 'parameters': (),
    CORE + 'parameter': ('name', 'direction', 'transfer-ownership', 'nullable', 'allow-none',
                         'optional', 'caller-allocates', 'scope', 'closure', 'destroy'),
    CORE + 'instance-parameter': ('direction', 'transfer-ownership'),
    CORE + 'return-value': ('transfer-ownership', 'nullable'),
    CORE + 'varargs': (),
    CORE + 'type': ('name',),
    CORE + 'array': ('name', 'zero-terminated', 'fixed-size', 'length'),
}
POSITIONAL = {CORE + tag for tag in ('parameters', 'parameter', 'instance-parameter',
                                     'return-value', 'varargs', 'type', 'array')}

# Changes that keep programs written for the baseline working, as
# (tag, attribute): {(old value, new value), ...}; None is "not given".
WIDENINGS = {
    (CORE + 'parameter', 'nullable'): {(None, '1'), ('0', '1')},
    (CORE + 'parameter', 'allow-none'): {(None, '1'), ('0', '1')},
    (CORE + 'parameter', 'optional'): {(None, '1'), ('0', '1')},
    (CORE + 'return-value', 'nullable'): {('1', None), ('1', '0')},
    (CORE + 'property', 'writable'): {(None, '1'), ('0', '1')},
    (CORE + 'property', 'construct-only'): {('1', None), ('1', '0')},
    (CORE + 'property', 'readable'): {('0', None), ('0', '1')},
}

# The additions that must carry a version ("Since:" in the doc comment).
VERSIONED = {CORE + tag for tag in ('class', 'interface', 'record', 'union', 'enumeration',
                                    'bitfield', 'function', 'method', 'constructor',
                                    'property')} | {GLIB + 'signal'}
# ... but not these: the scanner makes them up beside a type.
UNVERSIONED_RECORDS = ('Class', 'Interface', 'Iface', 'Private')


def local(tag):
    return tag.rsplit('}', 1)[-1]


def entries(element, path=()):
    """Every compared element under ELEMENT, as {path: element}."""
    found = {}
    counts = {}
    for child in element:
        if child.tag not in COMPARED:
            continue
        if child.tag in POSITIONAL:
            index = counts.get(child.tag, 0)
            counts[child.tag] = index + 1
            key = path + (f'{local(child.tag)}[{index}]',)
        else:
            key = path + (f"{local(child.tag)} {child.get('name')}",)
        found[key] = child
        found.update(entries(child, key))
    return found


def version_tuple(text):
    return tuple(int(part) for part in text.split('.'))


def namespace_entries(path):
    return entries(ElementTree.parse(path).getroot().find(CORE + 'namespace'))


def incompatibilities(old, new):
    """What of OLD NEW lacks or has changed, as {top-level name: [problem]}."""
    problems = {}
    for key, element in old.items():
        if key not in new:
            problems.setdefault(key[0], []).append(f"{' / '.join(key)}: removed or renamed")
            continue
        for attribute in COMPARED[element.tag]:
            before = element.get(attribute)
            after = new[key].get(attribute)
            if before != after and (before, after) not in WIDENINGS.get((element.tag, attribute),
                                                                     ()):
                problems.setdefault(key[0], []).append(
                    f"{' / '.join(key)}: {local(attribute)} {before!r} -> {after!r}")
    return problems


def unversioned_additions(old, new, since):
    """The additions of NEW that do not say Since: SINCE or later, and all
    the additions (each only where its parent is not new too)."""
    def too_old(element):
        version = element.get('version')
        return version is None or version_tuple(version) < version_tuple(since)

    def describe(key, element):
        return f"{' / '.join(key)}: Since: {element.get('version') or 'missing'}"

    added = [key for key in new if key not in old and not any(
        key[:length] not in old for length in range(1, len(key)))]
    unversioned = []
    for key in added:
        element = new[key]
        if element.tag not in VERSIONED:
            continue
        if element.tag == CORE + 'record' and element.get('name').endswith(UNVERSIONED_RECORDS):
            continue
        if too_old(element):
            unversioned.append(describe(key, element))
        # A type added whole: its methods, properties and signals are new
        # too, and each says so.
        for inner_key, inner in new.items():
            if (len(inner_key) == len(key) + 1 and inner_key[:len(key)] == key
                    and inner.tag in VERSIONED and too_old(inner)):
                unversioned.append(describe(inner_key, inner))
    return added, unversioned


def baseline_version(path):
    # Procwatch-1.0-1.2.gir: the release is the last part of the name.
    return path.rsplit('/', 1)[-1][:-len('.gir')].rsplit('-', 1)[-1]


def check(built, since, baselines):
    new = namespace_entries(built)
    baselines = sorted(baselines, key=lambda path: version_tuple(baseline_version(path)))
    tests = 0
    failures = 0

    def report(ok, description, comments=()):
        nonlocal tests, failures
        tests += 1
        if not ok:
            failures += 1
        print(f"{'ok' if ok else 'not ok'} {tests} - {description}")
        for comment in comments:
            print(f'# {comment}')

    for path in baselines:
        version = baseline_version(path)
        old = namespace_entries(path)
        problems = incompatibilities(old, new)
        for top in dict.fromkeys(key[0] for key in old):
            report(top not in problems, f'{version}: {top}', problems.get(top, ()))

    added, unversioned = unversioned_additions(old, new, since)
    report(not unversioned,
           f'every addition since {version} says Since: {since} or later', unversioned)
    for key in added:
        print(f"# added since {version}: {' / '.join(key)}")

    print(f'1..{tests}')
    return failures == 0


def strip(path, output):
    for prefix, uri in NAMESPACES.items():
        ElementTree.register_namespace(prefix, uri)
    tree = ElementTree.parse(path)
    for parent in tree.iter():
        for child in [child for child in parent if child.tag in DOCUMENTATION]:
            parent.remove(child)
    # What is left of the indentation around them, indent () redoes.
    for element in tree.iter():
        if element.text is not None and not element.text.strip():
            element.text = None
        element.tail = None
    ElementTree.indent(tree, space='  ')
    tree.write(output, encoding='UTF-8', xml_declaration=True)
    with open(output, 'a', encoding='UTF-8') as stream:
        stream.write('\n')


def main(argv):
    if len(argv) == 4 and argv[1] == '--strip':
        strip(argv[2], argv[3])
        return 0
    if len(argv) < 4 or argv[1] == '--strip':
        print(f'usage: {argv[0]} GIR SINCE BASELINE... | --strip GIR OUTPUT', file=sys.stderr)
        return 2
    return 0 if check(argv[1], argv[2], argv[3:]) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
