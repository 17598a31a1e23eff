#!/bin/sh
# make scale: runs every tests/scale/*.sh in name order against build/<variant>
# and prints the figures each one measures (doc/scale.md says what they mean).
# A script prints "figure: NAME = VALUE UNIT (target ...)" lines and exits 0
# when it could measure, non-zero when a measurement failed; a script that
# cannot run here (no VM, no netns) prints "skipped: why" and exits 77.
# Usage: sh tests/scale/run.sh BUILD_DIR [script ...]
build=${1:?usage: run.sh BUILD_DIR [script ...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
    set -- "$here"/[0-9]*.sh
fi
failed=0
for script in "$@"; do
    [ -f "$script" ] || { echo "scale: no such script: $script" >&2; failed=1; continue; }
    name=$(basename "$script" .sh)
    echo "== $name"
    GP_BUILD="$build" sh "$script"
    rc=$?
    case $rc in
        0) ;;
        77) echo "   ($name skipped)" ;;
        *) echo "   ($name FAILED with status $rc)"; failed=1 ;;
    esac
done
exit $failed
