#!/bin/sh
# The tcp transport (GP_TRANSPORT=tcp: every process of the job talks over
# loopback TCP sockets, no shared mapping): the ptl semantics of the unit
# tests between two processes, compared with shm (tcp_ptl); the ptl and
# core-API integration programs unchanged at N = 1, 2, 4, 8; and strangers
# at a running job's listener (tcp_stranger against tcp_hold): refused,
# logged with their address, and the job goes on; connections made on first
# use (GP_TCP_CONNECT=lazy, the default) and at attach (eager), crossed dials;
# a busy peer is waited for, a vanished one ends the job loudly (busy_peer);
# a connection stopped in the middle of a put stalls no other (tcp_half_put).
. "$(dirname "$0")/../lib.sh"

T=tcp
tmp=$(mktemp -d /tmp/gp-tcp-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export GP_TRANSPORT=tcp

check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

# Runs a job over tcp and checks its line and a clean, coordinated exit.
job() { # NAME PATTERN TIMEOUT CMD...
    name=$1 pattern=$2 limit=$3; shift 3
    expect_rc "$name" 0 "$limit" "$@" || return
    if printf '%s\n' "$out" | grep -q "the exit could not be coordinated"; then
        fail "$name" "exit status 0, but the exit was not coordinated"
        return
    fi
    check_line "$name" "$pattern"
}

# --- a busy peer is never fatal: started first, checked last --------------------------------
# Node 1 stays out of the library for BUSY_SECONDS while node 0 makes one blocking put
# to it, its first message there; then a barrier and node 1 checks the value.  Longer
# than the 60 s after which a dial once failed the job, and the slow-wait warning short
# (2 s) so the lazy dial's wait shows.  The jobs sleep (node 0 in poll, node 1 in
# nanosleep: ofi's node 0 polls), so they run beside the rest of this script and it pays
# their time once, not per case: over tcp lazy and eager, hybrid between two pretended
# hosts (tcp between them) and ofi's tcp;ofi_rxm where libfabric has it.
# The SEQ build waits past the old 60 s; the others run the same paths (the lazy dial's
# slow-wait line included) for 20 s.
case "$GPTEST_VARIANT" in seq) busy_default=65 ;; *) busy_default=20 ;; esac
BUSY_SECONDS=${GPTEST_BUSY_SECONDS:-$busy_default}
as_host_wrapper "$tmp"   # one rank a host: $tmp/as-host 1 PROGRAM ARGS...
busy_cases=
busy_start() { # CASE ENV...: a busy_peer job in the background, output in $tmp/busy-CASE
    busy_case=$1; shift
    busy_cases="$busy_cases $busy_case"
    (timeout -k 5 $((BUSY_SECONDS + 60)) env "$@" GP_SLOW_WAIT_MS=2000 "$GP_RUN" -n 2 \
        $BUSY_WRAP "$GPTEST_ITEST/busy_peer" busy "$BUSY_SECONDS" >"$tmp/busy-$busy_case" 2>&1
     echo "rc $?" >>"$tmp/busy-$busy_case") &
}
BUSY_WRAP= busy_start lazy GP_TCP_CONNECT=lazy
BUSY_WRAP= busy_start eager GP_TCP_CONNECT=eager
BUSY_WRAP="$tmp/as-host 1" busy_start hybrid -u GP_TRANSPORT -u GP_HYBRID_ORDER
if command -v fi_info >/dev/null 2>&1 && fi_info -p "tcp;ofi_rxm" -t FI_EP_RDM >/dev/null 2>&1; then
    BUSY_WRAP= busy_start ofi GP_TRANSPORT=ofi "GP_OFI_PROVIDER=tcp;ofi_rxm"
else
    echo "skip $T/busy_peer_ofi: libfabric lists no tcp;ofi_rxm provider here"
fi

