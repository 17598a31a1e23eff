#!/bin/sh
# On-node AMs through the slot rings (GP_SHM_AM_RING, am_ring.c in the
# conduit): every node flooding every other at once with requests whose
# handlers reply, every category byte-checked (Mediums up to the inline
# limit, gasnet_AMMaxMedium(); Longs copied straight into the segment), node 0
# deaf for a second so the rings to it fill and their senders wait for slots,
# at 2, 4 and 8 nodes; in PAR builds several threads per node sending to the
# same peers.  The credit statistics (GASNET_PORTAL_CREDIT_STATS) show that
# the rings carried the traffic and that senders waited, the live statistics
# page (gp-top) counts it as AM events; GP_SHM_AM_RING=0
# sends the same through the Portals protocol, and the rings carry nothing.
# With pretended hosts, the rings serve each host of at most GP_SHM_AM_RING_RANKS
# nodes, whatever the job's size, and a mailbox holds its host's nodes' rings.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/gp-am-ring.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1   # each node writes its statistics file here

check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}
# ring FILE_RANK PEER KEY: KEY on node FILE_RANK's line for PEER
ring() {
    grep -h "^peer=$2 " "$work"/gp-credits.*."$1" | tr ' ' '\n' | sed -n "s/^$3=//p"
}

if slow_run; then count=60; else count=200; fi
for n in 2 4 8; do
    rm -f "$work"/gp-credits.*
    name=am_ring/flood_both_ways_n$n
    expect_rc "$name" 0 180 env GASNET_PORTAL_CREDIT_STATS=1 \
        "$GP_RUN" -n $n "$GPTEST_ITEST/am_ring" $count 1 1 || continue
    check_line "$name" "am_ring: $n nodes x 1 threads x $count requests to each peer, every reply back, every byte checked"
    # node 1 sent count requests to node 0 and node 0 count replies to it, all by ring
    # (and a few barrier messages); node 0 was deaf for a second, so node 1 waited for slots.
    sent=$(ring 1 0 ring_sent) got=$(ring 0 1 ring_received) stalls=$(ring 1 0 ring_stalls)
    if [ "$sent" -ge $((2 * count)) ] && [ "$sent" -le $((2 * count + 8)) ] && [ "$got" -eq "$sent" ] &&
       [ "$stalls" -gt 0 ]; then
        pass "$name/stats (ring_sent=$sent ring_received=$got ring_stalls=$stalls)"
    else
        fail "$name/stats" "node 1 to 0: ring_sent=$sent (expected $((2 * count))), node 0 from 1: ring_received=$got, ring_stalls=$stalls"
    fi
done

# Several threads per node sending to the same peers (PAR; a SEQ build runs one).
expect_rc am_ring/threads_n4 0 180 "$GP_RUN" -n 4 "$GPTEST_ITEST/am_ring" $count 4 0 &&
    check_line am_ring/threads_n4 "every reply back, every byte checked"

# gp-top's view of a running job: its live statistics page counts the requests the rings
# carried as AM events (node 1 sends node 0 2000 Mediums, by ring).
hold="$work/hold"
mkdir -p "$hold"
"$GP_RUN" -n 2 "$GPTEST_ITEST/credit_dyn" hotspot 2000 "$hold" >"$hold/out" 2>&1 &
runner=$!
tries=0
while [ ! -s "$hold/ready" ] && [ $tries -lt 300 ]; do sleep 0.1; tries=$((tries + 1)); done
jobid=$(cat "$hold/ready" 2>/dev/null)
tries=0 am=
while [ -n "$jobid" ] && [ $tries -lt 150 ]; do
    # a page is republished only while its process polls, at most every 5 ms
    am=$("$GPTEST_ITEST/stats_dump" "$jobid" 2 2>/dev/null | sed -n 's/^rank=0 .* am_events=\([0-9]*\).*/\1/p')
    [ -n "$am" ] && [ "$am" -ge 2000 ] && break
    tries=$((tries + 1))
    sleep 0.1
