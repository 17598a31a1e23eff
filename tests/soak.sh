#!/bin/sh
# Soak: the exit cases, ROUNDS times per variant, zero failures expected.
# Usage: tests/soak.sh BUILD_DIR ROUNDS VARIANT...
build=$(cd "$1" && pwd) rounds=$2; shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp /tmp/gp-soak.XXXXXX)
trap 'rm -f "$log"' EXIT
for variant in "$@"; do
    round=1
    while [ "$round" -le "$rounds" ]; do
        echo "== $variant: round $round of $rounds"
        GPTEST_VARIANT=$variant GPTEST_BIN="$build/$variant/bin" \
            GPTEST_ITEST="$build/$variant/tests/integration" sh "$top/tests/integration/exit.sh" |
            sed -E "s#^(ok|FAIL|skip) #\1 $variant:r$round:#" | tee -a "$log" | grep -v '^ok '
        round=$((round + 1))
    done
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
