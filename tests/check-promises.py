#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
#   check-promises.py --source-root DIR --gir GIR --build-root DIR [TEST-PROGRAM...]
#   check-promises.py --source-root DIR --gir GIR --show REFERENCE
#
# Keeps the promise table of tests/README.md true. Each row's "where it is
# made" cell names the doc that makes the promise by symbol, never by line:
#
#   `signal@Procwatch.ProcessMonitor::reaped`   a public symbol, in gi-docgen
#                                               terms, looked up in the .gir
#   `internal@stop_watch_full`                  a symbol of gio-procwatch/
#                                               without a public doc: the
#                                               comment above its definition
#   `docs/threads.md` "Stopping"                a guide page and its heading
#                                               (`docs/procwatch.1.in`: a section)
#
# Each may be followed by key words in curly quotes, “like these”, which
# that doc must say (case, spacing, links and markup aside); every row
# carries at least one, so the row shows which words of which doc make its
# promise. A symbol must exist and be documented; a page must have the
# heading.
#
# The "test" cell's tests must exist: GTest paths (`/monitor/…`, with
# {a,b} and *) registered by one of the TEST-PROGRAMs (asked with -l; a
# path may continue the one before it, `/signal` after
# `/monitor/{child,non-child}/exit-code`), Python tests (`test_…`, * and a
# [parameter] allowed) defined under tests/ (in the file, after a
# `py/test_x.py`), GJS tests (the names after a `gjs/testX.js`) in that
# file, and any other name a meson test of the build or of a meson.build,
# or a variant. Text in parentheses is commentary and not checked.
#
# TAP: one test per row, its message naming the row and what is wrong.

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'
TABLE_HEADER = ['promise', 'where it is made', 'test']

PUBLIC_KINDS = {
    'class': CORE + 'class', 'iface': CORE + 'interface', 'struct': CORE + 'record',
    'enum': CORE + 'enumeration', 'flags': CORE + 'bitfield', 'error': CORE + 'enumeration',
    'const': CORE + 'constant', 'callback': CORE + 'callback',
}
MEMBER_KINDS = {
    'method': [CORE + 'method'], 'ctor': [CORE + 'constructor'],
    'vfunc': [CORE + 'virtual-method'], 'func': [CORE + 'function'],
    'property': [CORE + 'property'], 'signal': [GLIB + 'signal'],
}

REFERENCE = re.compile(
    r'`(?P<symbol>(?:[a-z]+)@[A-Za-z0-9_.:-]+)`'
    r'|`(?P<page>[A-Za-z0-9_./-]+\.(?:md|1|1\.in))` "(?P<heading>.+?)"(?=\s*(?:“|;|$))'
    r'|(?P<phrase>“[^”]+”)'
    r'|(?P<separator>;)'
    r'|(?P<other>\S)')


class RowError(Exception):
    pass


def normalize(text):
    """Doc text as words: gi-docgen links by their name (a Procwatch one by
    its last part: [method@Procwatch.Process.get_pid] is get_pid), markdown,
    man page escapes and typographic quotes undone, spacing and case
    ignored."""
    text = re.sub(r'\[[a-z]+@Procwatch\.(?:[A-Za-z0-9_]+(?:::?|\.))?([A-Za-z0-9_-]+)\]', r'\1', text)
    text = re.sub(r'\[[a-z]+@([A-Za-z0-9_.:-]+)\]', r'\1', text)
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = text.translate(str.maketrans({'“': '"', '”': '"', '‘': "'", '’': "'"}))
    text = re.sub(r'[`*_]|\\f[BIRP]|\\&', '', text).replace('\\-', '-').replace('\\e', '\\')
    text = re.sub(r'^\s*[#.>]+|^\s*\*|^\s*/\*\*?|\*/', ' ', text, flags=re.MULTILINE)
    return ' '.join(text.lower().split())


