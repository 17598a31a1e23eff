#!/bin/sh
# The suite shares its machine: other gp jobs (other builds, other users)
# create and remove their own /dev/shm objects and processes while the tests
# run.  This runs the exit and ptl_shm groups, which check what a job leaves
# behind, while a neighbour floods the same host with AM jobs of its own, one
# after the other; every test must pass as it does alone, and no test may
# touch the neighbour: each neighbour job must end with status 0 and leave
# nothing behind.
. "$(dirname "$0")/../lib.sh"
case "$GPTEST_VARIANT" in seq|asan) ;; *) end_tests ;; esac
here=$(cd "$(dirname "$0")" && pwd)
T=neighbour
tmp=$(mktemp -d /tmp/gp-neighbour.XXXXXX)
stop_neighbour() { touch "$tmp/stop"; [ -n "$neighbour" ] && wait "$neighbour"; }
trap 'stop_neighbour; rm -rf "$tmp"' EXIT INT TERM

# The neighbour: 3-rank AM floods to node 0 with no pause, one job after the other.
(
    round=0
    while [ ! -e "$tmp/stop" ]; do
        timeout -k 5 120 "$GP_RUN" -v -n 3 "$GPTEST_ITEST/am_flood" 3000 0 >"$tmp/flood.$round" 2>&1
        echo "$round $?" >>"$tmp/flood.rcs"
        round=$((round + 1))
    done
) &
neighbour=$!

# group SCRIPT: runs one group with its names under neighbour/; a group that
# does not reach its end is a failure here too.
group() {
    sh "$here/$1.sh" >"$tmp/$1.out" 2>&1
    sed -E -e '/^# end of tests$/d' -e "s#^(ok|FAIL|skip) #\\1 $T/#" "$tmp/$1.out"
    grep -q '^# end of tests$' "$tmp/$1.out" || fail "$T/$1" "the group ended before its end: $(tail -2 "$tmp/$1.out" | tr '\n' ' ')"
}
# exit's cases at 8 nodes, where a job has the most /dev/shm objects and processes a
# neighbour could be confused with (exit.sh itself runs them at 2 too).
GPTEST_EXIT_SIZES=8 group exit
group ptl_shm

stop_neighbour
neighbour=
rounds=$(wc -l <"$tmp/flood.rcs" 2>/dev/null || echo 0)
bad=$(awk '$2 != 0 { printf " job %d: status %d;", $1, $2 }' "$tmp/flood.rcs" 2>/dev/null)
# What the neighbour's jobs left, all logs at once: the neighbour runs a thousand jobs and
# more, and a few processes per log would cost more than the groups themselves.
leftover=""
for log in $(grep -L '^gp-run: job [0-9a-f]\{16\}: ' "$tmp"/flood.[0-9]*); do
    bad="$bad $(basename "$log"): no job id;"
done
ids=$(cat "$tmp"/flood.[0-9]* | sed -n 's/^gp-run: job \([0-9a-f]\{16\}\): .*/\1/p')
leftover=$(ls /dev/shm 2>/dev/null | awk -v ids="$ids" '
    BEGIN { n = split(ids, list, "\n"); for (i = 1; i <= n; i++) mine["gp-" list[i]] = 1 }
    { split($0, part, "-"); if (("gp-" part[2]) in mine && part[1] == "gp") printf " %s", $0 }')
# Only the pids that still exist go to pids_alive (one test per pid, in the shell).
existing=""
for pid in $(cat "$tmp"/flood.[0-9]* | sed -n 's/^gp-run: rank [0-9]* started as pid \([0-9]*\)$/\1/p'); do
    [ -e "/proc/$pid" ] && existing="$existing $pid"
done
# shellcheck disable=SC2086
alive=$([ -z "$existing" ] || pids_alive am_flood $existing)
[ -z "$alive" ] || leftover="$leftover $alive"
if [ "$rounds" -lt 1 ]; then
    fail "$T/flood_jobs" "the neighbour ran no job"
elif [ -n "$bad" ]; then
    fail "$T/flood_jobs" "the neighbour's jobs failed beside the tests:$bad"
    for log in "$tmp"/flood.[0-9]*; do grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -3; done | head -20 | sed 's/^/    /'
elif [ -n "$leftover" ]; then
    fail "$T/flood_jobs" "the neighbour's jobs left:$leftover"
else
    pass "$T/flood_jobs ($rounds neighbour jobs, all clean)"
fi
end_tests
