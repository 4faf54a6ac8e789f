#!/bin/sh
# plot_cli.sh: --plot cannot be turned against the user, from the
# command line: file names and a saved run's
# strings that gnuplot would run stay text; links planted at the figure's
# files are replaced, never written through; a figure gnuplot fails to
# draw is an error that leaves nothing behind.  No measuring: the runs
# come from `analyze` and `report`.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbplotcli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
STATBENCH=$(cd "$(dirname "$STATBENCH")" && pwd)/$(basename "$STATBENCH")
have_gnuplot=$(command -v gnuplot || true)

# Deterministic numbers (no clock): 40 values around 100.
i=0
while [ $i -lt 40 ]; do
    echo $((100 + i % 7))
    i=$((i + 1))
done >"$tmp/n.txt"

# --- 1. names that gnuplot would run ----------------------------------------
mkdir "$tmp/a" && cd "$tmp/a" || exit 1
cp ../n.txt ./n.txt
cp ../n.txt './`touch PWNED1`$(touch PWNED2)@m'"'"'.txt'
sb_ok out "analyze --plot with a \`backquoted\` file name" \
    analyze ./*.txt --plot a.svg
check "  the name is a single-quoted string in the script" \
    grep -qF "'./\`touch PWNED1\`\$(touch PWNED2)@m''.txt'" a.gp
if [ -n "$have_gnuplot" ]; then
    check "  gnuplot ran nothing (no PWNED file)" \
        sh -c '! ls PWNED* >/dev/null 2>&1'
    check "  the figure drawn, the name shown as written" \
        grep -qF '`touch PWNED1`$(touch PWNED2)@m' a.svg
else
    skip "  gnuplot ran nothing" "no gnuplot"
    skip "  the figure drawn" "no gnuplot"
fi

# A saved run whose kernel name and CPU model hold commands.
cat >evil.json <<'EOF'
{"schema": "statbench-run", "schema_version": 1,
 "meta": {"cpu_model": "CPU `touch PWNED3` $(touch PWNED4) \"q\" 'x' @m\\",
          "timer": {"kind": "tsc", "hz": 3e9}},
 "cells": [
  {"kernel": "k`touch PWNED5`", "size": 1024, "src_align": 0,
   "dst_align": 0, "samples_ticks": [100, 101, 102, 103, 104]},
  {"kernel": "k`touch PWNED5`", "size": 2048, "src_align": 0,
   "dst_align": 0, "samples_ticks": [200, 201, 202, 203, 204]}]}
EOF
sb_ok out "report evil.json --plot" report evil.json --plot x.svg
check "  no backquote outside a single-quoted string in the script" \
    sh -c "! sed \"s/'[^']*'//g\" x.gp | grep -v '^#' | grep -q '\`'"
if [ -n "$have_gnuplot" ]; then
    check "  gnuplot ran nothing (no PWNED file)" \
        sh -c '! ls PWNED* >/dev/null 2>&1'
else
    skip "  gnuplot ran nothing" "no gnuplot"
fi
cd "$tmp" || exit 1

# Figure names that gnuplot would open as a pipe: a file name that starts
# with '<' (a command's output) or '|' (a command's input), quoted or not.
# Every name the script opens starts with "./" or "/".
for name in '<touch PWNED6; echo 1 2.svg' '|touch PWNED7.svg'; do
    sb_ok out "analyze --plot '$name'" analyze ./n.txt --plot "$name"
    check "  the script opens its data as ./NAME, never as a pipe" \
        grep -qF "dir = './'.dir" "${name%.svg}.gp"
    if [ -n "$have_gnuplot" ]; then
        check "  gnuplot ran nothing (no PWNED file), the figure is there" \
            sh -c '! ls PWNED* >/dev/null 2>&1 && test -s "$1"' _ "$name"
    else
        skip "  gnuplot ran nothing" "no gnuplot"
    fi
done

# --- 2. links planted at the figure's files -------------------------------
# Another user's links at FIG.gp, FIG.dat and FIG.svg, pointing at a
# private file: the run replaces the links and the file keeps its bytes.
mkdir "$tmp/l" && cd "$tmp/l" || exit 1
echo secret >victim
chmod 600 victim
for e in gp dat svg; do ln -s victim "fig.$e"; done
ln -s created-through-link dangling.gp
"$STATBENCH" analyze ../n.txt --plot fig.svg >out 2>err
rc=$?
check "--plot over planted links exits 0 (rc $rc)" test "$rc" -eq 0
check "  the linked file keeps its contents and mode" \
    sh -c '[ "$(cat victim)" = secret ] && [ "$(stat -c %a victim)" = 600 ]'
check "  fig.gp and fig.dat are new files in the links' place" \
    sh -c '[ -f fig.gp ] && [ ! -L fig.gp ] && [ -f fig.dat ] && [ ! -L fig.dat ]'
if [ -n "$have_gnuplot" ]; then
    check "  so is the figure" sh -c '[ -f fig.svg ] && [ ! -L fig.svg ]'
else
    skip "  so is the figure" "no gnuplot"
fi
"$STATBENCH" analyze ../n.txt --plot dangling.svg >out 2>err
check "  a dangling link's target is not created" \
    sh -c '[ ! -e created-through-link ] && [ ! -L dangling.gp ]'
cd "$tmp" || exit 1

# --- 3. a figure gnuplot fails to draw ------------------------------------
mkdir "$tmp/f" "$tmp/bin" && cd "$tmp/f" || exit 1
cat >"$tmp/bin/gnuplot" <<'EOF'
#!/bin/sh
# A gnuplot that writes part of the figure and fails.
out=${2#out=\'}
out=${out%\'}
echo '<svg partial' >"$out"
echo '"x.gp" line 3: something went wrong' >&2
exit 1
EOF
chmod +x "$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" "$STATBENCH" analyze ../n.txt --plot bad.svg \
    >out 2>err
rc=$?
check "a failing gnuplot: exit 1 (rc $rc)" test "$rc" -eq 1
# (Beside a note: n.txt is too short for analyze's pooled check.)
check "  one line saying so" sh -c \
    '[ "$(grep -vc "^statbench: note: " err)" -eq 1 ] && grep -q "gnuplot failed.*went wrong" err'
check "  no figure and no temporary file left" \
    sh -c '! ls bad.svg* >/dev/null 2>&1'
check "  the script and data stay, to render by hand" \
    test -s bad.gp -a -s bad.dat
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" "$STATBENCH" analyze ../n.txt --plot none.svg \
    >out 2>err
rc=$?
check "a gnuplot that draws nothing: exit 1 (rc $rc)" test "$rc" -eq 1
check "  one line saying so, no file left" sh -c \
    '[ "$(grep -vc "^statbench: note: " err)" -eq 1 ] && grep -q "drew nothing" err &&
     ! ls none.svg* >/dev/null 2>&1'
cd "$tmp" || exit 1

done_testing
