#!/bin/sh
# Ranks waiting in GASNET_WAIT_BLOCK leave the CPU to the ranks that work
# (progress.c, "Dozing"): in a barrier that node 0 keeps waiting while it
# computes, each other node's process uses under a tenth of the wait's wall
# time as CPU (a waiter that polls and yields takes its turn whenever the
# scheduler comes round: a quarter to a half of it here).  A doze ends when
# a peer posts: with a cap of 5 s every waiter counts dozes that a peer's
# message woke and none that slept the whole cap.  Where a peer is reached over tcp nothing could
# wake a doze, so nobody dozes.
. "$(dirname "$0")/../lib.sh"

T=idle_block
tmp=$(mktemp -d /tmp/gp-idle-block-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT GP_HYBRID_ORDER GP_OFI_PROVIDER FI_PROVIDER
as_host_wrapper "$tmp"   # $tmp/as-host PER_HOST PROGRAM ARGS...

# cpu_share NAME: every waiter's "waited W ms and used C ms of CPU" line, C under W / 10.
cpu_share() {
    lines=$(printf '%s\n' "$out" | grep -c "^idle_block: node [0-9]* waited")
    over=$(printf '%s\n' "$out" | sed -n 's/^idle_block: node \([0-9]*\) waited \([0-9]*\) ms and used \([0-9]*\) ms of CPU$/\1 \2 \3/p' |
           awk '$3 * 10 >= $2 { printf "node %s used %s of %s ms; ", $1, $3, $2 }')
    if [ "$lines" -ne "$2" ]; then fail "$1" "expected $2 waiter lines, got $lines: $(printf '%s\n' "$out" | tail -3)"
    elif [ -n "$over" ]; then fail "$1" "waiters used a tenth of their wait or more as CPU: $over"
    else pass "$1"; fi
}

if expect_rc "$T/cpu_n4" 0 120 "$GP_RUN" -n 4 "$GPTEST_ITEST/idle_block" cpu 500 2; then
    cpu_share "$T/cpu_n4" 3
fi

# Woken, not timed out: a cap of 5 s, three rounds of 300 ms; the debug line counts the dozes.
if expect_rc "$T/woken_n4" 0 120 env GP_DOZE_MAX_US=5000000 GP_LOG_LEVEL=debug \
        "$GP_RUN" -n 4 "$GPTEST_ITEST/idle_block" cpu 300 3; then
    dozed=$(printf '%s\n' "$out" | grep -c "debug progress: waits dozed [1-9][0-9]* times: [1-9][0-9]* woken by a peer, 0 for the whole GP_DOZE_MAX_US")
    if [ "$dozed" -eq 3 ]; then pass "$T/woken_n4/by_peers"
    else fail "$T/woken_n4/by_peers" "expected 3 waiters' lines saying peers woke them and none slept its whole 5 s: $(printf '%s\n' "$out" | grep 'dozed' | tr '\n' ' ')"; fi
fi

# A pair's round trips among sleeping waiters (doorbell mode at 8 nodes): every reply right.
# Each of the pair polls the other's rings directly after the first messages, so the other's
# posts stop ringing its doorbell (ring_rung in the credit statistics, which node 1 writes in
# its working directory): a few rings for its 5,000 replies, not one per reply.
if expect_rc "$T/pair_n8" 0 120 sh -c 'cd "$1" && shift && exec "$@"' sh "$tmp" \
        env GASNET_PORTAL_CREDIT_STATS=1 "$GP_RUN" -n 8 "$GPTEST_ITEST/idle_block" pair 5000; then
    check_line "$T/pair_n8" "5000 round trips between nodes 0 and 1 with 6 nodes waiting in GASNET_WAIT_BLOCK, median .* us, all replies checked"
    line=$(grep -h "^peer=0 " "$tmp"/gp-credits.*.1 2>/dev/null)
    sent=$(printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^ring_sent=//p')
    rung=$(printf '%s\n' "$line" | tr ' ' '\n' | sed -n 's/^ring_rung=//p')
    if [ -n "$sent" ] && [ "$sent" -ge 5000 ] && [ -n "$rung" ] && [ "$rung" -lt 100 ]; then
        pass "$T/pair_n8/polled_directly (node 1 posted $sent to node 0 and rang $rung times)"
    else
        fail "$T/pair_n8/polled_directly" "node 1 to 0: ring_sent='$sent' (expected >= 5000), ring_rung='$rung' (expected < 100)"
    fi
fi

# PAR: waits doze too, beside a second thread that polls and takes most of the answers the
# dozing thread waits for; no doze may sleep the whole cap (5 s), which no post would end.
case "$GPTEST_VARIANT" in
par|pasan)
    if expect_rc "$T/threads_n2" 0 120 env GP_DOZE_MAX_US=5000000 GP_LOG_LEVEL=debug \
            "$GP_RUN" -n 2 "$GPTEST_ITEST/idle_block" threads 300; then
        if ! printf '%s\n' "$out" | grep -q "^idle_block: node 0 had 300 answers, each in order$"; then
            fail "$T/threads_n2" "node 0 did not report its 300 answers: $(printf '%s\n' "$out" | tail -3)"
        elif ! printf '%s\n' "$out" | grep -q "^gp\[0/2\] debug progress: waits dozed [1-9][0-9]* times: [0-9]* woken by a peer, 0 for the whole GP_DOZE_MAX_US"; then
            fail "$T/threads_n2" "node 0 did not doze, or a doze slept the whole cap: $(printf '%s\n' "$out" | grep 'dozed' | tr '\n' ' ')"
        else
            pass "$T/threads_n2 ($(printf '%s\n' "$out" | sed -n 's/^gp\[0\/2\] debug progress: waits dozed \([0-9]*\) times.*/\1/p') dozes)"
        fi
    fi ;;
esac

# Peers over tcp (pretended hosts: two per host): a doze could not be woken, so none is taken.
if expect_rc "$T/tcp_peers_n4" 0 120 env GP_LOG_LEVEL=debug "$GP_RUN" -n 4 "$tmp/as-host" 2 \
        "$GPTEST_ITEST/idle_block" cpu 200 2; then
    if printf '%s\n' "$out" | grep -q "waits dozed"; then
        fail "$T/tcp_peers_n4" "a node with peers over tcp dozed: $(printf '%s\n' "$out" | grep -m1 'waits dozed')"
    else
        check_line "$T/tcp_peers_n4" "idle_block: node 3 waited"
    fi
fi
end_tests