# --- ptl semantics: the same program, the same events, over shm and tcp ------------------
for transport in shm tcp; do
    expect_rc "$T/ptl_semantics_$transport" 0 60 env GP_TRANSPORT=$transport \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/tcp_ptl" $transport &&
        check_line "$T/ptl_semantics_$transport" "tcp_ptl: $transport: every case as test_ptl.c describes it"
done

# --- the ptl exchange -----------------------------------------------------------------------
# ptl_exchange opens its NI itself, with the transport GP_TRANSPORT names;
# the debug log shows the tcp transport's lines (none for one process).
for n in 1 2 4 8; do
    if expect_rc "$T/exchange_n$n" 0 60 env GP_LOG_LEVEL=debug "$GP_RUN" -n $n "$GPTEST_ITEST/ptl_exchange"; then
        if [ $n -gt 1 ] && ! printf '%s\n' "$out" | grep -q "debug tcp: listening on"; then
            fail "$T/exchange_n$n" "ptl_exchange did not run over tcp"
        else
            check_line "$T/exchange_n$n" "ptl_exchange: $n processes, every byte verified"
        fi
    fi
done

# --- the core API -------------------------------------------------------------------------
for n in 1 2 4 8; do
    job "$T/am_core_n$n" "am_core: $n nodes, 1 rounds, every category" 30 \
        "$GP_RUN" -n $n "$GPTEST_ITEST/am_core" 1
done
for n in 1 2 4 8; do
    job "$T/am_flood_n$n" "am_flood: 400 requests from each of $n nodes arrived exactly once" 60 \
        env GASNET_PORTAL_AMRECV_SPACE=64K "$GP_RUN" -n $n "$GPTEST_ITEST/am_flood" 400 1
done
# PAR builds run 4 threads per process, SEQ builds 1.
for n in 1 2 4 8; do
    job "$T/am_threads_n$n" "each run exactly once" 60 \
        "$GP_RUN" -n $n "$GPTEST_ITEST/am_threads" 4 500
done

# --- counted puts --------------------------------------------------------------------------
# Every put over tcp is a counted put (no MD, no SEND_END, its ACK a count:
# doc/decisions.md, "Counted puts"); GP_DIRECT_RMA=0 keeps the seed's protocol.
# ext_core checks every put, get and memset form, so a count that is off
# fails a sync here (it hangs until the job's limit, or ends early with
# the bytes not yet there).
# Up to 16 MiB at 2 nodes and through the protocol, up to 1 MiB at 4 (the same paths).
for n in 2 4; do
    case $n in 2) max_size= ;; *) max_size=1M ;; esac
    job "$T/ext_counted_n$n" "ext_core: $n nodes, every put/get/memset form verified" 300 \
        env GP_LOG_LEVEL=debug "$GP_RUN" -n $n "$GPTEST_ITEST/ext_core" 20 $max_size &&
        check_line "$T/ext_counted_n$n" "debug rma: puts to $n of $n nodes are counted"
done
job "$T/ext_protocol_n4" "ext_core: 4 nodes, every put/get/memset form verified" 300 \
    env GP_LOG_LEVEL=debug GP_DIRECT_RMA=0 "$GP_RUN" -n 4 "$GPTEST_ITEST/ext_core" 20 &&
    check_line "$T/ext_protocol_n4" "debug rma: puts to 0 of 4 nodes are counted"
job "$T/ext_stress_counted_n4" "every area's checksum matched" 300 \
    "$GP_RUN" -n 4 "$GPTEST_ITEST/ext_stress" 2000 4
# Threads issuing nb/nbi puts at once, each syncing its own (PAR: 4 threads, SEQ: 1):
# the ACKs of one run may subtract from several threads' counts.
job "$T/ext_threads_counted_n2" "puts and gets verified" 300 \
    "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_threads" 4 20

