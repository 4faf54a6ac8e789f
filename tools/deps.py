#!/usr/bin/env python3
"""deps.py BUILDDIR [-v]: the calls between the source files of libsbcore
(docs/design.md, "Who owns what"), and between those of the command
(src/cli/), read from the symbols of the built objects (nm): every cycle
of files that call each other, and of the library's folders, with the
functions that close it, and the
internal headers that declare functions of more than one file.  -v also
lists, per file, the headers it includes and the files it calls.  Run it
after make, in the build directory."""
import glob, os, re, subprocess, sys
b = sys.argv[1]
# PIC objects under .libs, or beside their .lo in a build without shared
# libraries: one per source either way.
def read(objs, pattern):
    """defs (symbol -> file) and undef (file -> symbols) of objs, each
    named by pattern's group 1 in its folder."""
    defs, undef = {}, {}
    for o in objs:
        name = re.sub(pattern, r'\1', os.path.basename(o))
        d = os.path.dirname(o)
        if os.path.basename(d) == '.libs':
            d = os.path.dirname(d)
        d = os.path.relpath(d, b)
        key = f'{d}/{name}.c'
        out = subprocess.run(['nm', o], capture_output=True, text=True).stdout
        undef[key] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBRC':
                defs[parts[2]] = key
            elif len(parts) == 2 and parts[0] == 'U':
                undef[key].add(parts[1])
    return defs, undef

objs = (glob.glob(os.path.join(b, '**/.libs/libsbcore_la-*.o'), recursive=True) or
        glob.glob(os.path.join(b, '**/libsbcore_la-*.o'), recursive=True))
defs, undef = read(objs, r'libsbcore_la-(.*)\.o')
graph = {k: sorted({defs[s] for s in u if s in defs and defs[s] != k})
         for k, u in undef.items()}
# The command: its own objects (src/cli/*.o, and the text helpers it
# compiles in); what it calls of the library is below it by design.
cli_objs = [o for o in glob.glob(os.path.join(b, 'src/cli/*.o'))]
cli_defs, cli_undef = read(cli_objs, r'(.*)\.o')
cli_graph = {k: sorted({cli_defs[s] for s in u
                        if s in cli_defs and cli_defs[s] != k})
             for k, u in cli_undef.items()}
verbose = '-v' in sys.argv
for k in sorted(graph):
    src = os.path.join(b, k)
    inc = []
    if os.path.exists(src):
        inc = re.findall(r'#include "([^"]+)"', open(src).read())
    if verbose:
        print(f'{k}: includes {" ".join(inc)}; calls {" ".join(graph[k])}')
if verbose:
    for k in sorted(cli_graph):
        print(f'{k}: calls {" ".join(cli_graph[k])}')
def cycles(graph, defs, undef):
    """The strongly connected components of more than one file, each
    printed with the calls that close it; how many."""
    idx, low, st, on, sccs, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
        for w in graph.get(v, []):
            if w not in idx:
                sc(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            c = []
            while True:
                w = st.pop(); on.discard(w); c.append(w)
                if w == v: break
            if len(c) > 1: sccs.append(sorted(c))
    for v in graph:
        if v not in idx: sc(v)
    for c in sccs:
        syms = {}
        for a in c:
            for s in undef[a]:
                if defs.get(s) in c and defs[s] != a:
                    syms.setdefault((a, defs[s]), []).append(s)
        print('cycle:', ' '.join(c))
        for (a, x), s in sorted(syms.items()):
            print(f'   {a} -> {x}: {" ".join(sorted(s))}')
    return len(sccs)
print(f'{cycles(graph, defs, undef)} cycle(s)')
# The folders (docs/design.md's diagram): the same rule one level up, so
# that calls between folders only go one way (tests/deps.sh fails on a
# cycle).
def folder(k):
    return os.path.dirname(k)
fdefs = {s: folder(k) for s, k in defs.items()}
fundef = {}
for k, u in undef.items():
    fundef.setdefault(folder(k), set()).update(u)
fgraph = {f: sorted({fdefs[s] for s in u if s in fdefs and fdefs[s] != f})
          for f, u in fundef.items()}
if verbose:
    for f in sorted(fgraph):
        print(f'{f}/: calls {" ".join(x + "/" for x in fgraph[f])}')
print(f'folders: {len(fgraph)} folder(s), '
      f'{cycles(fgraph, fdefs, fundef)} cycle(s)')
print(f'command: {len(cli_graph)} file(s), '
      f'{cycles(cli_graph, cli_defs, cli_undef)} cycle(s)')
# Which .c defines the functions each internal header declares.
hdrs = [h for d in ('src', 'kernels', 'stats')
        for h in glob.glob(os.path.join(b, d, '*.h'))]
for h in sorted(hdrs):
    if h.endswith(('config.h', 'statbench.h')):
        continue
    txt = re.sub(r'/\*.*?\*/', '', open(h).read(), flags=re.S)
    names = set(re.findall(r'\b(sb_{1,2}[a-z0-9_]+)\s*\(', txt))
    owners = {}
    for nm in names:
        if nm in defs:
            owners.setdefault(defs[nm], []).append(nm)
    if len(owners) > 1 or verbose:
        where = '; '.join(f'{k} ({len(v)})' for k, v in sorted(owners.items()))
        print(f'{os.path.relpath(h, b)}: {where}')
