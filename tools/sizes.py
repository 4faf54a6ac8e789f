#!/usr/bin/env python3
"""sizes.py ROOT [FILE...]: the files and functions past the project's
structure measures (docs/design.md, "Who owns what"): a source file of
the library (src/ and stats/, but the public header src/statbench.h)
over 900 lines, and a C function (in src/, stats/, examples/ and
bench/*.c) over 100 lines.  FILEs are paths below ROOT (without them,
every file below ROOT's src/, stats/, examples/ and bench/); those the
measures do not cover are passed over.

A function is counted from the line at column 0 that begins its
definition to its closing '}' at column 0: a declaration whose body is
a '{' (at column 0, or ending its last line) after a parameter list.  A
data table or an initialiser ('=' before its '{') is no function, nor is
a struct, union or enum.

Each offender is one line on stdout, "PATH: N lines (over 900)" or
"PATH:LINE: NAME: N lines (over 100)", then a last line of counts,
"sizes: F file(s), C function(s), O offender(s)".  Exit status 0 with no
offender, 1 with one or more, 2 on a file it cannot read."""
import os
import re
import sys

FILE_MAX = 900
FUNC_MAX = 100


def file_measured(path):
    """A source file of the library, whose lines are counted."""
    top = path.split('/', 1)[0]
    return (top in ('src', 'stats') and path.endswith(('.c', '.h'))
            and path != 'src/statbench.h')


def funcs_measured(path):
    """A C file whose functions are counted."""
    top = path.split('/', 1)[0]
    if top == 'bench':
        return path.endswith('.c') and path.count('/') == 1
    return top in ('src', 'stats', 'examples') and path.endswith(('.c', '.h'))


def code_lines(text):
    """The lines of text with comments and the insides of strings and
    character constants blanked (a '{' or '}' in them counts for
    nothing), and each preprocessor line with its continuations emptied."""
    out, cur = [], []
    state = None  # None, 'block', '"' or "'"
    macro = False
    for line in text.split('\n'):
        cur = []
        if state is None and (macro or line.lstrip().startswith('#')):
            macro = line.endswith('\\')
            out.append('')
            continue
        i = 0
        while i < len(line):
            c = line[i]
            if state == 'block':
                if line.startswith('*/', i):
                    state = None
                    i += 2
                    cur.append('  ')
                    continue
                cur.append(' ')
            elif state in ('"', "'"):
                if c == '\\':
                    cur.append('  ')
                    i += 2
                    continue
                if c == state:
                    state = None
                    cur.append(c)
                else:
                    cur.append(' ')
            elif line.startswith('/*', i):
                state = 'block'
                cur.append('  ')
                i += 2
                continue
            elif line.startswith('//', i):
                break
            else:
                if c in '"\'':
                    state = c
                cur.append(c)
            i += 1
        if state in ('"', "'"):
            state = None  # an unterminated constant ends with its line
        out.append(''.join(cur))
    return out


IDENT = re.compile(r'[A-Za-z_]')
NAME = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def functions(lines):
    """(first line, last line, name) of each function definition, the
    lines numbered from 1."""
    found = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not IDENT.match(line):
            i += 1
            continue
        # A declaration begins at column 0: gather it up to its body's
        # '{' or its ';'.
        start, head, j = i, '', i
        body = None
        while j < n:
            head += ' ' + lines[j]
            if lines[j].startswith('{') or lines[j].rstrip().endswith('{'):
                body = j
                break
            if ';' in lines[j] or (j > i and lines[j][:1] == '}'):
                break
            j += 1
        if body is None:
            i = j + 1
            continue
        decl = head[:head.rfind('{')]
        m = NAME.search(decl)
        is_func = (m is not None and '=' not in decl and ')' in decl
                   and not re.match(r'\s*(typedef\b|(struct|union|enum)\s+'
                                    r'[A-Za-z0-9_]*\s*$)', decl))
        # The body (or the initialiser) ends where its braces close: for a
        # function, the '}' at column 0.
        k, depth = body, 0
        while k < n:
            depth += lines[k].count('{') - lines[k].count('}')
            if depth <= 0 and (k > body or '}' in lines[k]):
                break
            k += 1
        if is_func:
            name = NAME.findall(decl)
            found.append((start + 1, k + 1, name[0] if name else '?'))
        i = k + 1
    return found


def listed(root):
    for top in ('src', 'stats', 'examples', 'bench'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                yield os.path.relpath(os.path.join(d, f), root)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__.split('\n\n')[0] + '\n')
        return 2
    root = argv[1]
    paths = sorted({os.path.normpath(p).replace(os.sep, '/')
                    for p in (argv[2:] or listed(root))})
    nfiles = nfuncs = bad = 0
    for p in paths:
        if not (file_measured(p) or funcs_measured(p)):
            continue
        try:
            with open(os.path.join(root, p), encoding='utf-8',
                      errors='replace') as f:
                text = f.read()
        except OSError as e:
            sys.stderr.write(f'sizes.py: {p}: {e.strerror}\n')
            return 2
        nfiles += 1
        count = text.count('\n') + (0 if text.endswith('\n') or not text
                                    else 1)
        if file_measured(p) and count > FILE_MAX:
            print(f'{p}: {count} lines (over {FILE_MAX})')
            bad += 1
        if not funcs_measured(p):
            continue
        for first, last, name in functions(code_lines(text)):
            nfuncs += 1
            if last - first + 1 > FUNC_MAX:
                print(f'{p}:{first}: {name}: {last - first + 1} lines '
                      f'(over {FUNC_MAX})')
                bad += 1
    print(f'sizes: {nfiles} file(s), {nfuncs} function(s), '
          f'{bad} offender(s)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