# --- batching ---------------------------------------------------------------------------------
# A window of 64 non-blocking 8-byte puts, then a sync, 100 times: node 0's
# puts must leave many to a sendmsg, and node 1's ACKs many to a frame (an
# ACK_RUN); the transport's debug line at close counts both.  At least 40 to
# one: a window leaves in one write (TCP_DEFER_FRAMES 64) and is answered by
# one ACK_RUN (it was about 31 to one when a window left in two writes).
name=$T/batched_puts_and_ack_runs
if expect_rc "$name" 0 120 env GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_BIN/gp-bench" \
        --test put-rate --sizes 8 --iters 6400 --warmup 64 --no-progress; then
    line0=$(printf '%s\n' "$out" | sed -n 's#^gp\[0/2\] debug tcp: wrote \([0-9]*\) frames in \([0-9]*\) sendmsg calls; .*#\1 \2#p')
    line1=$(printf '%s\n' "$out" | sed -n 's#^gp\[1/2\] debug tcp: wrote .*; \([0-9]*\) ACKs in \([0-9]*\) frames#\1 \2#p')
    if [ -z "$line0" ] || [ -z "$line1" ]; then
        fail "$name" "no 'wrote ... frames' line from both nodes: $(printf '%s\n' "$out" | grep 'tcp: wrote')"
    elif ! echo "$line0 $line1" | awk '{ exit !($1 >= 6400 && $1 >= 40 * $2 && $3 >= 6400 && $3 >= 40 * $4) }'; then
        fail "$name" "node 0: frames, writes = $line0; node 1: ACKs, ACK frames = $line1 (want >= 40 to one)"
    else
        pass "$name (node 0: $line0 frames/writes, node 1: $line1 ACKs/frames)"
    fi
fi

# --- implicit replies gathered -------------------------------------------------------------------
# A one-way flood of 20,000 AM Short requests (gp-bench am-rate-short): node 1
# answers none of them, and the no-op replies that return their credits leave
# one per requester per poll (up to GASNET_PORTAL_AM_LIMIT, 8, requests each),
# not one per request: node 1 must write at most a quarter as many frames as
# node 0 sent requests (one each: 20,050 frames before).
name=$T/noop_replies_gathered
if expect_rc "$name" 0 120 env GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_BIN/gp-bench" \
        --test am-rate-short --iters 20000 --warmup 0 --no-progress; then
    frames=$(printf '%s\n' "$out" | sed -n 's#^gp\[\([01]\)/2\] debug tcp: wrote \([0-9]*\) frames in .*#\1 \2#p' | sort | awk '{ printf "%s ", $2 }')
    if ! echo "$frames" | awk 'NF == 2 && $1 >= 20000 && 4 * $2 <= $1 { ok = 1 } END { exit !ok }'; then
        fail "$name" "frames written by node 0, node 1: $frames (want node 1's at most a quarter of node 0's)"
    else
        pass "$name (frames written by node 0, node 1: $frames)"
    fi
fi
# A lone request's credits come back with the poll that takes it, not when a
# batch fills: node 1 floods node 0 with 2000 Medium requests of 256 bytes (2
# credits each) holding 4 credits and no loans, so at most two are in flight;
# credits held back for a fuller batch would stall it for good (the timeout).
job "$T/noop_replies_lone_credits" "am_flood: 2000 requests from each of 2 nodes arrived exactly once" 120 \
    env GASNET_PORTAL_CRED_PER_NODE=4 GASNET_PORTAL_DYNAMIC_CREDITS=0 \
    "$GP_RUN" -n 2 "$GPTEST_ITEST/am_flood" 2000 0

