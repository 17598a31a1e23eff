#!/bin/sh
# Every way a job can end (tests/integration/exit_cases.c): the job's exit
# code, a bound on how long it takes, no process and no /dev/shm object
# left behind; and the number of shutdown messages, which must grow as O(N).
. "$(dirname "$0")/../lib.sh"

TIMEOUT=3   # GASNET_EXITTIMEOUT for these jobs
BOUND=$((3 * TIMEOUT + 5))

# exit_case NAME N EXPECTED_CODE MODE [gp-run options...]; $want_line, when
# set, is a pattern the job's log must match
exit_case() {
    name=$1 n=$2 want=$3 mode=$4
    shift 4
    start=$(date +%s)
    GASNET_EXITTIMEOUT=$TIMEOUT timeout -k 5 60 "$GP_RUN" -v "$@" -n "$n" \
        "$GPTEST_ITEST/exit_cases" "$mode" 7 >"$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    jobid=$(job_id "$log")
    left=$(job_alive "$log" exit_cases)
    after=$(job_shm "$jobid")
    if [ -z "$jobid" ]; then
        fail "$name" "gp-run -v printed no job id (exit status $rc): $(tail -3 "$log" | tr '\n' ' ')"
    elif [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -3 | tr '\n' ' ')"
    elif [ "$elapsed" -gt "$BOUND" ]; then
        fail "$name" "took ${elapsed}s, more than ${BOUND}s"
    elif [ -n "$left" ]; then
        fail "$name" "processes of job $jobid left behind: $left"; kill -9 $left
    elif [ -n "$after" ]; then
        fail "$name" "/dev/shm objects of job $jobid left behind: $after"
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:' "$log"; then
        fail "$name" "sanitizer report: $(grep -m1 'ERROR\|runtime error' "$log")"
    elif [ -n "$want_line" ] && ! grep -q "$want_line" "$log"; then
        fail "$name" "no line /$want_line/ in: $(grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -4 | tr '\n' ' ')"
    else
        pass "$name"
    fi
    want_line=
}
want_line=   # a line the next exit_case's log must have

log=$(mktemp /tmp/gp-exit.XXXXXX)
trap 'rm -f "$log"' EXIT
# GPTEST_EXIT_SIZES: the job sizes of the cases below (neighbour.sh runs them at 8 only).
for n in ${GPTEST_EXIT_SIZES:-2 8}; do
    exit_case "exit/collective_n$n" $n 7 collective
    exit_case "exit/one_polling_n$n" $n 7 one_polling
    exit_case "exit/one_in_barrier_n$n" $n 7 one_barrier
    # Peers outside the library can't answer: the exit waits out its whole timeout (1 s here).
    TIMEOUT=1 exit_case "exit/one_while_others_compute_n$n" $n 7 one_computing
    exit_case "exit/in_request_handler_n$n" $n 7 request_handler
    exit_case "exit/in_reply_handler_n$n" $n 7 reply_handler
    exit_case "exit/return_from_main_all_n$n" $n 7 return_all
    exit_case "exit/return_from_main_one_n$n" $n 7 return_one
    # A rank dies of a signal and gp-run stops the others: they end their exit as soon as they
    # find that process gone, not an exit timeout later (the survivor that waits for its answer
    # says so); node 0 dying takes the election's fallback.
    want_line="info exit: exit code 143, not coordinated: node 1's process has ended"
    GP_LOG_LEVEL=info exit_case "exit/sigsegv_n$n" $n 139 segv
    want_line="info exit: exit code 143, not coordinated: node 1's process has ended"
    GP_LOG_LEVEL=info exit_case "exit/sigabrt_n$n" $n 134 abort
    want_line="info exit: exit code 143, not coordinated: node 1's process has ended"
    GP_LOG_LEVEL=info exit_case "exit/sigkill_n$n" $n 137 kill
    want_line="info exit: exit code 143, not coordinated: node 0's process has ended"
    EXIT_CASES_NODE=0 GP_LOG_LEVEL=info exit_case "exit/sigkill_node0_n$n" $n 137 kill
    # A stopped node can't answer: the exit waits out its timeout, then gp-run its grace.  Both
    # are whole timeouts whatever their length, so this case runs with 1 s, not 3.
    TIMEOUT=1 exit_case "exit/stopped_node_n$n" $n 7 stopped
    exit_case "exit/during_init_n$n" $n 7 init_exit
    exit_case "exit/bad_segment_size_n$n" $n 7 bad_segsize
    # The client's own SIGQUIT handler runs on a remote exit request (spec
    # 1.10), then the exit goes on with the requested code.
    want_line="^exit_cases: the client's SIGQUIT handler ran$"
    exit_case "exit/client_sigquit_handler_n$n" $n 7 client_sigquit
    # An abort signal inside the exit's work ends the process with the exit's
    # code, not the signal's (seed 003).
    GP_EXIT_FAULT=abort exit_case "exit/abort_during_exit_n$n" $n 7 collective
    # exit() that cannot be coordinated (the peers never poll): the atexit
    # path aborts the job with the process's own status (seed 003).
    want_line="rank 1 (pid [0-9]*) aborted the job with exit code 7: the exit could not be coordinated"
    TIMEOUT=1 exit_case "exit/return_uncoordinated_n$n" $n 7 return_computing
    # Two nodes exit at once with 7 and 8: every node ends with the code of
    # the exit node 0 heard of first, so the job's code is one of the two.
    GASNET_EXITTIMEOUT=$TIMEOUT timeout -k 5 60 "$GP_RUN" -v -n $n "$GPTEST_ITEST/exit_cases" race 7 \
        >"$log" 2>&1
    rc=$?
    left=$(job_alive "$log" exit_cases)
    if { [ "$rc" -eq 7 ] || [ "$rc" -eq 8 ]; } && [ -z "$left" ]; then pass "exit/race_n$n"
    else fail "exit/race_n$n" "exit status $rc, processes left: ${left:-none}"; fi
