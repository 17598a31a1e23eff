#!/bin/sh
# Installs the Debian packages gp needs to build and test, when missing.
# Run by "make demo" and "make check"; safe to run again (it installs
# nothing when everything is present).
set -e
packages="build-essential clang pkg-config libpopt-dev libibverbs-dev libncurses-dev libssl-dev libpmix-dev
          procps psmisc groff-base tmux openssh-server openssh-client iproute2"
missing=
for pkg in $packages; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "gp: these Debian packages are missing:$missing" >&2
    echo "gp: install them as root (apt-get install$missing) and run make again" >&2
    exit 1
fi
echo "gp: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
