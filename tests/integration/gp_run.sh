#!/bin/sh
# gp-run and the bootstrap channel, end to end: collectives at N = 1..8 and
# as a singleton; the exit policy (exit codes, a rank killed, abort, fatal,
# gp-run interrupted or killed) with no process or /dev/shm object of the
# job left behind; strangers refused while the job completes; usage errors.
# Only time limits are checked, never speed.
. "$(dirname "$0")/../lib.sh"

T=gp_run
tmp=$(mktemp -d /tmp/gp-run-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_BOOT_ADDR GP_RANK GP_SIZE GP_JOBID GP_BOOT_KEY_FD GASNET_EXITTIMEOUT

# contains NAME PATTERN: $out matches the extended regex PATTERN.
contains() {
    if printf '%s\n' "$out" | grep -Eq -- "$2"; then return 0; fi
    fail "$1" "output lacks /$2/"; printf '%s\n' "$out" | tail -15 | sed 's/^/    /'; return 1
}

# Field 2 of the program's "WORD RANK VALUE" / "WORD VALUE" lines.
jobid_of() { printf '%s\n' "$1" | awk '$1 == "jobid" { print $2; exit }'; }
pids_of() { printf '%s\n' "$1" | awk '$1 == "pid" { print $3 }'; }

# gone PID...: within 10 s, none of them is a live boot_exitcode.
gone() {
    tries=0
    while [ $tries -lt 100 ]; do
        alive=""
        for pid in "$@"; do
            state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
            if [ -n "$state" ] && [ "$state" != Z ] &&
               tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q boot_exitcode; then
                alive="$alive $pid"
            fi
        done
        [ -z "$alive" ] && return 0
        sleep 0.1; tries=$((tries + 1))
    done
    return 1
}

# no_leftovers NAME: checks the job in $out left no process and no shm object.
no_leftovers() {
    jobid=$(jobid_of "$out")
    if [ -z "$jobid" ]; then fail "$1" "the program printed no job id"; return 1; fi
    if ! gone $(pids_of "$out"); then fail "$1" "processes of the job left:$alive"; return 1; fi
    left=$(ls /dev/shm | grep "^gp-$jobid-")
    if [ -n "$left" ]; then fail "$1" "/dev/shm objects left: $left"; return 1; fi
    return 0
}

# expect_death NAME LIMIT CMD...: like expect_rc for a job that must end with
# 137 (128+SIGKILL), which expect_rc would take for its own time-out kill.
expect_death() {
    dname=$1 limit=$2; shift 2
    started=$(date +%s)
    out=$(timeout "$limit" "$@" 2>&1)
    rc=$?
    if [ $(( $(date +%s) - started )) -ge "$limit" ]; then
        fail "$dname" "timed out after ${limit}s: $*"; return 1
    fi
    if [ "$rc" -ne 137 ]; then
        fail "$dname" "exit status $rc, expected 137: $*"; printf '%s\n' "$out" | tail -20 | sed 's/^/    /'; return 1
    fi
    return 0
}

# start_bg CMD...: runs gp-run in the background (SIGINT not ignored, as at a
# terminal) with output in $tmp/bg; waits for the job's "ready LAUNCHER-PID".
# The subshell keeps the shell from reporting a killed job on its own.
start_bg() {
    : >"$tmp/bg"
    (timeout -k 5 40 env --default-signal=INT "$@" >"$tmp/bg" 2>&1; echo $? >"$tmp/bg.rc") &
    bg=$!
    tries=0
    while ! grep -q '^ready' "$tmp/bg" && [ $tries -lt 300 ]; do sleep 0.1; tries=$((tries + 1)); done
    launcher=$(awk '$1 == "ready" { print $2; exit }' "$tmp/bg")
}
wait_bg() { wait "$bg"; rc=$(cat "$tmp/bg.rc"); out=$(cat "$tmp/bg"); }

# --- collectives -------------------------------------------------------------
for n in 1 2 4 8; do
    expect_rc "$T/collectives_n$n" 0 60 "$GP_RUN" -n $n "$GPTEST_ITEST/boot_collectives" $n &&
        pass "$T/collectives_n$n"
done
expect_rc "$T/singleton" 0 30 "$GPTEST_ITEST/boot_collectives" 1 && pass "$T/singleton"
expect_rc "$T/plain_program" 0 30 "$GP_RUN" -n 3 true && pass "$T/plain_program"

# --- exit codes ---------------------------------------------------------------
expect_rc "$T/exit_code" 3 30 "$GP_RUN" -n 4 "$GPTEST_ITEST/boot_exitcode" exit 2 3 exit0 &&
    no_leftovers "$T/exit_code" && pass "$T/exit_code"
# The others wait in a barrier rank 1 never joins: gp-run ends them at once.
expect_rc "$T/exit_code_stuck_barrier" 3 30 "$GP_RUN" -n 4 "$GPTEST_ITEST/boot_exitcode" exit 1 3 barrier &&
    contains "$T/exit_code_stuck_barrier" "rank 1 \(pid [0-9]+\) ended without joining the barrier" &&
    no_leftovers "$T/exit_code_stuck_barrier" && pass "$T/exit_code_stuck_barrier"
# Rank 1 ends cleanly, but the others then wait for it in a barrier.
expect_rc "$T/exit_zero_stuck_barrier" 1 30 "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" exit 1 0 barrier &&
    contains "$T/exit_zero_stuck_barrier" "rank 1 \(pid [0-9]+\) ended without joining the barrier" &&
    no_leftovers "$T/exit_zero_stuck_barrier" && pass "$T/exit_zero_stuck_barrier"
# The others sleep: they get GASNET_EXITTIMEOUT, then SIGTERM.
expect_rc "$T/exit_code_grace" 4 30 "$GP_RUN" -n 2 "$GPTEST_ITEST/boot_exitcode" exit 1 4 sleep &&
    contains "$T/exit_code_grace" "rank 1 \(pid [0-9]+\) exited with code 4" &&
    contains "$T/exit_code_grace" "sending SIGTERM" &&
    no_leftovers "$T/exit_code_grace" && pass "$T/exit_code_grace"

# --- a rank killed; its shm objects removed, -k keeps them ----------------------
expect_death "$T/sigkill_rank" 30 "$GP_RUN" -n 4 "$GPTEST_ITEST/boot_exitcode" --shm signal 1 9 sleep &&
    contains "$T/sigkill_rank" "rank 1 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\)" &&
    no_leftovers "$T/sigkill_rank" && pass "$T/sigkill_rank"
expect_rc "$T/keep_shm" 0 30 "$GP_RUN" -k -n 2 "$GPTEST_ITEST/boot_exitcode" --shm exit 0 0 exit0 &&
    contains "$T/keep_shm" "kept /dev/shm/gp-[0-9a-f]{16}-test-1" && {
    jobid=$(jobid_of "$out")
    kept=$(ls /dev/shm | grep -c "^gp-$jobid-test-")
    rm -f /dev/shm/gp-"$jobid"-*
    if [ "$kept" -eq 2 ]; then pass "$T/keep_shm"; else fail "$T/keep_shm" "$kept objects kept, expected 2"; fi
}
expect_rc "$T/segv_rank" 139 30 "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" signal 2 11 barrier &&
    contains "$T/segv_rank" "rank 2 \(pid [0-9]+\) was killed by signal 11" && pass "$T/segv_rank"

# The script kills one rank from outside.
start_bg "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" wait 0 0 -
victim=$(awk '$1 == "pid" && $2 == 2 { print $3 }' "$tmp/bg")
[ -n "$victim" ] && kill -KILL "$victim"
wait_bg
if [ "$rc" -ne 137 ]; then fail "$T/kill_rank_outside" "exit status $rc, expected 137: $out"
else contains "$T/kill_rank_outside" "rank 2 \(pid $victim\) was killed by signal 9" &&
    no_leftovers "$T/kill_rank_outside" && pass "$T/kill_rank_outside"; fi

# --- abort and fatal ------------------------------------------------------------
expect_rc "$T/abort" 5 30 "$GP_RUN" -n 4 "$GPTEST_ITEST/boot_exitcode" abort 1 5 sleep &&
    contains "$T/abort" "rank 1 \(pid [0-9]+\) aborted the job with exit code 5: boot_exitcode was told" &&
    no_leftovers "$T/abort" && pass "$T/abort"
expect_rc "$T/fatal" 1 30 "$GP_RUN" -n 2 "$GPTEST_ITEST/boot_exitcode" fatal 0 0 barrier &&
    contains "$T/fatal" "FATAL ERROR on node 0/2: boot_exitcode was told to fail" &&
    no_leftovers "$T/fatal" && pass "$T/fatal"

# Live ranks that never join a round: GP_BOOT_TIMEOUT ends the job, naming them.
started=$(date +%s)
expect_rc "$T/round_timeout" 1 30 env GP_BOOT_TIMEOUT=2 "$GP_RUN" -n 4 "$GPTEST_ITEST/boot_exitcode" stall 1 3 barrier &&
    contains "$T/round_timeout" "ranks 1, 3 never joined the barrier that rank [02] waits in after 2 s \(GP_BOOT_TIMEOUT\)" &&
    no_leftovers "$T/round_timeout" && {
    took=$(( $(date +%s) - started ))
    if [ "$took" -le 12 ]; then pass "$T/round_timeout"; else fail "$T/round_timeout" "took ${took}s for a 2 s bound"; fi
}
# A GASNet program: the others wait in attach; gp-run's answer ends them at once
# through their fatal path (well within GASNET_EXITTIMEOUT=20).
started=$(date +%s)
expect_rc "$T/round_timeout_gasnet" 1 40 env GP_BOOT_TIMEOUT=2 GASNET_EXITTIMEOUT=20 "$GP_RUN" -n 3 "$GPTEST_ITEST/debug_cases" stall &&
    contains "$T/round_timeout_gasnet" "gp-run: rank 2 \(pid [0-9]+\) never joined the allgather of [0-9]+ bytes that rank [01] waits in after 2 s" &&
    contains "$T/round_timeout_gasnet" "FATAL ERROR on node [01]/3: gp-run ended the allgather: rank 2 \(pid [0-9]+\) never joined" && {
    took=$(( $(date +%s) - started ))
    if [ "$took" -le 12 ]; then pass "$T/round_timeout_gasnet"; else fail "$T/round_timeout_gasnet" "took ${took}s"; fi
}
expect_rc "$T/round_timeout_one" 1 30 env GP_BOOT_TIMEOUT=1 "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" stall 2 2 barrier &&
    contains "$T/round_timeout_one" "rank 2 \(pid [0-9]+\) never joined the barrier that rank [01] waits in after 1 s" &&
    no_leftovers "$T/round_timeout_one" && pass "$T/round_timeout_one"

expect_rc "$T/collective_mismatch" 1 30 "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" mismatch 1 0 barrier &&
    contains "$T/collective_mismatch" "collective mismatch: rank [0-9] called (allgather of 8 bytes|barrier)" &&
    no_leftovers "$T/collective_mismatch" && pass "$T/collective_mismatch"

# --- gp-run interrupted or killed -------------------------------------------------
# SIGTERM reaches each process exactly once; they report and exit 7.
start_bg "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" catch 15 7 -
[ -n "$launcher" ] && kill -TERM "$launcher"
wait_bg
once=$(printf '%s\n' "$out" | grep -c "got signal 15 1 time(s)")
if [ "$rc" -ne 7 ] || [ "$once" -ne 3 ]; then
    fail "$T/sigterm_forwarded_once" "exit status $rc (expected 7), $once of 3 ranks got SIGTERM once"
    printf '%s\n' "$out" | tail -10 | sed 's/^/    /'
else pass "$T/sigterm_forwarded_once"; fi
# SIGINT with the default action: the processes die of it, gp-run exits 130.
start_bg "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" wait 0 0 -
[ -n "$launcher" ] && kill -INT "$launcher"
wait_bg
if [ "$rc" -ne 130 ]; then fail "$T/sigint_forwarded" "exit status $rc, expected 130: $out"
else no_leftovers "$T/sigint_forwarded" && pass "$T/sigint_forwarded"; fi
# gp-run killed outright: the parent-death signal takes the processes down.
start_bg "$GP_RUN" -n 3 "$GPTEST_ITEST/boot_exitcode" wait 0 0 -
[ -n "$launcher" ] && kill -KILL "$launcher"
wait_bg
no_leftovers "$T/launcher_killed" && pass "$T/launcher_killed"

# --- strangers ------------------------------------------------------------------
# Rank 0 first runs the stranger (which knows the address, not the key), then
# both ranks run the collectives: the job must not notice.
expect_rc "$T/stranger_refused" 0 60 "$GP_RUN" -n 2 sh -c \
    "if [ \"\$GP_RANK\" = 0 ]; then '$GPTEST_ITEST/stranger' || exit 1; fi; exec '$GPTEST_ITEST/boot_collectives' 2" && {
    refused=$(printf '%s\n' "$out" | grep -c "gp-run: refused a control connection from 127\.0\.0\.1:[0-9]*: ")
    if [ "$refused" -ne 4 ]; then fail "$T/stranger_refused" "$refused of 4 attempts logged as refused: $out"
    else contains "$T/stranger_refused" "refused a control connection .*: wrong key proof" &&
        pass "$T/stranger_refused"; fi
}

# More ranks dialling at once than may prove the key at once (64; 1 here, through the test
# variable): the rest wait in the listen backlog, none is refused (refused ranks fail to start).
expect_rc "$T/proofs_queued" 0 60 env GP_RUN_TEST_MAX_UNPROVEN=1 "$GP_RUN" -n 12 \
    "$GPTEST_ITEST/boot_collectives" 12 && {
    if printf '%s\n' "$out" | grep -q "refused\|no challenge"; then
        fail "$T/proofs_queued" "a rank was refused: $(printf '%s\n' "$out" | grep -m1 'refused\|no challenge')"
    else pass "$T/proofs_queued"; fi
}

# --- the launcher's variables, checked by the process ------------------------------
# env_case NAME PATTERN VAR=VALUE...: boot_collectives started by hand with a
# broken job environment (key: 32 zero bytes on descriptor 3) must fail
# with a message naming the variable.
env_case() {
    ecase=$T/env_$1 pattern=$2; shift 2
    expect_rc "$ecase" 1 10 env GP_BOOT_ADDR=127.0.0.1:1 GP_RANK=0 GP_SIZE=2 \
        GP_JOBID=0123456789abcdef GP_BOOT_KEY_FD=3 "$@" "$GPTEST_ITEST/boot_collectives" 2 3</dev/zero &&
        contains "$ecase" "$pattern" && pass "$ecase"
}
env_case bad_addr "GP_BOOT_ADDR='nowhere' is not valid: expected HOST:PORT" GP_BOOT_ADDR=nowhere
env_case bad_rank "GP_RANK='2' is not valid: expected .*\[0, 1\]" GP_RANK=2
env_case bad_size "GP_SIZE='none' is not valid" GP_SIZE=none
env_case bad_jobid "GP_JOBID='XYZ' is not valid: expected 16 lowercase hex digits" GP_JOBID=XYZ
env_case bad_key_fd "GP_BOOT_KEY_FD=9 is not an open file descriptor" GP_BOOT_KEY_FD=9
env_case no_rank "GP_RANK is not set but GP_BOOT_ADDR is" GP_RANK=
env_case no_launcher "cannot reach gp-run's control channel at GP_BOOT_ADDR=127.0.0.1:1"
# The key can be read once: a second program of the same rank finds the pipe empty.
expect_rc "$T/key_read_once" 1 30 "$GP_RUN" -n 1 sh -c \
    "'$GPTEST_ITEST/boot_collectives' 1 && exec '$GPTEST_ITEST/boot_collectives' 1" &&
    contains "$T/key_read_once" "GP_BOOT_KEY_FD=[0-9]+: read 0 of the 32 key bytes" &&
    pass "$T/key_read_once"

# --- usage ------------------------------------------------------------------------
usage_case() {
    ucase=$T/usage_$1 pattern=$2; shift 2
    expect_rc "$ucase" 2 10 "$GP_RUN" "$@" && contains "$ucase" "$pattern" && pass "$ucase"
}
usage_case n_zero "-n '0': expected a whole number from 1" -n 0 true
usage_case n_text "-n 'abc': expected a whole number" -n abc true
usage_case no_program "no program given" -n 2
usage_case no_n "-n N, the number of processes, is required" true
usage_case unknown_option "--bogus: unknown option" --bogus -n 2 true
usage_case not_in_path "program 'gp-no-such-program' not found in PATH" -n 2 gp-no-such-program
usage_case not_executable "program /etc/passwd: Permission denied" -n 2 /etc/passwd
usage_case many_hosts "-N 2: the local spawner runs on this host only" -N 2 -n 2 true
usage_case spawner_ssh_no_hosts "the ssh spawner needs hosts" --spawner=ssh -n 2 true
# (mpi and pmix are spawners now: tests/integration/pmix.sh)
usage_case spawner_unknown "--spawner=pmi: unknown spawner; accepted: local, ssh, pmix, mpi" --spawner=pmi -n 2 true
usage_case n_of_m "-n N:M, M '0': expected a whole number from 1" -n 4:0 true
usage_case tag_local "--tag-output: only the ssh spawner relays" --tag-output -n 2 true
usage_case hostfile_missing "--hostfile /nonexistent/hosts: No such file or directory" --hostfile /nonexistent/hosts -n 2 true
usage_env_case() { # NAME PATTERN VAR=VALUE GP-RUN-ARGS...
    ucase=$T/usage_$1 pattern=$2 setting=$3; shift 3
    expect_rc "$ucase" 2 10 env "$setting" "$GP_RUN" "$@" && contains "$ucase" "$pattern" && pass "$ucase"
}
usage_env_case ssh_options_quote "GASNET_SSH_OPTIONS='-o \"x': a double quote is not closed" \
    GASNET_SSH_OPTIONS='-o "x' --spawner=ssh -N 1 -n 2 --hostfile /etc/hostname true
usage_env_case ssh_cmd_missing "GASNET_SSH_CMD: 'gp-no-such-ssh' is not an executable file in PATH" \
    GASNET_SSH_CMD=gp-no-such-ssh --hostfile /etc/hostname -n 2 true
usage_env_case servers_bad "GASNET_SSH_SERVERS='a;b': 'a;b' is not a host name" \
    GASNET_SSH_SERVERS='a;b' --spawner=ssh -n 2 true
usage_env_case too_many_hosts "-N 3: GASNET_SSH_SERVERS lists only 2 hosts" \
    GASNET_SSH_SERVERS='a b' --spawner=ssh -N 3 -n 4 true
usage_env_case boot_timeout_bad "GP_BOOT_TIMEOUT='-1' is not valid" GP_BOOT_TIMEOUT=-1 -n 2 true
expect_rc "$T/version" 0 10 "$GP_RUN" --version && contains "$T/version" "^gp-run \(gp\) [0-9]" &&
    pass "$T/version"
expect_rc "$T/help" 0 10 "$GP_RUN" --help && contains "$T/help" "-n, --np=N" && pass "$T/help"

# -t prints the command lines and runs nothing; -v shows the channel, never a key.
expect_rc "$T/test_only" 0 10 "$GP_RUN" -t -n 2 sh -c "touch '$tmp/ran'" &&
    contains "$T/test_only" "rank 1: GP_BOOT_ADDR=127\.0\.0\.1:<port> GP_RANK=1 GP_SIZE=2" && {
    if [ -e "$tmp/ran" ]; then fail "$T/test_only" "-t ran the program"; else pass "$T/test_only"; fi
}
expect_rc "$T/verbose" 0 30 "$GP_RUN" -v -E HOME,PATH -n 2 "$GPTEST_ITEST/boot_collectives" 2 &&
    contains "$T/verbose" "control channel 127\.0\.0\.1:[0-9]+" &&
    contains "$T/verbose" "rank 1: GP_BOOT_ADDR=127\.0\.0\.1:[0-9]+ GP_RANK=1 GP_SIZE=2 GP_JOBID=[0-9a-f]{16} GP_BOOT_KEY_FD=[0-9]+ " &&
    contains "$T/verbose" "ended with exit status 0" && pass "$T/verbose"
end_tests
