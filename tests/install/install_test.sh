#!/usr/bin/env bash
# install_test.sh SRCDIR BUILDDIR - cmake --install into a scratch prefix, then build and run a
# consumer with find_package(agio) and another with pkg-config; both must reach agio.
set -eu
src=$1 build=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/agio-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/agio.h"
test -f "$prefix/lib/pkgconfig/agio-openmpi.pc"
cmake -S "$src/tests/install/consumer" -B "$prefix/cbuild" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cbuild" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" timeout 60 "$prefix/cbuild/consumer"
# pkg-config consumer: the .pc puts libagio ahead of the MPI library.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -o "$prefix/pc_consumer" "$src/tests/install/consumer/consumer.c" \
    $(pkg-config --cflags agio-openmpi) $(pkg-config --libs agio-openmpi) -Wl,-rpath,"$prefix/lib"
timeout 60 "$prefix/pc_consumer"
echo "1 passed, 0 failed"
