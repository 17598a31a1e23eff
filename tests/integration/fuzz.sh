#!/bin/sh
# The libFuzzer targets of tests/fuzz (built by "make fuzz", which make check
# runs), each for FUZZ_SECONDS (default 20) from the seed corpus: what a
# hostile peer can send into the tcp receive path must never reach outside
# the registered region or hit undefined behaviour.  Once per check, with
# the seq variant (the targets carry their own sanitizers).
. "$(dirname "$0")/../lib.sh"

[ "${GPTEST_VARIANT:-seq}" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gp-fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
for source in "$top"/tests/fuzz/*.c; do
    name=$(basename "$source" .c)
    target=$top/build-fuzz/$name
    if [ ! -x "$target" ]; then
        echo "skip fuzz/$name: $target is not built (make fuzz needs clang's libFuzzer)"
        continue
    fi
    mkdir -p "$tmp/$name"
    cp "$top"/tests/fuzz/corpus/* "$tmp/$name/"
    if (cd "$tmp" && timeout -k 5 $(( ${FUZZ_SECONDS:-20} + 60 )) "$target" \
            -max_total_time="${FUZZ_SECONDS:-20}" -timeout=10 "$tmp/$name" >"$tmp/$name.log" 2>&1); then
        pass "fuzz/$name"
    else
        fail "fuzz/$name" "$(grep -m1 -E 'ERROR|runtime error|SUMMARY|deadly' "$tmp/$name.log")"
        grep -A12 -E 'ERROR: |runtime error' "$tmp/$name.log" | head -30 | sed 's/^/    /'
        ls "$tmp"/crash-* "$tmp"/timeout-* 2>/dev/null | sed 's/^/    input: /'
    fi
done
end_tests
