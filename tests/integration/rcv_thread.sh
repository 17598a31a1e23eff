#!/bin/sh
# The receive thread (GASNET_RCV_THREAD=1) over tcp.  PAR builds: a node
# that computes without calling GASNet has its peers' gets, puts and AM
# requests served by the thread, handlers included (rcv_thread checks they
# ran there and not on the main thread); am_core and am_pollers then run
# with the thread's handlers beside the application's own polling, every
# payload checked.  SEQ builds refuse the thread with a warning.
# tests/soak.sh runs this script 50 times over in the pasan build (make soak).
. "$(dirname "$0")/../lib.sh"

T=rcv_thread
export GP_TRANSPORT=tcp GASNET_RCV_THREAD=1

# Runs a job and checks its line and a clean, coordinated exit.
job() { # NAME PATTERN TIMEOUT CMD...
    name=$1 pattern=$2 limit=$3; shift 3
    expect_rc "$name" 0 "$limit" "$@" || return
    if printf '%s\n' "$out" | grep -q "the exit could not be coordinated"; then
        fail "$name" "exit status 0, but the exit was not coordinated"
    elif ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
        fail "$name" "missing '$pattern' in: $(printf '%s\n' "$out" | tail -5)"
    else
        pass "$name"
    fi
}

case "${GPTEST_VARIANT:-seq}" in
par|pasan)
    # One AM event per poll: the thread must drain the burst on its own.
    job "$T/handlers_on_thread" "rcv_thread: node 1 served a get, a put and 28 AM requests (Short, Medium, Long, a burst of Shorts) on its receive thread while it computed" 120 \
        env GASNET_PORTAL_AM_LIMIT=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/rcv_thread"
    for n in 2 4; do
        job "$T/am_core_n$n" "am_core: $n nodes, 1 rounds, every category" 120 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/am_core" 1
        job "$T/am_pollers_n$n" "each run exactly once with intact data" 120 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/am_pollers" 2 2 600
    done
    ;;
*)
    job "$T/seq_refused" "GASNET_RCV_THREAD=1 ignored: a receive thread needs the thread-safe library" 60 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1
    ;;
esac
end_tests