class Docs:
    def __init__(self, source_root, gir):
        self.source_root = source_root
        root = ElementTree.parse(gir).getroot()
        self.namespace = root.find(CORE + 'namespace')
        self.namespace_name = self.namespace.get('name')
        self.pages = {}
        self.internal = None

    # Public symbols -----------------------------------------------------

    def _named(self, parent, tags, name):
        for child in parent:
            if child.tag in tags and child.get('name') == name:
                return child
        return None

    def public(self, reference):
        kind, _, name = reference.partition('@')
        prefix = self.namespace_name + '.'
        if not name.startswith(prefix):
            raise RowError(f'{reference}: not in the {self.namespace_name} namespace')
        name = name[len(prefix):]
        if kind in PUBLIC_KINDS:
            element = self._named(self.namespace, [PUBLIC_KINDS[kind]], name)
        elif kind in ('property', 'signal'):
            separator = ':' if kind == 'property' else '::'
            type_name, _, member = name.partition(separator)
            if kind == 'property' and member.startswith(':'):
                raise RowError(f'{reference}: a property is Type:name, a signal Type::name')
            owner = self._named(self.namespace, [CORE + 'class', CORE + 'interface'], type_name)
            element = owner is not None and self._named(owner, MEMBER_KINDS[kind], member)
        elif kind in MEMBER_KINDS:
            type_name, _, member = name.rpartition('.')
            owner = self.namespace
            if type_name:
                owner = self._named(self.namespace, list(PUBLIC_KINDS.values()), type_name)
            element = owner is not None and self._named(owner, MEMBER_KINDS[kind], member)
        else:
            raise RowError(f'{reference}: unknown kind "{kind}"')
        if element is None or element is False:
            raise RowError(f'{reference}: no such symbol in the .gir')
        doc = element.find(CORE + 'doc')
        if doc is None or not (doc.text or '').strip():
            raise RowError(f'{reference}: the symbol has no doc comment')
        # What a callable's doc comment says of its return value and
        # arguments belongs to it too, as what an enumeration's says of its
        # members.
        texts = [doc.text]
        for part in (element.findall(CORE + 'return-value') + list(element.iter(CORE + 'parameter'))
                     + element.findall(CORE + 'member')):
            part_doc = part.find(CORE + 'doc')
            if part_doc is not None and part_doc.text:
                texts.append(part_doc.text)
        return '\n'.join(texts)

    # Symbols without a public doc ------------------------------------------

    def internal_doc(self, reference):
        name = reference.partition('@')[2]
        if self.internal is None:
            directory = os.path.join(self.source_root, 'gio-procwatch')
            self.internal = {}
            for file_name in sorted(os.listdir(directory)):
                if re.search(r'\.(c|h|h\.in)$', file_name):
                    with open(os.path.join(directory, file_name), encoding='utf-8') as file:
                        self.internal[file_name] = file.read().split('\n')
        for lines in self.internal.values():
            for number, line in enumerate(lines):
                if re.match(r'\s*\* ' + re.escape(name) + r':', line):
                    start = number
                    while start > 0 and not lines[start].lstrip().startswith('/*'):
                        start -= 1
                    end = number
                    while end < len(lines) and '*/' not in lines[end]:
                        end += 1
                    return '\n'.join(lines[start:end + 1])
                if re.match(re.escape(name) + r' \(|#define ' + re.escape(name) + r'\b', line):
                    # GNU style: the return type on the lines above, the
                    # comment above that.
                    end = number - 1
                    while end >= 0 and lines[end].strip() and not lines[end].rstrip().endswith('*/'):
                        end -= 1
                    if end < 0 or not lines[end].rstrip().endswith('*/'):
                        raise RowError(f'{reference}: no comment above its definition')
                    start = end
                    while start > 0 and '/*' not in lines[start]:
                        start -= 1
                    return '\n'.join(lines[start:end + 1])
        raise RowError(f'{reference}: not defined in gio-procwatch/')

    # Guide pages -------------------------------------------------------

    def section(self, page, heading):
        path = os.path.join(self.source_root, page)
        if page not in self.pages:
            if not os.path.isfile(path):
                raise RowError(f'{page}: no such page')
            with open(path, encoding='utf-8') as file:
                self.pages[page] = parse_sections(page, file.read())
        for title, text in self.pages[page]:
            if title == heading:
                return text
        raise RowError(f'{page}: no heading "{heading}"')


def parse_sections(page, text):
    """[(heading, text up to the next heading of its level or above)]"""
    headings = []
    lines = text.split('\n')
    fenced = False
    for number, line in enumerate(lines):
        if page.endswith(('.1', '.1.in')):
            match = re.match(r'\.S[HS] (.*)', line)
            if match:
                headings.append((number, 1 if line.startswith('.SH') else 2,
                                 match.group(1).strip('"')))
            continue
        if line.startswith('```'):
            fenced = not fenced
        match = not fenced and re.match(r'(#+) (.*)', line)
        if match:
            headings.append((number, len(match.group(1)), match.group(2).strip()))
    sections = []
    for index, (number, level, title) in enumerate(headings):
        end = len(lines)
        for later, later_level, _ in headings[index + 1:]:
            if later_level <= level:
                end = later
                break
        sections.append((title, '\n'.join(lines[number + 1:end])))
    return sections


# The "where it is made" cell ---------------------------------------------