done

# A rank that vanishes mid-job (_exit(0), no gasnet_exit) while node 0 puts into its mapped
# segment: the put itself cannot tell, so gp-run, which saw the rank join and never say it
# finished, fails the job, naming the rank, its host and the cause (before, it ended 0).
mkdir -p "$log.gone"
if expect_rc "exit/vanished_rank_shm" 1 60 env GASNET_EXITTIMEOUT=$TIMEOUT "$GP_RUN" -n 2 \
        "$GPTEST_ITEST/busy_peer" gone "$log.gone"; then
    check_line "exit/vanished_rank_shm" "^gp-run: rank 1 (pid [0-9]*) on $(hostname) ended with code 0 without gasnet_exit: its peers can no longer reach it"
fi
rm -rf "$log.gone"

# SIGINT / SIGTERM / SIGHUP to gp-run while the job polls: passed on, each
# process exits through the protocol with 128 + the signal (each says so: none
# may take the way out of a process outside the library).
for sig in INT TERM HUP; do
    # A background job of a script starts with SIGINT ignored, and a suite run
    # under nohup with SIGHUP ignored (gp-run keeps an ignored stop signal
    # ignored, as nohup asks): give each its default.
    # Emptied here, not by the background job's redirection: the wait below
    # must not read the last job's "polling" lines and signal a job that has
    # not started (its shell ignores SIGINT, or dies of SIGTERM unlogged).
    : >"$log"
    GASNET_EXITTIMEOUT=$TIMEOUT GP_LOG_LEVEL=info env --default-signal=INT,QUIT,HUP "$GP_RUN" -v -n 4 \
        "$GPTEST_ITEST/exit_cases" one_polling_none 7 \
        >"$log" 2>&1 &
    runner=$!
    # Signal once every node polls (up to 60 s on a loaded machine).
    tries=0
    while [ "$(grep -c '^exit_cases: node [0-9]* polling$' "$log")" -lt 4 ] && [ $tries -lt 600 ] &&
          kill -0 $runner 2>/dev/null; do
        sleep 0.1; tries=$((tries + 1))
    done
    kill -$sig $runner
    # The job must end within its exit timeout; a bound here turns a job that
    # ignores the signal into a FAIL instead of a suite that never ends.
    tries=0
    while kill -0 $runner 2>/dev/null && [ $tries -lt 600 ]; do sleep 0.1; tries=$((tries + 1)); done
    if kill -0 $runner 2>/dev/null; then
        fail "exit/sig$sig" "gp-run still running 60 s after SIG$sig"
        kill -9 $runner $(job_pids "$log") 2>/dev/null
        wait $runner
        continue
    fi
    wait $runner
    rc=$?
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    jobid=$(job_id "$log")
    left=$(job_alive "$log" exit_cases)
    after=$(job_shm "$jobid")
    exits=$(grep -c "^gp\[[0-9]/4\] info exit: exit code $want, " "$log")
    if [ "$exits" -ne 4 ] || grep -q 'outside the library' "$log"; then
        fail "exit/sig$sig" "$exits of 4 processes ran their exit (status $rc): $(grep -m1 'outside the library' "$log")"
        grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -8 | sed 's/^/    /'
        [ -n "$left" ] && kill -9 $left
    elif [ "$rc" -eq "$want" ] && [ -n "$jobid" ] && [ -z "$left" ] && [ -z "$after" ]; then
        pass "exit/sig$sig"
    else
        fail "exit/sig$sig" "exit status $rc (expected $want), job ${jobid:-?}, processes left: ${left:-none}, /dev/shm left: ${after:-none}"
        grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -8 | sed 's/^/    /'
        [ -n "$left" ] && kill -9 $left
    fi
