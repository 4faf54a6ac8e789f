#!/usr/bin/env python3
"""Mutation testing for statbench: run.sh is the entry point.

Each mutant in mutants.txt is one small, realistic bug: a file, an exact
snippet of the original code that must occur exactly once in that file,
and its replacement.  The snippet form survives unrelated edits to the
tree; a mutant whose snippet no longer occurs exactly once is STALE (an
error to fix in the list, never counted as a survivor).

The tree is copied to a scratch directory and built once per worker.
For each mutant the file is changed, the tree rebuilt incrementally and
the test suite run test by test (the TESTS list of Makefile.am, run the
way `make check` runs it).  A mutant is

  killed     a test failed (a "not ok" line that is not a TODO, a
             "Bail out!", an exit status other than 0 or 77, or a test
             that ran past its time limit);
  survived   every test passed;
  invalid    it did not compile: a bug the compiler catches is not a test's
             kill, so it is counted apart, neither killed nor survived;
  equivalent marked so in the list, with the reason it cannot be killed;
             not run, and left out of the rate.

The file is restored after each mutant.  The unmutated suite runs first:
a test that fails there would kill every mutant, so it is left out of
the run (and named).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FOLDERS = ("stats/", "kernels/", "src/", "src/cli/")


class Mutant:
    def __init__(self, name, path, folder):
        self.name, self.path, self.folder = name, path, folder
        self.desc = ""
        self.old = self.new = None
        self.equivalent = None
        self.hint = []
        self.line = 0


def folder_of(path):
    if path.startswith("src/cli/"):
        return "src/cli/"
    for f in ("stats/", "kernels/", "src/"):
        if path.startswith(f):
            return f
    return "other"


def parse_mutants(fname):
    """The list format (see the head of mutants.txt):

        == NAME FILE [FOLDER]
        desc: one line
        [tests: test_a test_b]   tests to run first in fast mode
        [equivalent: reason]
        ---
        original snippet, verbatim
        +++
        replacement, verbatim, up to the first blank line
    A snippet is the lines between the markers, its final newline
    excluded; a replacement holds no blank line (none: a deletion).
    Lines starting with '#' outside snippets are comments."""
    out = []
    cur = None
    mode = None
    buf = []

    def flush(buf):
        if cur is None:
            return
        if mode == "new":
            cur.new = "\n".join(buf)
        if cur.old is None or cur.new is None:
            raise SystemExit("%s:%d: mutant %s lacks --- or +++"
                             % (fname, cur.line, cur.name))

    with open(fname, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, 1):
        if line.startswith("== "):
            flush(buf)
            parts = line[3:].split()
            if len(parts) not in (2, 3):
                raise SystemExit("%s:%d: want '== NAME FILE [FOLDER]'"
                                 % (fname, no))
            cur = Mutant(parts[0], parts[1],
                         parts[2] if len(parts) == 3 else folder_of(parts[1]))
            if cur.folder not in FOLDERS:
                raise SystemExit("%s:%d: folder %s is not one of %s"
                                 % (fname, no, cur.folder, FOLDERS))
            cur.line = no
            if any(m.name == cur.name for m in out):
                raise SystemExit("%s:%d: mutant %s listed twice"
                                 % (fname, no, cur.name))
            out.append(cur)
            mode, buf = "head", []
        elif mode == "head":
            if line == "---":
                mode, buf = "old", []
            elif line.startswith("desc:"):
                cur.desc = line[5:].strip()
            elif line.startswith("tests:"):
                cur.hint = line[6:].split()
            elif line.startswith("equivalent:"):
                cur.equivalent = line[11:].strip()
            elif line.strip() and not line.startswith("#"):
                raise SystemExit("%s:%d: unexpected line in mutant %s"
                                 % (fname, no, cur.name))
        elif mode == "old":
            if line == "+++":
                cur.old = "\n".join(buf)
                mode, buf = "new", []
            else:
                buf.append(line)
        elif mode == "new":
            if line == "":
                # A replacement ends at the first blank line.
                cur.new = "\n".join(buf)
                mode, buf = None, []
            else:
                buf.append(line)
        elif line.strip() and not line.startswith("#"):
            raise SystemExit("%s:%d: text outside a mutant" % (fname, no))
    flush(buf)
    for m in out:
        # Trailing blank lines separate mutants; they are not snippet.
        m.new = m.new.rstrip("\n")
        if m.old == m.new:
            raise SystemExit("mutant %s changes nothing" % m.name)
    return out


# Tests of the mutant list itself, not of the code: tests/mutants.sh
# checks that every snippet occurs once, which a mutant applied makes
# false for its own snippet, so it would "kill" every mutant.
NOT_VERDICTS = ("tests/mutants.sh",)


def tests_of(top):
    """The TESTS list of Makefile.am, in its order, less NOT_VERDICTS."""
    with open(os.path.join(top, "Makefile.am"), encoding="utf-8") as f:
        text = f.read().replace("\\\n", " ")
    tests = []
    for line in text.split("\n"):
        m = re.match(r"^TESTS\s*\+?=\s*(.*)$", line)
        if m:
            tests += m.group(1).split()
    return [t for t in tests if t not in NOT_VERDICTS]


def copy_tree(src, dst, head):
    """The tracked and untracked (not ignored) files of the working tree,
    or with head the committed tree (git archive HEAD)."""
    os.makedirs(dst)
    if head:
        p1 = subprocess.Popen(["git", "-C", src, "archive", "HEAD"],
                              stdout=subprocess.PIPE)
        subprocess.check_call(["tar", "-x", "-C", dst], stdin=p1.stdout)
        p1.stdout.close()
        if p1.wait():
            raise SystemExit("git archive failed")
        return
    files = subprocess.check_output(
        ["git", "-C", src, "ls-files", "-z", "-c", "-o", "--exclude-standard"])
    for rel in files.decode().split("\0"):
        if not rel or not os.path.lexists(os.path.join(src, rel)):
            continue
        d = os.path.join(dst, os.path.dirname(rel))
        os.makedirs(d, exist_ok=True)
        shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel),
                     follow_symlinks=False)


def sh(cmd, cwd, log, timeout=None):
    with open(log, "ab") as f:
        try:
            return subprocess.call(cmd, cwd=cwd, stdout=f, stderr=f,
                                   timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124


def build(tree, jobs, log):
    """Incremental build of the library, the program and the tests."""
    return sh(["make", "-j%d" % jobs, "all"], tree, log) == 0 and \
        sh(["make", "-j%d" % jobs, "check", "TESTS="], tree, log) == 0


def tap_failed(out):
    for line in out.split("\n"):
        if line.startswith("Bail out!"):
            return "bail out"
        if line.startswith("not ok") and "# TODO" not in line.upper() \
                and "# todo" not in line:
            return line.strip()[:160]
    return None


def run_test(tree, test, limit, log=None):
    """Run one test as the TAP driver would; None if it passed, else why."""
    env = dict(os.environ)
    env["top_srcdir"] = tree
    env["top_builddir"] = tree
    path = os.path.join(tree, test)
    cmd = ["sh", path] if test.endswith(".sh") else [path]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=limit,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout after %.0f s" % limit, time.time() - t0
    out = p.stdout.decode("utf-8", "replace")
    why = tap_failed(out)
    if why is None and p.returncode not in (0, 77):
        why = "exit status %d" % p.returncode
    if why and log:
        # The failing test's whole output, to tell a real kill from noise.
        with open(log, "a", encoding="utf-8") as f:
            f.write("==== %s: %s\n%s\n" % (test, why, out))
    return why, time.time() - t0


class Worker:
    def __init__(self, idx, scratch, args):
        self.tree = os.path.join(scratch, "tree%d" % idx)
        self.log = os.path.join(scratch, "build%d.log" % idx)
        self.args = args

    def prepare(self, src):
        copy_tree(src, self.tree, self.args.head)
        if sh(["sh", "./autogen.sh"], self.tree, self.log) or \
                sh(["./configure", "-q"] + self.args.configure, self.tree,
                   self.log) or not build(self.tree, self.args.make_jobs,
                                          self.log):
            raise SystemExit("the unmutated tree does not build: see "
                             + self.log)


def apply(tree, m):
    path = os.path.join(tree, m.path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        return None, "STALE (%s)" % e.strerror
    n = text.count(m.old)
    if n != 1:
        return None, "STALE (snippet occurs %d times)" % n
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(m.old, m.new))
    return text, None


def restore(tree, m, text):
    path = os.path.join(tree, m.path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    # A new mtime, so that make rebuilds it even within one second.
    now = time.time() + 1
    os.utime(path, (now, now))


def order_tests(tests, m, fast, durations):
    if not fast:
        return tests
    first = [t for t in tests if os.path.basename(t).split(".")[0] in
             [h.split(".")[0] for h in m.hint]]
    rest = sorted((t for t in tests if t not in first),
                  key=lambda t: durations.get(t, 0))
    return first + rest


def run_mutant(w, m, tests, durations, args):
    text, stale = apply(w.tree, m)
    if stale:
        return "stale", stale, 0.0
    t0 = time.time()
    try:
        if not build(w.tree, args.make_jobs, w.log):
            return "invalid", "does not compile", time.time() - t0
        for t in order_tests(tests, m, args.fast, durations):
            limit = max(60.0, 5 * durations.get(t, 60))
            why, _ = run_test(w.tree, t, limit,
                              os.path.join(os.path.dirname(w.tree),
                                           m.name + ".log"))
            if why:
                if args.fast:
                    return "killed", "%s: %s" % (t, why), time.time() - t0
                if not hasattr(m, "kills"):
                    m.kills = []
                m.kills.append("%s: %s" % (t, why))
        if getattr(m, "kills", None):
            return "killed", "; ".join(m.kills)[:300], time.time() - t0
        return "survived", "", time.time() - t0
    finally:
        restore(w.tree, m, text)


def main():
    ap = argparse.ArgumentParser(
        prog="tests/mutate/run.sh",
        description="Mutation testing: apply each mutant of the list to a "
        "scratch copy of the tree, run the test suite, print the kill rate "
        "by folder.")
    ap.add_argument("select", nargs="*",
                    help="mutant names or folders (stats/, kernels/, src/, "
                    "src/cli/); a name may end in * to match a prefix; "
                    "default: all")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="mutants run at once, each in its own scratch "
                    "copy (default 1)")
    ap.add_argument("--make-jobs", type=int, default=2,
                    help="make -j for each build (default 2)")
    ap.add_argument("-f", "--fast", action="store_true",
                    help="stop a mutant's suite at its first failing test "
                    "(tests the mutant names first, then the fastest)")
    ap.add_argument("-l", "--list", default=os.path.join(HERE, "mutants.txt"),
                    help="the mutant list (default tests/mutate/mutants.txt)")
    ap.add_argument("--head", action="store_true",
                    help="copy the committed tree (git archive HEAD) "
                    "instead of the working tree")
    ap.add_argument("--scratch", help="scratch directory, which must not "
                    "exist yet (default: a new one in $TMPDIR, removed at "
                    "the end)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch directory (and in it, NAME.log: "
                    "the output of the tests that failed on mutant NAME)")
    ap.add_argument("--check", action="store_true",
                    help="only check that every snippet occurs exactly once "
                    "in the working tree; no build")
    ap.add_argument("--apply", action="store_true",
                    help="apply the named mutants to the working tree "
                    "itself, to write a test against them by hand")
    ap.add_argument("--revert", action="store_true",
                    help="undo --apply of the named mutants")
    ap.add_argument("--configure", action="append", default=[],
                    help="an extra ./configure argument (repeatable)")
    args = ap.parse_args()

    mutants = parse_mutants(args.list)
    if args.select:
        def chosen(m):
            for s in args.select:
                if s in FOLDERS and m.folder == s:
                    return True
                if s.endswith("*") and m.name.startswith(s[:-1]):
                    return True
                if s == m.name:
                    return True
            return False
        unknown = [s for s in args.select if s not in FOLDERS and
                   not s.endswith("*") and
                   not any(m.name == s for m in mutants)]
        if unknown:
            raise SystemExit("no such mutant: " + " ".join(unknown))
        mutants = [m for m in mutants if chosen(m)]

    if args.apply or args.revert:
        if not args.select:
            raise SystemExit("--apply and --revert want mutant names")
        bad = 0
        for m in mutants:
            path = os.path.join(TOP, m.path)
            keep = path + ".premutant"
            if args.revert:
                # The copy --apply kept: a deletion cannot be found again.
                if not os.path.exists(keep):
                    print("%s: no %s; left alone" % (m.name, keep))
                    bad += 1
                    continue
                os.replace(keep, path)
                os.utime(path)  # newer than the mutant's objects
                print("reverted %s (%s)" % (m.name, m.path))
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            a, b = m.old, m.new
            if os.path.exists(keep) or text.count(a) != 1:
                print("%s: %s: the snippet occurs %d times; left alone"
                      % (m.name, m.path, text.count(a)))
                bad += 1
                continue
            shutil.copy2(path, keep)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(a, b))
            print("applied %s (%s)" % (m.name, m.path))
        return 1 if bad else 0

    if args.check:
        bad = 0
        for m in mutants:
            with open(os.path.join(TOP, m.path), encoding="utf-8") as f:
                n = f.read().count(m.old)
            if n != 1:
                print("STALE %s (%s): snippet occurs %d times"
                      % (m.name, m.path, n))
                bad += 1
        print("%d mutants, %d stale" % (len(mutants), bad))
        return 1 if bad else 0

    scratch = args.scratch or tempfile.mkdtemp(prefix="sbmutate.")
    if args.scratch:
        # A folder of its own: a new one, never an existing one (/tmp's
        # sticky bit, a planted link) whose mode it would change.
        os.makedirs(scratch)
    # mkdtemp makes it 0700: the suite's tests that run statbench as
    # another user (setpriv, as root) could not reach the copy, fail on
    # the unmutated tree, and be left out of every verdict.
    os.chmod(scratch, 0o755)
    todo = [m for m in mutants if not m.equivalent]
    workers = [Worker(i, scratch, args) for i in range(max(1, args.jobs))]
    t_start = time.time()
    print("scratch %s; %d mutants (%d equivalent, not run)"
          % (scratch, len(mutants), len(mutants) - len(todo)), flush=True)
    try:
        for w in workers:
            w.prepare(TOP)
        tests = tests_of(workers[0].tree)
        durations = {}
        broken = []
        for t in tests:
            why, d = run_test(workers[0].tree, t, 900)
            durations[t] = d
            if why:
                broken.append((t, why))
        base = sum(durations.values())
        print("unmutated suite: %d tests, %.0f s" % (len(tests), base),
              flush=True)
        for t, why in broken:
            print("  left out (fails unmutated): %s: %s" % (t, why))
        tests = [t for t in tests if t not in [b[0] for b in broken]]

        results = {}
        lock = threading.Lock()
        queue = list(todo)

        def work(w):
            while True:
                with lock:
                    if not queue:
                        return
                    m = queue.pop(0)
                status, why, secs = run_mutant(w, m, tests, durations, args)
                with lock:
                    results[m.name] = (status, why)
                    print("%-9s %-32s %-9s %5.0f s  %s"
                          % (status.upper(), m.name, m.folder, secs, why),
                          flush=True)

        threads = [threading.Thread(target=work, args=(w,)) for w in workers]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        if not args.keep and not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)

    print()
    print("%-10s %7s %7s %8s %7s %5s %6s" % ("folder", "killed", "survived",
          "invalid", "stale", "equiv", "rate"))
    tot = [0, 0, 0, 0, 0]
    for f in FOLDERS:
        ms = [m for m in mutants if m.folder == f]
        c = [sum(1 for m in ms if results.get(m.name, ("",))[0] == s)
             for s in ("killed", "survived", "invalid", "stale")]
        c.append(sum(1 for m in ms if m.equivalent))
        tot = [a + b for a, b in zip(tot, c)]
        rate = "%5.1f%%" % (100.0 * c[0] / (c[0] + c[1])) \
            if c[0] + c[1] else "    -"
        print("%-10s %7d %7d %8d %7d %5d %6s" % (f, *c, rate))
    rate = "%5.1f%%" % (100.0 * tot[0] / (tot[0] + tot[1])) \
        if tot[0] + tot[1] else "    -"
    print("%-10s %7d %7d %8d %7d %5d %6s" % ("all", *tot, rate))
    print("(rate = killed / (killed + survived); invalid, stale and "
          "equivalent mutants are not in it)")
    surv = [m for m in mutants if results.get(m.name, ("",))[0] == "survived"]
    if surv:
        print("\nsurvivors:")
        for m in surv:
            print("  %-32s %s: %s" % (m.name, m.path, m.desc))
    for label, st in (("invalid (did not compile)", "invalid"),
                      ("STALE (fix the list)", "stale")):
        ms = [m for m in mutants if results.get(m.name, ("",))[0] == st]
        if ms:
            print("\n%s:" % label)
            for m in ms:
                print("  %-32s %s: %s" % (m.name, m.path,
                                          results[m.name][1]))
    eq = [m for m in mutants if m.equivalent]
    if eq:
        print("\nequivalent (not run, not in the rate):")
        for m in eq:
            print("  %-32s %s: %s" % (m.name, m.path, m.equivalent))
    print("\n%.0f s in all" % (time.time() - t_start))
    return 1 if tot[3] else 0


if __name__ == "__main__":
    sys.exit(main())
