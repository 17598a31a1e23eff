#!/bin/sh
# tests/run.sh itself: a unit program that crashes half way, one that exits
# non-zero without a FAIL line, a script that dies before its end and a
# script that exits non-zero after it must each be a FAIL line naming it;
# results that did come still count.  Runs fake suites in a scratch tree.
. "$(dirname "$0")/../lib.sh"
[ "$GPTEST_VARIANT" = seq ] || end_tests
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/gp-runner-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
T=runner
mkdir -p "$tmp/build/v/tests/unit" "$tmp/scripts"

# Unit programs: shell stand-ins for the harness's programs.
cat >"$tmp/build/v/tests/unit/crash_half_way" <<'P'
#!/bin/sh
echo "plan 3"; echo "ok u/first"; kill -SEGV $$
P
cat >"$tmp/build/v/tests/unit/silent_status" <<'P'
#!/bin/sh
echo "plan 1"; echo "ok u/only"; exit 3
P
cat >"$tmp/build/v/tests/unit/no_plan" <<'P'
#!/bin/sh
exit 1
P
cat >"$tmp/build/v/tests/unit/hangs" <<P
#!/bin/sh
echo "plan 1"; sleep 300
P
cat >"$tmp/build/v/tests/unit/good" <<'P'
#!/bin/sh
echo "plan 2"; echo "ok u/a"; echo "skip u/b: not here"
P
chmod +x "$tmp/build/v/tests/unit/"*
# Scripts, with the real lib.sh.
for s in dies_half_way late_status hangs good; do
    printf '. "%s/tests/lib.sh"\n' "$top" >"$tmp/scripts/$s.sh"
done
echo 'pass s/before; kill -KILL $$; pass s/after; end_tests' >>"$tmp/scripts/dies_half_way.sh"
echo 'pass s/late; echo "# end of tests"; exit 4' >>"$tmp/scripts/late_status.sh"
echo 'pass s/good; end_tests' >>"$tmp/scripts/good.sh"
# A script stuck waiting for a child: both must go when the limit strikes.
printf 'pass s/hangs\nsleep 300 & echo $! >"%s/hang_child"\nwait\nend_tests\n' "$tmp" >>"$tmp/scripts/hangs.sh"

env GPTEST_SCRIPTS="$tmp/scripts" GPTEST_UNIT_LIMIT=2 GPTEST_SCRIPT_LIMIT=3 GPTEST_BIN=/nonexistent GPTEST_ITEST=/nonexistent \
    sh "$top/tests/run.sh" "$tmp/build" v >"$tmp/out" 2>&1
rc=$?
check() { # NAME PATTERN: the runner's output has a line matching PATTERN
    if grep -qE "$2" "$tmp/out"; then pass "$T/$1"; else fail "$T/$1" "no line /$2/ in: $(tr '\n' '|' <"$tmp/out")"; fi
}
check crash_half_way '^FAIL v:unit/crash_half_way: reported 1 of 3 results \(was killed by signal 11\)'
check silent_status '^FAIL v:unit/silent_status: exited with status 3 but reported no failure'
check no_plan '^FAIL v:unit/no_plan: printed no plan line \(exited with status 1\)'
check dies_half_way '^FAIL v:integration/dies_half_way.sh: ended before its end \(was killed by signal 9\)'
check late_status '^FAIL v:integration/late_status.sh: exited with status 4 after its end'
check unit_limit '^FAIL v:unit/hangs: still running after 2 s \(GPTEST_UNIT_LIMIT\): killed$'
check script_limit '^FAIL v:integration/hangs.sh: still running after 3 s \(GPTEST_SCRIPT_LIMIT\): killed after: ok v:s/hangs$'
# The slowest-suites summary: the two that hit their limits lead it (3 s, then 2 s or more).
check slowest "^slowest suites \(seconds; all of them in .*/check-times.txt\):\$"
if sed -n '/^slowest suites/{n;p;q}' "$tmp/out" | grep -qE '^ +[3-9][0-9]* v:integration/hangs.sh$'; then pass "$T/slowest_first"
else fail "$T/slowest_first" "the script stopped at 3 s does not lead the summary: $(sed -n '/^slowest suites/,/^$/p' "$tmp/out" | tr '\n' '|')"; fi
# Every suite's seconds are kept in the build directory, not only the twelve shown.
suites_timed=$(wc -l <"$tmp/build/check-times.txt" 2>/dev/null || echo 0)
suites_run=$(ls "$tmp/build/v/tests/unit" "$tmp/scripts" | grep -vc '^$\|:$')
if [ "$suites_timed" -eq "$suites_run" ]; then pass "$T/times_kept ($suites_timed suites)"
else fail "$T/times_kept" "$tmp/build/check-times.txt has $suites_timed lines for $suites_run suites"; fi
check summary '^7 passed, 7 failed, 1 skipped$'
child=$(cat "$tmp/hang_child" 2>/dev/null)
if [ -n "$child" ] && [ -z "$(pids_alive sleep "$child")" ]; then pass "$T/limit_kills_children"
else fail "$T/limit_kills_children" "the stuck script's child ${child:-?} outlived it"; kill "$child" 2>/dev/null; fi
if [ "$rc" -ne 0 ]; then pass "$T/exit_status"; else fail "$T/exit_status" "tests/run.sh exited 0 with failures"; fi
if grep -q 'FAIL v:unit/good\|FAIL v:integration/good' "$tmp/out"; then
    fail "$T/good_suites" "a complete suite was taken for a failed one: $(grep good "$tmp/out")"
else
    pass "$T/good_suites"
fi
end_tests