done

# SIGINT to gp-run while every process computes outside the library: they
# can't run the exit protocol, so each ends within 0.2 s of the signal with
# 130, not at SIGKILL an exit timeout later (137).
: >"$log"   # as above: no stale lines
GASNET_EXITTIMEOUT=$TIMEOUT GP_LOG_LEVEL=info env --default-signal=INT,QUIT,HUP "$GP_RUN" -v -n 4 \
    "$GPTEST_ITEST/exit_cases" one_computing_none 7 >"$log" 2>&1 &
runner=$!
tries=0
while [ "$(grep -c '^exit_cases: node [0-9]* computing$' "$log")" -lt 4 ] && [ $tries -lt 600 ] &&
      kill -0 $runner 2>/dev/null; do
    sleep 0.1; tries=$((tries + 1))
done
sent_ms=$(date +%s%3N)
kill -INT $runner
tries=0
while kill -0 $runner 2>/dev/null && [ $tries -lt 600 ]; do sleep 0.05; tries=$((tries + 1)); done
took_ms=$(( $(date +%s%3N) - sent_ms ))
if kill -0 $runner 2>/dev/null; then
    fail "exit/sigINT_computing" "gp-run still running 30 s after SIGINT"
    kill -9 $runner $(job_pids "$log") 2>/dev/null
    wait $runner
else
    wait $runner
    rc=$?
    jobid=$(job_id "$log")
    left=$(job_alive "$log" exit_cases)
    after=$(job_shm "$jobid")
    stopped=$(grep -c '^gp\[[0-9]/4\] info exit: told to stop (SIGINT) outside the library: ending now with exit code 130$' "$log")
    case "${GPTEST_VARIANT:-seq}" in *asan) limit_ms=$((TIMEOUT * 1000)) ;; *) limit_ms=1500 ;; esac
    if [ "$rc" -ne 130 ] || [ "$stopped" -ne 4 ] || [ -n "$left" ] || [ -n "$after" ]; then
        fail "exit/sigINT_computing" "exit status $rc (expected 130), $stopped of 4 ended when told to stop, processes left: ${left:-none}, /dev/shm left: ${after:-none}"
        grep -v '^gp-run: rank [0-9]*: ' "$log" | tail -8 | sed 's/^/    /'
        [ -n "$left" ] && kill -9 $left
    elif [ "$took_ms" -gt "$limit_ms" ]; then
        fail "exit/sigINT_computing" "the job ended ${took_ms} ms after SIGINT, more than ${limit_ms} ms"
    else
        pass "exit/sigINT_computing (ended ${took_ms} ms after SIGINT)"
    fi
fi

# Shutdown traffic is O(N): at most 4 messages per node (election, its answer,
# the request, the ack), never N^2.
for n in 8 16 32; do
    GP_LOG_LEVEL=info timeout 120 "$GP_RUN" -n $n "$GPTEST_ITEST/exit_cases" collective 0 >"$log" 2>&1
    rc=$?
    total=$(grep -o '[0-9]* system messages sent' "$log" | awk '{s += $1} END {print s + 0}')
    limit=$((4 * (n - 1)))
    if [ "$rc" -eq 0 ] && [ "$total" -gt 0 ] && [ "$total" -le "$limit" ]; then
        pass "exit/messages_n$n ($total shutdown messages for $n nodes, limit $limit)"
    else
        fail "exit/messages_n$n" "exit status $rc, $total messages (limit $limit)"
    fi
done
end_tests