def check_where(docs, cell):
    if cell == '—':
        return 0
    phrases = 0
    doc = None
    described = None
    for match in REFERENCE.finditer(cell):
        if match.group('symbol'):
            reference = match.group('symbol')
            if reference.startswith('internal@'):
                doc = docs.internal_doc(reference)
            else:
                doc = docs.public(reference)
            described = reference
        elif match.group('page'):
            doc = docs.section(match.group('page'), match.group('heading'))
            described = f'{match.group("page")} "{match.group("heading")}"'
        elif match.group('phrase'):
            if doc is None:
                raise RowError(f'{match.group("phrase")} follows no doc')
            words = normalize(match.group('phrase')[1:-1])
            if words not in normalize(doc):
                raise RowError(f'{described} does not say {match.group("phrase")}')
            phrases += 1
        elif match.group('separator'):
            doc = None
        else:
            raise RowError(f'cannot read the reference at "{cell[match.start():match.start() + 40]}"'
                           ' (write `kind@Procwatch.Symbol`, `internal@symbol` or'
                           ' `page.md` "Heading", each with “key words”, separated by ";")')
    if phrases == 0:
        raise RowError('no “key words” show which doc makes the promise')
    return phrases


# The "test" cell -------------------------------------------------------

def expand_braces(pattern):
    match = re.search(r'\{([^{}]*)\}', pattern)
    if not match:
        return [pattern]
    return [expanded
            for choice in match.group(1).split(',')
            for expanded in expand_braces(pattern[:match.start()] + choice + pattern[match.end():])]


class Tests:
    def __init__(self, source_root, build_root, programs):
        self.paths = set()
        for program in programs:
            # Listing runs no test: leaks at its exit (in a sanitized build)
            # are not this check's to report.
            environment = dict(os.environ)
            environment['ASAN_OPTIONS'] = ':'.join(filter(None, [environment.get('ASAN_OPTIONS'),
                                                                 'detect_leaks=0']))
            result = subprocess.run([program, '-l'], capture_output=True, text=True, check=False,
                                    env=environment)
            if result.returncode != 0:
                raise SystemExit(f'{program} -l failed: {result.stderr.strip()}')
            # GLib 2.74 lists bare paths; GLib 2.78 and newer list them as TAP
            # comments ("# /path").
            for line in result.stdout.split('\n'):
                line = line.removeprefix('# ')
                if line.startswith('/'):
                    self.paths.add(line)
        self.python = {}
        self.gjs = {}
        for directory, _, files in os.walk(os.path.join(source_root, 'tests')):
            for file_name in files:
                path = os.path.join(directory, file_name)
                if file_name.endswith('.py'):
                    with open(path, encoding='utf-8') as file:
                        self.python[os.path.relpath(path, os.path.join(source_root, 'tests'))] = \
                            re.findall(r'^\s*(?:async )?def (test_\w+)', file.read(), flags=re.MULTILINE)
                elif file_name.endswith('.js') and os.path.basename(directory) == 'gjs':
                    with open(path, encoding='utf-8') as file:
                        names = re.findall(r'\btest\(\s*([\'`])(.*?)\1', file.read())
                    self.gjs[file_name] = [
                        re.compile(''.join('.+' if part.startswith('${') else re.escape(part)
                                           for part in re.split(r'(\$\{[^}]*\})', name)) + '$')
                        for _, name in names]
        with open(os.path.join(build_root, 'meson-info', 'intro-tests.json'), encoding='utf-8') as file:
            self.meson = {test['name'] for test in json.load(file)}
        # A test this configuration leaves out (gi-docgen's without
        # documentation, say) is still a test of the project.
        for directory, subdirectories, files in os.walk(source_root):
            # Not into build directories, nor .git.
            subdirectories[:] = [name for name in subdirectories if not name.startswith('.') and
                                 not os.path.exists(os.path.join(directory, name, 'meson-info'))]
            if 'meson.build' in files:
                with open(os.path.join(directory, 'meson.build'), encoding='utf-8') as file:
                    self.meson.update(re.findall(r"\btest\(\s*'([^'@]+)'", file.read()))
        self.variants = {match.group(1).split(', ')[0] for name in self.meson
                         for match in [re.search(r' \((.*)\)$', name)] if match}

    def gtest_matches(self, path):
        """Whether every expansion of path names registered tests."""
        for expanded in expand_braces(path):
            if not any(fnmatch.fnmatchcase(registered, expanded) or
                       (expanded.count('/') >= 2 and
                        fnmatch.fnmatchcase(registered, '*' + expanded))
                       for registered in self.paths):
                return False
        return True

    def check_gtest(self, path, previous):
        if self.gtest_matches(path):
            return path
        if previous is not None:
            parts = previous.split('/')
            for keep in range(len(parts) - 1, 0, -1):
                joined = '/'.join(parts[:keep]) + path
                if self.gtest_matches(joined):
                    return joined
        raise RowError(f'test path {path} is registered by no test program')

    def check_name(self, name, gjs_file, python_file):
        if gjs_file is not None:
            if gjs_file not in self.gjs:
                raise RowError(f'gjs/{gjs_file}: no such GJS test file')
            if not any(pattern.match(name) for pattern in self.gjs[gjs_file]):
                raise RowError(f'gjs/{gjs_file} has no test "{name}"')
            return
        if re.match(r'test_[\w*]*(\[.*\])?$', name):
            function = re.sub(r'\[.*\]$', '', name)
            if python_file is not None:
                if python_file not in self.python:
                    raise RowError(f'tests/{python_file}: no such Python test file')
                if not any(fnmatch.fnmatchcase(defined, function) for defined in self.python[python_file]):
                    raise RowError(f'tests/{python_file} has no test {name}')
            elif not any(fnmatch.fnmatchcase(defined, function)
                         for defined_in_file in self.python.values() for defined in defined_in_file):
                raise RowError(f'no Python test {name} under tests/')
            return
        if name in self.meson or any(test.startswith(name + ' (') for test in self.meson):
            return
        if name in self.variants:
            return
        raise RowError(f'`{name}` is no test path, Python or GJS test, meson test or variant')


