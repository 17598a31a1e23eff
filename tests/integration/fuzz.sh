#!/bin/sh
# The libFuzzer targets of tests/fuzz (built by "make fuzz", which make check
# runs), each for FUZZ_SECONDS (default 10; a target by hand runs longer, see
# the Makefile) from its own seed corpus,
# tests/fuzz/corpus/NAME/: what a hostile peer can send into the tcp and ibv
# receive paths, the bootstrap's control channel and agent link, or a user
# into the configuration, must never reach outside what was allocated or hit
# undefined behaviour.  Once per check, with the seq variant (the targets
# carry their own sanitizers), FUZZ_JOBS (default 2) targets at a time.
. "$(dirname "$0")/../lib.sh"

[ "${GPTEST_VARIANT:-seq}" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gp-fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
# fuzz_one NAME TARGET: one target's run, its verdict lines in $tmp/NAME.verdict.
fuzz_one() {
    name=$1 target=$2
    mkdir -p "$tmp/$name" "$tmp/$name.cwd"
    if [ -d "$top/tests/fuzz/corpus/$name" ]; then
        cp "$top/tests/fuzz/corpus/$name"/* "$tmp/$name/"
    fi
    if (cd "$tmp/$name.cwd" && timeout -k 5 $(( ${FUZZ_SECONDS:-10} + 60 )) "$target" \
            -max_total_time="${FUZZ_SECONDS:-10}" -timeout=10 "$tmp/$name" >"$tmp/$name.log" 2>&1); then
        pass "fuzz/$name"
    else
        fail "fuzz/$name" "$(grep -m1 -E 'ERROR|runtime error|SUMMARY|deadly' "$tmp/$name.log")"
        grep -A12 -E 'ERROR: |runtime error' "$tmp/$name.log" | head -30 | sed 's/^/    /'
        ls "$tmp/$name.cwd"/crash-* "$tmp/$name.cwd"/timeout-* 2>/dev/null | sed 's/^/    input: /'
    fi >"$tmp/$name.verdict"
}
# A target is one process on one core: two run at once, each for its whole time, so both
# cores fuzz and none of the fuzzing time is lost.
running=0 names=
for source in "$top"/tests/fuzz/*.c; do
    name=$(basename "$source" .c)
    target=$top/build-fuzz/$name
    if [ ! -x "$target" ]; then
        echo "skip fuzz/$name: $target is not built (make fuzz needs clang's libFuzzer)"
        continue
    fi
    fuzz_one "$name" "$target" &
    names="$names $name" running=$((running + 1))
    if [ "$running" -ge "${FUZZ_JOBS:-2}" ]; then wait; running=0; fi
done
wait
for name in $names; do
    if [ -s "$tmp/$name.verdict" ]; then cat "$tmp/$name.verdict"
    else fail "fuzz/$name" "its run ended without a verdict: $(tail -2 "$tmp/$name.log" 2>/dev/null | tr '\n' ' ')"; fi
done
end_tests