done
touch "$hold/go"
wait $runner
rc=$?
if [ -z "$jobid" ]; then
    fail am_ring/stats_page "the job never got ready: $(cat "$hold/out")"
elif [ "$rc" -ne 0 ] || [ -z "$am" ] || [ "$am" -lt 2000 ]; then
    fail am_ring/stats_page "exit status $rc, node 0's page shows am_events='$am' (expected >= 2000)"
else
    pass "am_ring/stats_page (node 0 counted $am AM events)"
fi

# Rings per host, not per job: two pretended hosts (GP_HOST_ID), a of nodes 0-5 and b of nodes
# 6-10, and GP_SHM_AM_RING_RANKS=5.  Host b's five nodes use rings to each other in a job of 11
# (a doorbell, by their local numbers 0-4, not their ranks), each mailbox sized for its host's
# five; host a's six, one over the limit, and every message between hosts go the Portals way.
cat >"$work/two-hosts" <<'WRAP'
#!/bin/sh
if [ "$GP_RANK" -lt 6 ]; then GP_HOST_ID=a; else GP_HOST_ID=b; fi
export GP_HOST_ID
exec "$@"
WRAP
chmod +x "$work/two-hosts"
rm -f "$work"/gp-credits.*
name=am_ring/per_host_limit
if expect_rc $name 0 180 env GP_SHM_AM_RING_RANKS=5 GP_LOG_LEVEL=debug GASNET_PORTAL_CREDIT_STATS=1 \
        "$GP_RUN" -n 11 "$work/two-hosts" "$GPTEST_ITEST/am_ring" 20 1 0; then
    check_line $name "am_ring: 11 nodes x 1 threads x 20 requests to each peer, every reply back"
    # "AM mailbox: B bytes (10 rings of R bytes) for the 5 nodes of this host (11 in the job)",
    # B no more than the 10 rings and the header (the doorbell's line and 256 flag bytes)
    boxes=0
    for box in $(printf '%s\n' "$out" | sed -n 's/.*AM mailbox: \([0-9]*\) bytes (10 rings of \([0-9]*\) bytes) for the 5 nodes of this host (11 in the job).*/\1:\2/p'); do
        b=${box%:*} r=${box#*:}
        [ "$b" -ge $((10 * r)) ] && [ "$b" -le $((10 * r + 320)) ] && boxes=$((boxes + 1))
    done
    others=$(printf '%s\n' "$out" | grep -c "AM mailbox:")
    on_b=$(ring 10 6 ring_sent) got_b=$(ring 6 10 ring_received)
    on_a=$(ring 1 0 ring_sent) a_to_b=$(ring 0 6 ring_sent) b_to_a=$(ring 6 0 ring_sent)
    if [ "$boxes" -eq 5 ] && [ "$others" -eq 5 ] && [ "$on_b" -ge 40 ] && [ "$got_b" -eq "$on_b" ] &&
       [ "$on_a" = 0 ] && [ "$a_to_b" = 0 ] && [ "$b_to_a" = 0 ]; then
        pass "$name/stats (host b: 5 mailboxes for 5 nodes, node 10 to 6 ring_sent=$on_b; host a and between hosts: none)"
    else
        fail "$name/stats" "mailboxes for 5 nodes: $boxes of $others (expected 5 of 5); node 10 to 6: ring_sent=$on_b received=$got_b (expected >= 40, equal); node 1 to 0: $on_a, node 0 to 6: $a_to_b, node 6 to 0: $b_to_a (expected 0)"
    fi
fi

# The switch: the same traffic through the Portals protocol, none through the rings.
rm -f "$work"/gp-credits.*
if expect_rc am_ring/off 0 180 env GP_SHM_AM_RING=0 GASNET_PORTAL_CREDIT_STATS=1 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_ring" 50 1 0; then
    sent=$(ring 1 0 ring_sent)
    if [ "$sent" = 0 ]; then pass am_ring/off; else fail am_ring/off "ring_sent=$sent with GP_SHM_AM_RING=0"; fi
fi
end_tests
