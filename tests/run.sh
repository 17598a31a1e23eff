#!/bin/sh
# Runs every test suite of the given build variants and ends with the line
# "N passed, N failed".  Usage: tests/run.sh BUILD_DIR VARIANT...
#
# Unit tests are programs under BUILD/VARIANT/tests/unit; integration tests
# are the scripts tests/integration/*.sh, which launch real processes with
# gp-run.  Every test prints one line: "ok NAME", "FAIL NAME: why" or
# "skip NAME: why".
build=$(cd "$1" && pwd); shift   # absolute: scripts may change directory
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp /tmp/gp-check.XXXXXX)
trap 'rm -f "$log"' EXIT INT TERM

for variant in "$@"; do
    dir="$build/$variant"
    echo "== $variant: unit tests"
    for prog in "$dir"/tests/unit/*; do
        [ -x "$prog" ] || continue
        "$prog" 2>"$log.err" | sed -E "s#^(ok|FAIL|skip) #\1 $variant:#" | tee -a "$log"
        if [ -s "$log.err" ] && grep -q 'ERROR: AddressSanitizer\|runtime error:' "$log.err"; then
            echo "FAIL $variant:$(basename "$prog"): sanitizer report" | tee -a "$log"
            sed 's/^/    /' "$log.err" | head -40
        fi
    done
    echo "== $variant: integration tests"
    for script in "$top"/tests/integration/*.sh; do
        [ -f "$script" ] || continue
        GPTEST_VARIANT=$variant GPTEST_BIN="$dir/bin" GPTEST_ITEST="$dir/tests/integration" \
            sh "$script" 2>&1 | sed -E "s#^(ok|FAIL|skip) #\1 $variant:#" | tee -a "$log"
    done
done
rm -f "$log.err"
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
if [ "$failed" -gt 0 ]; then
    echo
    echo "failures:"
    grep '^FAIL ' "$log"
fi
echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