# --- reading first ----------------------------------------------------------------------------
# A 2-node AM ping-pong: each node has one hot connection and nothing to write
# between messages, so its passes read the socket first and poll only every
# 16th time; most messages must be found by those reads (each node receives
# 2000).  Polling first on every pass would leave the read-first counts at 0.
name=$T/pingpong_reads_first
if expect_rc "$name" 0 120 env GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_BIN/gp-bench" \
        --test am-lat-short --iters 2000 --warmup 10 --no-progress; then
    counts=$(printf '%s\n' "$out" | sed -n 's#^gp\[[01]/2\] debug tcp: progress: \([0-9]*\) passes polled first, \([0-9]*\) read first (\([0-9]*\) of their reads found data)#\1 \2 \3#p')
    if [ "$(printf '%s\n' "$counts" | grep -c .)" -ne 2 ]; then
        fail "$name" "no 'progress:' line from both nodes: $(printf '%s\n' "$out" | grep 'tcp: progress')"
    elif ! printf '%s\n' "$counts" | awk '{ if (!($3 >= 1000 && $2 > $1)) bad = 1 } END { exit bad }'; then
        fail "$name" "polled, read first, found (per node): $(printf '%s' "$counts" | tr '\n' ';') (want >= 1000 found, more passes reading than polling)"
    else
        pass "$name (polled, read first, found: $(printf '%s' "$counts" | tr '\n' ';'))"
    fi
fi

# --- connections made on first use (GP_TCP_CONNECT) --------------------------------------------
# tcp_lazy counts each node's sockets (/proc/self/fd) after its exchange: node
# i asks node i+1 (i even), nothing else.  Lazy: every node holds the same
# sockets (its listener, gp-run's, its one connection); eager: 6 more (all 7
# connections, made at attach).  Node 0 is left out: nodes that are done
# arrive at its barrier, which may open their connections before it counts.
node_sockets() { # OUTPUT: the distinct counts of nodes 1..7, one per line
    printf '%s\n' "$1" | sed -n 's/^tcp_lazy: node [1-7] holds \([0-9]*\) sockets$/\1/p' | sort -u
}
name=$T/lazy_opens_only_used_pairs
lazy_n=
if expect_rc "$name" 0 60 env GP_TCP_CONNECT=lazy "$GP_RUN" -n 8 "$GPTEST_ITEST/tcp_lazy" pairs; then
    lazy_n=$(node_sockets "$out")
    if [ "$(printf '%s\n' "$out" | grep -c '^tcp_lazy: node [1-7] holds')" -eq 7 ] &&
       [ "$(printf '%s\n' "$lazy_n" | wc -l)" -eq 1 ]; then
        pass "$name"
    else
        fail "$name" "nodes 1-7 should hold as many sockets each: $(printf '%s\n' "$out" | grep tcp_lazy:)"
        lazy_n=
    fi
fi
name=$T/eager_connects_at_attach
if expect_rc "$name" 0 60 env GP_TCP_CONNECT=eager "$GP_RUN" -n 8 "$GPTEST_ITEST/tcp_lazy" pairs; then
    eager_n=$(node_sockets "$out")
    if [ "$(printf '%s\n' "$eager_n" | wc -l)" -ne 1 ]; then
        fail "$name" "nodes 1-7 should hold as many sockets each: $(printf '%s\n' "$out" | grep tcp_lazy:)"
    elif [ -n "$lazy_n" ] && [ "$((eager_n - lazy_n))" -ne 6 ]; then
        fail "$name" "nodes hold $eager_n sockets in the eager job, $lazy_n in the lazy one: expected 6 more"
    else
        pass "$name"
    fi
fi
# Every node sends to every other at once: each pair's dials cross, and
# exactly one connection per pair must survive (the close line counts them),
# with no warning (a crossed dial is not a stranger).
name=$T/lazy_crossed_dials
if expect_rc "$name" 0 60 env GP_LOG_LEVEL=debug "$GP_RUN" -n 6 "$GPTEST_ITEST/tcp_lazy" all; then
    conns=$(printf '%s\n' "$out" | grep -c "debug tcp: 5 connections (.*GP_TCP_CONNECT=lazy)")
    if [ "$(printf '%s\n' "$out" | grep -c '^tcp_lazy: node [0-9]* holds')" -ne 6 ]; then
        fail "$name" "not every node finished its exchange: $(printf '%s\n' "$out" | grep -v ' debug ' | tail -5)"
    elif [ "$conns" -ne 6 ]; then
        fail "$name" "expected 5 connections on each of 6 nodes: $(printf '%s\n' "$out" | grep 'debug tcp: [0-9]* connections')"
    elif printf '%s\n' "$out" | grep -q ' warn \| error '; then
        fail "$name" "warnings or errors: $(printf '%s\n' "$out" | grep ' warn \| error ' | head -5)"
    else
        pass "$name"
    fi
