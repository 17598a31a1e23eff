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

# shm_leftovers JOBID_PATTERN: lists /dev/shm objects of gp jobs.
shm_objects() { ls /dev/shm 2>/dev/null | grep '^gp-' ; }
