# Helpers for the integration scripts (sourced).  The runner sets:
#   GPTEST_BIN      directory holding gp-run (and the other commands)
#   GPTEST_ITEST    directory holding the integration test programs
#   GPTEST_VARIANT  build variant name (seq, par, asan, pasan)
: "${GPTEST_BIN:?}" "${GPTEST_ITEST:?}"
GP_RUN="$GPTEST_BIN/gp-run"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Prints "ok NAME" or "FAIL NAME: why".
pass() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
# check_line NAME PATTERN: the last expect_rc's output must hold a line matching PATTERN.
check_line() {
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

# expect_rc NAME EXPECTED TIMEOUT_S CMD...: runs CMD with a time limit,
# checks its exit status, keeps its output in $out.
expect_rc() {
    name=$1 want=$2 limit=$3; shift 3
    out=$(timeout -k 5 "$limit" "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$name" "timed out after ${limit}s: $*"; printf '%s\n' "$out" | tail -20 | sed 's/^/    /'; return 1
    fi
    if [ "$rc" -ne "$want" ]; then
        fail "$name" "exit status $rc, expected $want: $*"; printf '%s\n' "$out" | tail -20 | sed 's/^/    /'; return 1
    fi
    if printf '%s\n' "$out" | grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer'; then
        fail "$name" "sanitizer report"; printf '%s\n' "$out" | tail -40 | sed 's/^/    /'; return 1
    fi
    return 0
}

# What one job made, from the log of "gp-run -v": other jobs of gp (other
# builds, other users) may run beside the tests, so a test looks only at its
# own job's /dev/shm objects and its own pids, never at the whole machine.
#   job_id LOG            the job id gp-run -v printed ("gp-run: job ID: ...")
#   job_pids LOG          the pids of its ranks ("rank R started as pid P")
#   job_shm JOBID         the job's /dev/shm objects still there (gp-JOBID-*)
#   job_alive LOG PROG    within 5 s, the job's pids still alive running PROG
#                         (a pid the kernel gave to someone else is not ours)
#   pids_alive PROG PID.. the same for pids found another way
job_id() { sed -n 's/^gp-run: job \([0-9a-f]\{16\}\): .*/\1/p' "$1" | head -1; }
job_pids() { sed -n 's/^gp-run: rank [0-9]* started as pid \([0-9]*\)$/\1/p' "$1"; }
job_shm() { [ -n "$1" ] && ls /dev/shm 2>/dev/null | grep "^gp-$1-" ; }
pids_alive() { # PROG PID...: within 5 s, those of the PIDs still alive running PROG
    alive_prog=$1; shift
    alive_tries=0
    while :; do
        alive=""
        for alive_pid in "$@"; do
            alive_state=$(sed 's/.*) //' "/proc/$alive_pid/stat" 2>/dev/null | cut -d' ' -f1)
            if [ -n "$alive_state" ] && [ "$alive_state" != Z ] &&
               tr '\0' ' ' <"/proc/$alive_pid/cmdline" 2>/dev/null | grep -q "$alive_prog"; then
                alive="$alive $alive_pid"
            fi
        done
        if [ -z "$alive" ] || [ $alive_tries -ge 50 ]; then echo $alive; return; fi
        sleep 0.1; alive_tries=$((alive_tries + 1))
    done
}
# shellcheck disable=SC2046
job_alive() { pids_alive "$2" $(job_pids "$1"); }

# slow_run: the programs run well below native speed -- a sanitizer build, or
# GPTEST_SLOW=1 (make check-arm runs aarch64 programs under qemu-user) -- so
# the suites take their shorter counts: the same code paths, fewer rounds.
slow_run() {
    case "$GPTEST_VARIANT" in *asan) return 0 ;; esac
    [ "${GPTEST_SLOW:-0}" = 1 ]
}

# end_tests: the script reached its end (or chose to run nothing more for
# this variant): tests/run.sh takes a script that never says so for one
# that died half way, whose remaining tests would otherwise vanish.
# as_host_wrapper DIR: writes DIR/as-host, run as "DIR/as-host PER_HOST PROGRAM ARGS...": the
# rank runs PROGRAM as if on host h<rank / PER_HOST> (GP_HOST_ID), the hybrid's pretended hosts.
as_host_wrapper() {
    cat >"$1/as-host" <<'WRAP'
#!/bin/sh
per_host=$1; shift
GP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"
WRAP
    chmod +x "$1/as-host"
}

end_tests() { echo "# end of tests"; exit 0; }