fi
name=$T/connect_bad_value
if expect_rc "$name" 2 30 env GP_TCP_CONNECT=sometimes "$GP_RUN" -n 2 "$GPTEST_ITEST/tcp_lazy" pairs; then
    check_line "$name" "GP_TCP_CONNECT='sometimes' is not valid: expected one of lazy|eager"
fi

# --- strangers --------------------------------------------------------------------------------
# Rank 0 of a running job logs its listener at debug level; the stranger
# knocks there with no key, a wrong key and garbage while rank 0 holds
# still, polling, and holds one connection silent until rank 0's deadline
# for a key proof (GP_TCP_KEYPROOF_MS, 2 s here) closes it.  Every attempt must be refused and logged
# with the stranger's address, and the job must then complete normally.
name=$T/stranger_refused
GP_LOG_LEVEL=debug GP_TCP_KEYPROOF_MS=2000 timeout -k 5 60 "$GP_RUN" -n 2 "$GPTEST_ITEST/tcp_hold" "$tmp/go" \
    >"$tmp/job" 2>&1 &
job_pid=$!
addr=
for _ in $(seq 1 200); do
    addr=$(sed -n 's#^gp\[0/2\] debug tcp: listening on \([0-9.]*:[0-9]*\)$#\1#p' "$tmp/job")
    [ -n "$addr" ] && break
    sleep 0.1
done
if [ -n "$addr" ]; then
    stranger_out=$(timeout 60 "$GPTEST_ITEST/tcp_stranger" "$addr" 2>&1)
    stranger_rc=$?
else
    stranger_out="rank 0 never logged its listener"
    stranger_rc=1
fi
touch "$tmp/go"
wait $job_pid
job_rc=$?
refused=$(grep -c "gp\[0/2\] warn tcp: refused a connection from 127\.0\.0\.1:[0-9]*: " "$tmp/job")
if [ "$stranger_rc" -ne 0 ]; then
    fail "$name" "the stranger was not refused every time: $stranger_out"
elif [ "$job_rc" -ne 0 ] || ! grep -q "tcp_hold: 2 nodes went on" "$tmp/job"; then
    fail "$name" "the job did not go on (exit status $job_rc): $(grep -v ' debug ' "$tmp/job" | tail -5)"
elif grep -q "the exit could not be coordinated" "$tmp/job"; then
    fail "$name" "the job went on, but its exit was not coordinated"
elif [ "$refused" -ne 6 ]; then
    fail "$name" "$refused of 6 attempts logged as refused: $(grep refused "$tmp/job")"
elif ! grep -q "refused a connection from .*: wrong key proof" "$tmp/job" ||
     ! grep -q "refused a connection from .*: sent garbage instead of a key proof" "$tmp/job" ||
     ! grep -q "refused a connection from .*: no key proof in time" "$tmp/job"; then
    fail "$name" "the refusals do not say why: $(grep refused "$tmp/job")"
elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$tmp/job"; then
    fail "$name" "sanitizer report: $(grep -A5 'ERROR\|runtime error' "$tmp/job" | head -20)"
else
    pass "$name"
fi