def strip_parentheses(text):
    out = []
    depth = 0
    in_code = False
    for character in text:
        if character == '`':
            in_code = not in_code
        if not in_code and character == '(':
            depth += 1
        if depth == 0:
            out.append(character)
        if not in_code and character == ')' and depth > 0:
            depth -= 1
    return ''.join(out)


def check_tests(tests, cell):
    checked = 0
    for segment in strip_parentheses(cell).split(';'):
        gjs_file = None
        python_file = None
        previous = None
        for match in re.finditer(r'gjs/(test\w+\.js)|py/(test_\w+\.py)|`([^`]+)`', segment):
            if match.group(1) or match.group(2):
                gjs_file = match.group(1)
                python_file = match.group(2) and 'python/' + match.group(2)
                continue
            name = match.group(3)
            if name.startswith('/'):
                previous = tests.check_gtest(name, previous)
            elif re.match(r'[\w./-]+\.(py|js|c|sh)$', name) and os.path.exists(name):
                continue
            else:
                tests.check_name(name, gjs_file, python_file)
            checked += 1
    return checked


# The table ---------------------------------------------------------------

def split_row(line):
    cells = []
    current = []
    in_code = False
    for character in line.strip()[1:-1]:
        if character == '`':
            in_code = not in_code
        if character == '|' and not in_code:
            cells.append(''.join(current).strip())
            current = []
        else:
            current.append(character)
    cells.append(''.join(current).strip())
    return cells


def promise_rows(readme):
    """(line number, cells) of every row of a promise | where | test table."""
    rows = []
    in_table = False
    with open(readme, encoding='utf-8') as file:
        for number, line in enumerate(file, 1):
            if not line.startswith('|'):
                in_table = False
                continue
            cells = split_row(line)
            if cells == TABLE_HEADER:
                in_table = True
            elif in_table and not re.match(r'\|[-| ]+\|$', line.strip()):
                rows.append((number, cells))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--source-root', required=True)
    parser.add_argument('--gir', required=True)
    parser.add_argument('--build-root')
    parser.add_argument('--show', help='print the doc text a reference is checked against')
    parser.add_argument('programs', nargs='*')
    options = parser.parse_args()
    # meson hands over paths relative to the build directory.
    options.gir = os.path.abspath(options.gir)
    options.programs = [os.path.abspath(program) for program in options.programs]

    docs = Docs(options.source_root, options.gir)
    if options.show:
        match = re.fullmatch(r'`?([A-Za-z0-9_./-]+\.(?:md|1))`? "(.*)"', options.show)
        if match:
            print(docs.section(match.group(1), match.group(2)))
        elif options.show.startswith('internal@'):
            print(docs.internal_doc(options.show))
        else:
            print(docs.public(options.show))
        return 0

    os.chdir(options.source_root)
    tests = Tests(options.source_root, options.build_root, options.programs)
    readme = os.path.join(options.source_root, 'tests', 'README.md')
    rows = promise_rows(readme)
    if not rows:
        print('1..1\nnot ok 1 - tests/README.md has no promise table')
        return 1
    print(f'1..{len(rows)}')
    failed = 0
    for index, (number, cells) in enumerate(rows, 1):
        title = cells[0] if len(cells[0]) <= 70 else cells[0][:67] + '...'
        try:
            if len(cells) != 3:
                raise RowError(f'{len(cells)} cells, not 3')
            phrases = check_where(docs, cells[1])
            tests_named = check_tests(tests, cells[2])
            print(f'ok {index} - tests/README.md:{number} {title} '
                  f'({phrases} key phrases, {tests_named} tests)')
        except RowError as error:
            failed += 1
            print(f'not ok {index} - tests/README.md:{number} "{title}": {error}')
    print(f'# {failed} of {len(rows)} rows wrong' if failed else f'# all {len(rows)} rows hold')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
