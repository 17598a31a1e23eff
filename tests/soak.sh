#!/bin/sh
# Soak: one integration script ROUNDS times per variant, zero failures expected.
# Usage: tests/soak.sh BUILD_DIR ROUNDS SCRIPT VARIANT...
#   SCRIPT is a script of tests/integration (exit.sh: the exit cases;
#   rcv_thread.sh: the receive thread running handlers beside the application).
build=$(cd "$1" && pwd) rounds=$2 script=$3; shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$top/tests/integration/$script" ]; then
    echo "soak: no script tests/integration/$script" >&2
    exit 2
fi
log=$(mktemp /tmp/gp-soak.XXXXXX)
trap 'rm -f "$log"' EXIT
for variant in "$@"; do
    round=1
    while [ "$round" -le "$rounds" ]; do
        echo "== $script, $variant: round $round of $rounds"
        GPTEST_VARIANT=$variant GPTEST_BIN="$build/$variant/bin" \
            GPTEST_ITEST="$build/$variant/tests/integration" sh "$top/tests/integration/$script" |
            sed -E "s#^(ok|FAIL|skip) #\1 $variant:r$round:#" | tee -a "$log" | grep -v '^ok '
        round=$((round + 1))
    done
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
ended=$(grep -c '^# end of tests$' "$log")
runs=$(($# * rounds))
echo "$script: $passed passed, $failed failed, $ended of $runs runs reached their end"
[ "$failed" -eq 0 ] && [ "$ended" -eq "$runs" ]
