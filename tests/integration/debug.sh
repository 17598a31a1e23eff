#!/bin/sh
# GASNET_BACKTRACE, GASNET_FREEZE and GASNET_FREEZE_ON_ERROR
# (tests/integration/debug_cases.c): a fatal error or signal prints frames
# when asked (and only then); a frozen process names its pid, waits, and
# goes on once a debugger clears gasnet_frozen.  The debugger cases skip
# where gdb is missing or ptrace is not permitted.
. "$(dirname "$0")/../lib.sh"

T=debug
PROG="$GPTEST_ITEST/debug_cases"
tmp=$(mktemp -d /tmp/gp-debug-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GASNET_BACKTRACE GASNET_FREEZE GASNET_FREEZE_ON_ERROR

# frames: how many lines of $out look like backtrace_symbols frames.
frames() { printf '%s\n' "$out" | grep -c '\[0x[0-9a-f]*\]$'; }

expect_rc "$T/backtrace_fatal" 1 30 env GASNET_BACKTRACE=1 "$GP_RUN" -n 1 "$PROG" fatal &&
    if printf '%s\n' "$out" | grep -q "FATAL ERROR on node 0/1: put of 8 bytes" &&
       printf '%s\n' "$out" | grep -q "^backtrace of process [0-9]* (.*debug_cases)" &&
       [ "$(frames)" -ge 3 ]; then pass "$T/backtrace_fatal"
    else fail "$T/backtrace_fatal" "no fatal line or fewer than 3 frames: $out"; fi
expect_rc "$T/backtrace_signal" 139 30 env GASNET_BACKTRACE=1 "$GP_RUN" -n 1 "$PROG" segv &&
    if printf '%s\n' "$out" | grep -q "caught fatal signal 11 (SIGSEGV" && [ "$(frames)" -ge 3 ]; then
        pass "$T/backtrace_signal"
    else fail "$T/backtrace_signal" "no signal line or fewer than 3 frames: $out"; fi
expect_rc "$T/no_backtrace_unasked" 1 30 "$GP_RUN" -n 1 "$PROG" fatal &&
    if [ "$(frames)" -eq 0 ] && ! printf '%s\n' "$out" | grep -q "^backtrace of"; then
        pass "$T/no_backtrace_unasked"
    else fail "$T/no_backtrace_unasked" "a backtrace nobody asked for: $out"; fi

# frozen NAME WANT_RC SETTING MODE: starts a 1-process job with SETTING, waits
# for its "frozen" line, checks it stays frozen, clears gasnet_frozen with gdb,
# and checks the job then ends with WANT_RC.
frozen() {
    name=$T/$1 want=$2 setting=$3 mode=$4
    if ! command -v gdb >/dev/null 2>&1; then echo "skip $name: gdb is not installed"; return; fi
    log=$tmp/$1.log
    : >"$log"
    (timeout -k 5 60 env "$setting" "$GP_RUN" -n 1 "$PROG" "$mode" >"$log" 2>&1; echo $? >"$log.rc") &
    job=$!
    tries=0
    while ! grep -q "frozen for a debugger" "$log" && [ $tries -lt 150 ]; do sleep 0.1; tries=$((tries + 1)); done
    pid=$(sed -n 's/.*frozen for a debugger (.*): host .* pid \([0-9]*\);.*/\1/p' "$log" | head -1)
    if [ -z "$pid" ]; then
        fail "$name" "no 'frozen' line naming a pid: $(cat "$log")"; kill "$job" 2>/dev/null; wait "$job"; return
    fi
    sleep 1
    if [ -s "$log.rc" ] || grep -q "went on" "$log"; then
        fail "$name" "the process did not wait for the debugger: $(cat "$log")"; wait "$job"; return
    fi
    said=$(gdb -p "$pid" -batch -ex 'set var gasnet_frozen=0' 2>&1)
    if printf '%s\n' "$said" | grep -qi "ptrace: Operation not permitted\|could not attach\|not permitted"; then
        echo "skip $name: ptrace is not permitted here"
        kill "$pid" 2>/dev/null; wait "$job"; return
    fi
    wait "$job"
    rc=$(cat "$log.rc")
    out=$(cat "$log")
    if [ "$rc" -ne "$want" ]; then fail "$name" "exit status $rc, expected $want: $out"; return 1; fi
    return 0
}

frozen freeze 0 GASNET_FREEZE=1 run &&
    if printf '%s\n' "$out" | grep -q "debug_cases: went on"; then pass "$T/freeze"
    else fail "$T/freeze" "the job did not go on after the debugger: $out"; fi
frozen freeze_on_error 1 GASNET_FREEZE_ON_ERROR=1 fatal &&
    if printf '%s\n' "$out" | grep -q "FATAL ERROR on node 0/1: put of 8 bytes" &&
       [ "$(printf '%s\n' "$out" | grep -n "FATAL ERROR" | cut -d: -f1 | head -1)" -lt \
         "$(printf '%s\n' "$out" | grep -n "frozen for a debugger" | cut -d: -f1 | head -1)" ]; then
        pass "$T/freeze_on_error"
    else fail "$T/freeze_on_error" "expected the fatal line, then the frozen line: $out"; fi

# A fatal error on a second thread (PAR builds) ends the job as on the main one.
case "$GPTEST_VARIANT" in
par|pasan)
    expect_rc "$T/thread_fatal" 1 60 "$GP_RUN" -n 2 "$PROG" thread_fatal &&
        if printf '%s\n' "$out" | grep -q "FATAL ERROR on node 1/2: debug_cases: a fatal error on a second thread" &&
           ! printf '%s\n' "$out" | grep -q "went on"; then pass "$T/thread_fatal"
        else fail "$T/thread_fatal" "no fatal line from node 1: $out"; fi ;;
*) echo "skip $T/thread_fatal: a second thread needs a PAR build" ;;
esac
end_tests
