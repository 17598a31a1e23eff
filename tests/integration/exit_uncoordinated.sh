#!/bin/sh
# An exit that cannot be coordinated costs one exit timeout, not two: node
# 0 calls gasnet_exit(15) a second in while the other nodes
# compute without ever entering the library again.  Node 0 waits one exit
# timeout for them, aborts the job, and the others, told to stop while
# outside the library, end at once instead of waiting for gp-run's SIGKILL.
# gp-run(1) states the bound: the job ends within the exit timeout and about
# half a second of the exit call; the test allows the timeout + 1 s (+ 2 s
# more under the sanitizers), timed from the job's own log.  When the others
# wait in a barrier instead, the exit is coordinated as before: every node
# runs its exit path.
. "$(dirname "$0")/../lib.sh"

T=exit_uncoordinated
case "${GPTEST_VARIANT:-seq}" in *asan) slack_ms=3000 ;; *) slack_ms=1000 ;; esac
log=$(mktemp /tmp/gp-exit-unc.XXXXXX)
trap 'rm -f "$log"' EXIT

# late_case NAME N MODE: runs exit_cases MODE 15 on N nodes; sets rc,
# elapsed_ms (from node 0's exit call to the job's end), limit_ms, jobid, left,
# after.  Returns non-zero (having said FAIL) when the job can't be judged.
late_case() {
    name=$1 n=$2 mode=$3
    GP_LOG_LEVEL=info timeout -k 5 60 env ${exit_timeout:+GASNET_EXITTIMEOUT=$exit_timeout} \
        "$GP_RUN" -v -n "$n" "$GPTEST_ITEST/exit_cases" "$mode" 15 >"$log" 2>&1
    rc=$?
    end_ms=$(date +%s%3N)
    jobid=$(job_id "$log")
    left=$(job_alive "$log" exit_cases)
    after=$(job_shm "$jobid")
    called_ms=$(sed -n 's/^exit_cases: node 0 calls gasnet_exit at \([0-9]*\)$/\1/p' "$log" | head -1)
    timeout_s=$(sed -n 's/^gp-run: job [0-9a-f]*: .*; exit timeout \([0-9.]*\) s$/\1/p' "$log" | head -1)
    if [ -z "$jobid" ] || [ -z "$called_ms" ] || [ -z "$timeout_s" ]; then
        fail "$name" "no job id, exit time or exit timeout in the log (exit status $rc): $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
        [ -n "$left" ] && kill -9 $left
        return 1
    fi
    elapsed_ms=$((end_ms - called_ms))
    limit_ms=$(awk -v t="$timeout_s" -v s="$slack_ms" 'BEGIN { printf "%d", t * 1000 + s }')
    if [ -n "$left" ]; then
        fail "$name" "processes of job $jobid left behind: $left"; kill -9 $left; return 1
    elif [ -n "$after" ]; then
        fail "$name" "/dev/shm objects of job $jobid left behind: $after"; return 1
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$log"; then
        fail "$name" "sanitizer report: $(grep -m1 'ERROR\|runtime error' "$log")"; return 1
    elif [ "$rc" -ne 15 ]; then
        fail "$name" "exit status $rc, expected 15: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
        return 1
    fi
    return 0
}

for n in 2 4 8; do
    # The peers compute: node 0's exit times out, it aborts the job with its
    # code, and every other node ends when gp-run tells it to stop.
    # The timeout is waited out whole whatever its length: 1 s, not the default.
    name=$T/computing_n$n
    if exit_timeout=1 late_case "$name" $n late_computing; then
        stopped=$(grep -c '^gp\[[0-9]*/[0-9]*\] info exit: told to stop (SIGTERM) outside the library: ending now' "$log")
        if ! grep -q "^gp\[0/$n\] info exit: exit code 15, coordination timed out" "$log" ||
           ! grep -q 'rank 0 (pid [0-9]*) aborted the job with exit code 15: the exit could not be coordinated' "$log"; then
            fail "$name" "node 0 did not time out and abort: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
        elif [ "$stopped" -ne $((n - 1)) ]; then
            fail "$name" "$stopped of the $((n - 1)) computing nodes ended at once when told to stop: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
        elif grep -q 'sending SIGKILL' "$log"; then
            fail "$name" "gp-run had to kill: $(grep -m1 'sending SIGKILL' "$log")"
        elif [ "$elapsed_ms" -gt "$limit_ms" ]; then
            fail "$name" "the job ended ${elapsed_ms} ms after the exit call, more than ${limit_ms} ms (exit timeout ${timeout_s} s)"
        else
            pass "$name (ended ${elapsed_ms} ms after the exit call; exit timeout ${timeout_s} s, limit ${limit_ms} ms)"
        fi
    fi
    # The peers wait in a barrier: they poll, so the exit is coordinated and
    # every node runs its exit path, long before any timeout.
    name=$T/barrier_n$n
    if late_case "$name" $n late_barrier; then
        coordinated=$(grep -c '^gp\[[0-9]*/[0-9]*\] info exit: exit code 15, coordinated,' "$log")
        if [ "$coordinated" -ne "$n" ]; then
            fail "$name" "$coordinated of $n nodes ran a coordinated exit: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
        elif grep -q 'aborted the job\|told to stop\|sending SIG' "$log"; then
            fail "$name" "not an orderly exit: $(grep -m1 'aborted the job\|told to stop\|sending SIG' "$log")"
        elif [ "$elapsed_ms" -gt "$limit_ms" ]; then
            fail "$name" "the job ended ${elapsed_ms} ms after the exit call, more than ${limit_ms} ms"
        else
            pass "$name (ended ${elapsed_ms} ms after the exit call)"
        fi
    fi
done
end_tests
