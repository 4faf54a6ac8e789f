#!/bin/sh
# run.sh: mutation testing.  Applies each mutant of
# tests/mutate/mutants.txt to a scratch copy of the tree, runs the test
# suite and prints the kill rate by folder.  tests/mutate/run.sh --help
# lists the options; the README's "Mutation testing" section says more.
here=$(dirname "$0")
exec python3 "$here/mutate.py" "$@"
