#!/bin/sh
# Runs every test suite of the given build variants and ends with the line
# "N passed, N failed".  Usage: tests/run.sh BUILD_DIR VARIANT...
#
# Unit tests are programs under BUILD/VARIANT/tests/unit; integration tests
# are the scripts tests/integration/*.sh, which launch real processes with
# gp-run.  Every test prints one line: "ok NAME", "FAIL NAME: why" or
# "skip NAME: why".
#
# A suite cannot make its tests vanish: a unit program first prints "plan N"
# (tests/harness/runner.c) and must report N results and exit 0 unless it
# reported a FAIL; a script must reach its end (lib.sh's end_tests prints
# "# end of tests") and exit 0.  Anything else is a FAIL line naming the
# program or script, with its exit status and last words.
# GPTEST_SCRIPTS=DIR runs the scripts of DIR instead (the runner's own test).
# No suite can hang the run: a unit program still running after
# GPTEST_UNIT_LIMIT seconds (default 600), or a script after
# GPTEST_SCRIPT_LIMIT (default 1800), is killed with everything it started
# (timeout signals its whole process group) and is a FAIL saying so.
unit_limit=${GPTEST_UNIT_LIMIT:-600}
script_limit=${GPTEST_SCRIPT_LIMIT:-1800}
build=$(cd "$1" && pwd); shift   # absolute: scripts may change directory
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp /tmp/gp-check.XXXXXX)
one=$(mktemp /tmp/gp-check-one.XXXXXX)
times=$(mktemp /tmp/gp-check-times.XXXXXX)
# A signal ends the run (a trap alone would run on with its files gone).
trap 'rm -f "$log" "$log.err" "$one" "$one.rc" "$times"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# status_words RC: "exited with status N" or "was killed by signal N".
status_words() {
    if [ "$1" -gt 128 ]; then echo "was killed by signal $(($1 - 128))"; else echo "exited with status $1"; fi
}
# verdict LINE: one line of the runner's own, shown and counted.
verdict() { echo "$1" | tee -a "$log"; }
# run_suite LABEL CMD...: runs CMD with its results shown live and kept in
# $one, its exit status in $rc, its seconds in $times (for the slowest-suites
# summary that says what to move to make soak when check grows).
run_suite() {
    label=$1; shift
    rm -f "$one.rc"
    started=$(date +%s)
    { "$@" 2>&1; echo $? >"$one.rc"; } | sed -E "s#^(ok|FAIL|skip) #\1 $variant:#" | tee "$one"
    echo "$(($(date +%s) - started)) $label" >>"$times"
    rc=$(cat "$one.rc" 2>/dev/null || echo 255)
    cat "$one" >>"$log"
    results=$(grep -c '^\(ok\|FAIL\|skip\) ' "$one")
    fails=$(grep -c '^FAIL ' "$one")
}

for variant in "$@"; do
    dir="$build/$variant"
    echo "== $variant: unit tests"
    for prog in "$dir"/tests/unit/*; do
        [ -x "$prog" ] || continue
        name=$variant:unit/$(basename "$prog")
        run_suite "$name" timeout -k 10 "$unit_limit" sh -c '"$1" 2>"$2"' sh "$prog" "$log.err"
        if [ "$rc" -eq 124 ]; then
            verdict "FAIL $name: still running after $unit_limit s (GPTEST_UNIT_LIMIT): killed"
            continue
        fi
        planned=$(sed -n 's/^plan \([0-9]*\)$/\1/p' "$one" | head -1)
        if [ -z "$planned" ]; then
            verdict "FAIL $name: printed no plan line ($(status_words "$rc")): $(tail -1 "$one")"
        elif [ "$results" -lt "$planned" ]; then
            verdict "FAIL $name: reported $results of $planned results ($(status_words "$rc")); the rest vanished after: $(tail -1 "$one")"
        elif [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
            verdict "FAIL $name: $(status_words "$rc") but reported no failure"
        fi
        if [ -s "$log.err" ] && grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$log.err"; then
            verdict "FAIL $name: sanitizer report"
            sed 's/^/    /' "$log.err" | head -40
        fi
    done
    echo "== $variant: integration tests"
    for script in "${GPTEST_SCRIPTS:-$top/tests/integration}"/*.sh; do
        [ -f "$script" ] || continue
        name=$variant:integration/$(basename "$script")
        run_suite "$name" timeout -k 10 "$script_limit" env GPTEST_VARIANT="$variant" \
            GPTEST_BIN="$dir/bin" GPTEST_ITEST="$dir/tests/integration" sh "$script"
        if [ "$rc" -eq 124 ]; then
            verdict "FAIL $name: still running after $script_limit s (GPTEST_SCRIPT_LIMIT): killed after: $(grep -v '^    ' "$one" | tail -1)"
        elif ! grep -q '^# end of tests$' "$one"; then
            verdict "FAIL $name: ended before its end ($(status_words "$rc")): $(grep -v '^    ' "$one" | tail -1)"
        elif [ "$rc" -ne 0 ]; then
            verdict "FAIL $name: $(status_words "$rc") after its end"
        fi
    done
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
if [ "$failed" -gt 0 ]; then
    echo
    echo "failures:"
    grep '^FAIL ' "$log"
fi
echo
echo "slowest suites (seconds; all of them in $build/check-times.txt):"
sort -rn "$times" | tee "$build/check-times.txt" | head -12 | sed 's/^/    /'
echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