# --- a peer that vanished mid-job -----------------------------------------------------------
# Node 1 ends without the job's exit (_exit), then node 0 puts to it: first contact (its
# listener refuses the dial), or over a connection made before (closed under the put,
# which awaits its ACK).  The job must end with a fatal line naming the rank, its address
# and the cause, not report the put complete (the old code did, or waited for ever).
for how in dial open; do
    name=$T/vanished_peer_$how
    mkdir -p "$tmp/gone-$how"
    arg=; [ $how = open ] && arg=open
    if expect_rc "$name" 1 60 "$GP_RUN" -n 2 "$GPTEST_ITEST/busy_peer" gone "$tmp/gone-$how" $arg; then
        if printf '%s\n' "$out" | grep -q "reported completion"; then
            fail "$name" "the put to a process that had ended reported completion"
        else
            case $how in
            dial) cause="put of 8 bytes to rank 1 at 127\.0\.0\.1:[0-9]* failed: the peer is gone (refused a new connection while connecting), and the job is not exiting" ;;
            open) cause="operation(s) to rank 1 at 127\.0\.0\.1:[0-9]* can never complete: the peer is gone (.*), and the job is not exiting" ;;
            esac
            check_line "$name" "FATAL ERROR on node 0/2: tcp: .*$cause"
        fi
    fi
done

# --- one connection in the middle of a frame -------------------------------------------------
# Node 1 writes half a put to node 0 by hand and stops; node 2's 2000 AM round
# trips with node 0 must complete meanwhile (a hang here: node 0 stopped
# reading every other connection until that body was in), then node 1 writes
# the rest and the put's bytes must all be in place.
rm -f "$tmp/half_go" "$tmp/half_go.half"
job "$T/half_put_n3" "round trips with node 2 while node 1's put was half received" 60 \
    "$GP_RUN" -n 3 "$GPTEST_ITEST/tcp_half_put" "$tmp/half_go" &&
    check_line "$T/half_put_n3" "the put's 65536 bytes arrived whole once node 1 went on"

# --- several application threads at once ---------------------------------------------------
# PAR builds: threads sending and polling at once, over sockets.  (The
# receive thread's tests are rcv_thread.sh.)
case "${GPTEST_VARIANT:-seq}" in
par|pasan)
    job "$T/am_pollers_n4" "each run exactly once with intact data" 120 \
        "$GP_RUN" -n 4 "$GPTEST_ITEST/am_pollers" 2 2 600
    # A thread stuck sending to a node that reads nothing; another thread's
    # round trips to a third node go on (a hang here: they were blocked).
    rm -f "$tmp/stall_go"
    job "$T/stalled_peer_n3" "round trips to node 2 while a thread was stuck sending to node 1" 120 \
        "$GP_RUN" -n 3 "$GPTEST_ITEST/tcp_stall" "$tmp/stall_go"
    ;;
esac

# --- a busy peer: the jobs started first ------------------------------------------------------
wait
for busy_case in $busy_cases; do
    name=$T/busy_peer_$busy_case
    busy_log=$tmp/busy-$busy_case
    busy_rc=$(sed -n 's/^rc \([0-9]*\)$/\1/p' "$busy_log")
    if [ "$busy_rc" != 0 ]; then
        fail "$name" "exit status $busy_rc: $(grep -v ' debug ' "$busy_log" | tail -5)"
    elif ! grep -q "busy_peer: node 1 was busy for $BUSY_SECONDS s; node 0's put landed" "$busy_log"; then
        fail "$name" "no line saying the put landed: $(tail -5 "$busy_log")"
    elif grep -q "the exit could not be coordinated\| error \|FATAL" "$busy_log"; then
        fail "$name" "errors: $(grep "the exit could not\| error \|FATAL" "$busy_log" | head -3)"
    elif [ "$busy_case" = lazy ] && ! grep -q "still waiting for the connection to rank 1 at .*the peer may be computing" "$busy_log"; then
        fail "$name" "the put did not wait for its dial (no slow-wait line): $(tail -5 "$busy_log")"
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$busy_log"; then
        fail "$name" "sanitizer report: $(grep -A5 'ERROR\|runtime error' "$busy_log" | head -20)"
    else
        pass "$name (node 1 out of the library for $BUSY_SECONDS s)"
    fi
done
end_tests
