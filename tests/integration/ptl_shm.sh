#!/bin/sh
# The ptl layer over shm with real processes launched by gp-run: puts, gets
# and deposits between every pair, every byte checked, N = 1, 2, 4, 8; a
# process killed mid-job ends it non-zero with nothing left behind; a bad
# environment value stops the job with a message naming it.
. "$(dirname "$0")/../lib.sh"

for n in 1 2 4 8; do
    expect_rc "ptl_shm/exchange_n$n" 0 120 "$GP_RUN" -n $n "$GPTEST_ITEST/ptl_exchange" &&
        if printf '%s\n' "$out" | grep -q "ptl_exchange: $n processes, every byte verified"; then
            pass "ptl_shm/exchange_n$n"
        else
            fail "ptl_shm/exchange_n$n" "no verification line: $out"
        fi
done

# Singleton: no launcher, a one-process job.
expect_rc "ptl_shm/singleton" 0 60 "$GPTEST_ITEST/ptl_exchange" && pass "ptl_shm/singleton"

# SIGKILL of one rank after every region is mapped: the job fails, and no
# process or shared-memory object of it survives.
kill_log=$(mktemp /tmp/gp-kill.XXXXXX)
start=$(date +%s)
GASNET_EXITTIMEOUT=5 timeout -k 5 60 "$GP_RUN" -v -n 4 "$GPTEST_ITEST/ptl_exchange" --die-rank 2 >"$kill_log" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
jobid=$(job_id "$kill_log")
left=$(job_alive "$kill_log" ptl_exchange)
after=$(job_shm "$jobid")
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
    fail "ptl_shm/sigkill_one_rank" "exit status $rc, expected a failure status"
elif [ -z "$jobid" ]; then
    fail "ptl_shm/sigkill_one_rank" "gp-run -v printed no job id: $(tail -3 "$kill_log")"
elif [ -n "$left" ]; then
    fail "ptl_shm/sigkill_one_rank" "processes of job $jobid left: $left"; kill -9 $left
elif [ -n "$after" ]; then
    fail "ptl_shm/sigkill_one_rank" "/dev/shm objects of job $jobid left: $after"
elif ! grep -q "rank 2 (pid [0-9]*) was killed" "$kill_log"; then
    fail "ptl_shm/sigkill_one_rank" "gp-run did not name rank 2: $(cat "$kill_log")"
else
    pass "ptl_shm/sigkill_one_rank"
fi
rm -f "$kill_log"

# A bad value in the environment: fatal in the library, naming variable,
# value and accepted form; gp-run refuses it before launching anything.
if expect_rc "ptl_shm/bad_env_value_library" 1 60 \
        env GASNET_PORTAL_MSG_LIMIT=lots "$GPTEST_ITEST/ptl_exchange"; then
    case "$out" in
        *"gp: FATAL ERROR on node 0/1: GASNET_PORTAL_MSG_LIMIT='lots' is not valid: expected an integer"*)
            pass "ptl_shm/bad_env_value_library" ;;
        *) fail "ptl_shm/bad_env_value_library" "message does not name the variable: $out" ;;
    esac
fi
if expect_rc "ptl_shm/bad_env_value_gp_run" 2 60 \
        env GASNET_PORTAL_MSG_LIMIT=lots "$GP_RUN" -n 2 "$GPTEST_ITEST/ptl_exchange"; then
    case "$out" in
        *"GASNET_PORTAL_MSG_LIMIT='lots' is not valid: expected an integer"*)
            pass "ptl_shm/bad_env_value_gp_run" ;;
        *) fail "ptl_shm/bad_env_value_gp_run" "message does not name the variable: $out" ;;
    esac
fi
end_tests
