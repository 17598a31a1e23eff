#!/bin/sh
# Installs the Debian packages gp needs to build and test, when missing.
# Run by "make demo" and "make check"; safe to run again (it installs
# nothing when everything is present).
#
# Two groups: what every build and test needs (an error when missing), and
# what only the ibv tests need to boot their Soft-RoCE VM (tests/ibv/vm):
# qemu and the tools to build its initramfs, the rxe verbs provider, and
# perftest for make bench-ibv.  Qemu cannot be installed everywhere, so the
# second group is optional: when it fails, make check goes on and the ibv
# tests print "skip ibv/...: why".  A failed attempt is not repeated for a
# day (remove $vm_failed to try again at once).
#
# "tools/deps.sh arm" (make check-arm) also installs a third group, never
# installed otherwise: the aarch64 cross compiler and its C library, and
# qemu-user to run what it builds.  There a failure is an error, as
# check-arm has nothing to run without them.
set -e
want_arm=0
[ "${1:-}" = arm ] && want_arm=1
packages="build-essential clang pkg-config libpopt-dev libibverbs-dev libibverbs1 ibverbs-providers
          libfabric-dev libfabric1 libfabric-bin
          libncurses-dev libpmix-dev cmake
          procps psmisc groff-base tmux openssh-server openssh-client iproute2"
vm_packages="qemu-system-x86 busybox-static kmod cpio bc rdma-core ibverbs-utils perftest"
vm_failed=${GP_IBV_VM_DIR:-/var/tmp/gp-ibv-vm}/deps-failed
arm_packages="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static"

missing_of() { # PACKAGE...: prints those not installed
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
            printf ' %s' "$pkg"
    done
}
# shellcheck disable=SC2086
missing=$(missing_of $packages)
# shellcheck disable=SC2086
vm_missing=$(missing_of $vm_packages)
arm_missing=
# shellcheck disable=SC2086
[ $want_arm -eq 1 ] && arm_missing=$(missing_of $arm_packages)
# Required when asked for: they join the first group.
missing="$missing$arm_missing"
# A recent failure: don't try again (nor run apt-get update for it) yet.
if [ -n "$vm_missing" ] && [ -n "$(find "$vm_failed" -mmin -1440 2>/dev/null)" ]; then
    vm_missing=
fi
[ -z "$missing$vm_missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    if [ -n "$missing" ]; then
        echo "gp: these Debian packages are missing:$missing" >&2
        echo "gp: install them as root (apt-get install$missing) and run make again" >&2
        exit 1
    fi
    echo "gp: the ibv tests' VM needs these Debian packages (apt-get install$vm_missing as root);" \
         "until then they are skipped" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq; then
    [ -n "$missing" ] && exit 1
    echo "gp: apt-get update failed; the ibv tests' VM packages stay missing:$vm_missing" >&2
    mkdir -p "$(dirname "$vm_failed")" && touch "$vm_failed"
    exit 0
fi
if [ -n "$missing" ]; then
    echo "gp: installing Debian packages:$missing"
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
if [ -n "$vm_missing" ]; then
    echo "gp: installing Debian packages for the ibv tests' VM:$vm_missing"
    # shellcheck disable=SC2086
    if apt-get install -y -qq --no-install-recommends $vm_missing; then
        rm -f "$vm_failed"
    else
        echo "gp: could not install$vm_missing; the ibv tests will be skipped" \
             "(again in a day, or remove $vm_failed)" >&2
        mkdir -p "$(dirname "$vm_failed")" && touch "$vm_failed"
    fi
fi
