#!/bin/sh
# setup.sh: the whole set-up on a fresh Debian 12 machine, as root.
# Installs the build dependencies that are missing, builds statbench, and
# runs the headline command.  Run it from the top of the source tree:
#     sh setup.sh
set -eu
cd "$(dirname "$0")"

# Debian packages: the toolchain, the three libraries, gnuplot for figures,
# python3 for the command-line tests' JSON and CSV checks.
pkgs="build-essential autoconf automake libtool pkg-config libgsl-dev
libpapi-dev libjansson-dev gnuplot-nox python3"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: run as root to install:$missing" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"

./statbench --kernel movsl --align 0..32 --ci 95
