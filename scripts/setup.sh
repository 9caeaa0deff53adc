#!/usr/bin/env bash
# setup.sh - install what agio needs from Debian's packages (as root) and build it.
# Idempotent: skips apt when everything is already installed. Usage: scripts/setup.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(build-essential cmake pkg-config gfortran openmpi-bin libopenmpi-dev mpich libmpich-dev
      libhdf5-openmpi-dev hdf5-tools python3 python3-mpi4py)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
build=${1:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${AGIO_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
echo "setup: built agio in $build ($(ls "$build"/libagio-*.so | xargs -n1 basename | tr '\n' ' '))"
