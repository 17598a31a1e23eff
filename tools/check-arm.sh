#!/bin/sh
# make check-arm's runner: the aarch64 build of the library's unit tests and
# of the shm integration suites, run under qemu-user on this (x86-64) host.
# usage: tools/check-arm.sh NATIVE_BUILD ARM_BUILD SUITE...
#   NATIVE_BUILD  the host's build tree (its seq/bin/gp-run and commands)
#   ARM_BUILD     the tree make built with CC=aarch64-linux-gnu-gcc (seq-tests)
#   SUITE         scripts of tests/integration (am.sh am_ring.sh ...)
# Ends like make check, with "N passed, N failed", and fails when any failed.
#
# gp-run stays the host's own: it links popt, which Debian does not ship for
# arm64 without multiarch, and it only forks, execs and relays.  Each aarch64
# program gets a wrapper of the same name that execs it under qemu-user, so
# the ranks gp-run starts -- the library, the code under test -- are aarch64,
# with no binfmt_misc registration needed (a container often has none).
# The host's gp-run and the aarch64 ranks speak the same boot wire and map
# the same /dev/shm objects: both are 64-bit little-endian with the same
# struct layouts (LP64), which this run checks in passing.
#
# What this proves and what it cannot: the port builds with -Werror, the
# fences assemble, and every suite passes on aarch64 code.  qemu-user runs
# the guest's memory accesses on the host's x86 memory system, which keeps
# stores and loads in order, so a missing fence cannot show here; the comment
# beside each fence, naming the access it pairs with, is the proof of the
# ordering (doc/memory-model.md).
set -u
[ $# -ge 2 ] || { echo "usage: $0 NATIVE_BUILD ARM_BUILD SUITE..." >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
native=$(cd "$1/seq" && pwd) || exit 1
cross=$(cd "$2/seq" && pwd) || exit 1
shift 2

qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || {
    echo "check-arm: no qemu-aarch64(-static): apt-get install qemu-user-static (tools/deps.sh arm)" >&2
    exit 1
}
# The cross C library, where qemu looks for the aarch64 loader and libc.
sysroot=${GP_ARM_SYSROOT:-/usr/aarch64-linux-gnu}
[ -e "$sysroot/lib/ld-linux-aarch64.so.1" ] || {
    echo "check-arm: no aarch64 loader under $sysroot: apt-get install libc6-dev-arm64-cross" >&2
    exit 1
}

# A variant tree as tests/run.sh expects it: bin/ is the host's commands, the
# test programs are wrappers.  Named seq, so the suites pick SEQ's settings.
run=$(dirname "$cross")/qemu
rm -rf "$run"
mkdir -p "$run/seq/tests/unit" "$run/seq/tests/integration" "$run/scripts/integration"
ln -s "$native/bin" "$run/seq/bin"
for kind in unit integration; do
    for prog in "$cross/tests/$kind"/*; do
        [ -f "$prog" ] && [ -x "$prog" ] || continue
        wrapper="$run/seq/tests/$kind/$(basename "$prog")"
        printf '#!/bin/sh\nQEMU_LD_PREFIX=%s exec %s %s "$@"\n' "$sysroot" "$qemu" "$prog" >"$wrapper"
        chmod +x "$wrapper"
    done
done
# Only the named suites: links beside a link to lib.sh, which each sources as ../lib.sh.
ln -s "$top/tests/lib.sh" "$run/scripts/lib.sh"
for suite in "$@"; do
    [ -f "$top/tests/integration/$suite" ] || { echo "check-arm: no suite tests/integration/$suite" >&2; exit 2; }
    ln -s "$top/tests/integration/$suite" "$run/scripts/integration/$suite"
done

echo "check-arm: aarch64 programs of $cross under $qemu; gp-run and commands of $native"
echo "check-arm: qemu-user does not reproduce weak ordering: this proves the port, the fence comments the ordering"
# GPTEST_SLOW: the suites take the shorter counts of the sanitizer builds (tests/lib.sh).
GPTEST_SLOW=1 GPTEST_SCRIPTS="$run/scripts/integration" sh "$top/tests/run.sh" "$run" seq
