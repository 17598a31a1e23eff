#!/bin/sh
# Dynamic credits with real processes, read back from the statistics each
# node writes at exit (GASNET_PORTAL_CREDIT_STATS=1, gp-credits.JOBID.RANK):
# a hot spot where a stalled sender is lent extra credits; a lender whose
# bank runs out revoking from idle peers; epochs that decay; a long run of
# random AMs under tight credits, nothing lost and no catch-basin hit; and
# peers that start below a full Medium and ask for the rest.
. "$(dirname "$0")/../lib.sh"
# The Portals protocol's credits: on-node AMs would otherwise take the slot rings
# (GP_SHM_AM_RING, whose own flow control am_ring.sh tests) and use none.
export GP_SHM_AM_RING=0

work=$(mktemp -d /tmp/gp-credits.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1   # each node writes its statistics file here

# field FILE_SUFFIX LINE_PREFIX KEY: the value of KEY on the first line starting with PREFIX
field() {
    grep -h "^$2" "$work"/gp-credits.*."$1" | head -1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

run_traffic() { # NAME N MODE COUNT ENV...
    name=$1 n=$2 mode=$3 count=$4
    shift 4
    rm -f "$work"/gp-credits.*
    expect_rc "$name" 0 300 env GASNET_PORTAL_CREDIT_STATS=1 "$@" \
        "$GP_RUN" -n "$n" "$GPTEST_ITEST/credit_dyn" "$mode" "$count" || return 1
    [ "$(ls "$work"/gp-credits.* 2>/dev/null | wc -l)" -eq "$n" ] ||
        { fail "$name" "expected $n statistics files, found: $(ls "$work")"; return 1; }
}

# 1. Hot spot: node 1 floods node 0 with full Mediums starting from 4 credits.
for n in 4 8; do
    if run_traffic "credits/hotspot_n$n" $n hotspot 2000 GASNET_PORTAL_CRED_PER_NODE=4; then
        stalls=$(field 1 node= stalls) asked=$(field 1 node= extra_requested)
        got=$(field 1 peer=0 send_credits) lent=$(field 0 peer=1 loan_credits)
        granted=$(field 0 node= extra_granted)
        if [ "$stalls" -gt 0 ] && [ "$asked" -gt 0 ] && [ "$got" -gt 4 ] && [ "$lent" -eq "$got" ] &&
           [ "$granted" -ge $((got - 4)) ]; then
            pass "credits/hotspot_n$n (stalls $stalls, credits to node 0 grew 4 -> $got)"
        else
            fail "credits/hotspot_n$n" "stalls=$stalls asked=$asked send_credits=$got loan_credits=$lent granted=$granted"
        fi
    fi
done

# 1b. GASNET_PORTAL_DYNAMIC_CREDITS=0 keeps the static distribution: the sender
# stalls, but nothing is lent and nothing revoked.
if run_traffic "credits/static_only" 4 hotspot 500 GASNET_PORTAL_CRED_PER_NODE=4 \
        GASNET_PORTAL_DYNAMIC_CREDITS=0; then
    stalls=$(field 1 node= stalls) got=$(field 1 peer=0 send_credits)
    granted=$(field 0 node= extra_granted) revokes=$(field 0 node= revokes_sent)
    if [ "$stalls" -gt 0 ] && [ "$got" -eq 4 ] && [ "$granted" -eq 0 ] && [ "$revokes" -eq 0 ]; then
        pass "credits/static_only"
    else
        fail "credits/static_only" "stalls=$stalls send_credits=$got granted=$granted revokes=$revokes"
    fi
fi

# 2. A small bank: lending to the hot sender empties it, and the lender
# revokes from the idle peers, which give back what they do not use.
for n in 4 8; do
    if run_traffic "credits/revoke_n$n" $n hotspot 2000 GASNET_PORTAL_CRED_PER_NODE=16 \
            GASNET_PORTAL_AMRECV_SPACE=64K; then
        sent=$(field 0 node= revokes_sent) recovered=$(field 0 node= credits_recovered)
        received=$(field 2 node= revokes_received) returned=$(field 2 node= credits_returned)
        left=$(field 2 peer=0 send_credits) lent=$(field 0 peer=2 loan_credits)
        if [ "$sent" -gt 0 ] && [ "$recovered" -gt 0 ] && [ "$received" -gt 0 ] &&
           [ "$returned" -gt 0 ] && [ "$left" -lt 16 ] && [ "$left" -ge 4 ] && [ "$left" -eq "$lent" ]; then
            pass "credits/revoke_n$n (node 0 sent $sent revokes, got $recovered credits back)"
        else
            fail "credits/revoke_n$n" "revokes_sent=$sent recovered=$recovered; node 2: received=$received returned=$returned send_credits=$left (node 0 thinks $lent)"
        fi
    fi
done

# 2b. A target that computes without polling holds the sender's credits: the
# sender's wait says so once (credits, and which node), and the job then ends well.
if run_traffic "credits/slow_wait" 2 deaf 200 GASNET_PORTAL_CRED_PER_NODE=4 GP_SLOW_WAIT_MS=500; then
    said=$(printf '%s\n' "$out" | grep -c "gp\[1/2\] warn am: still waiting for [0-9]* credit(s) to send to node 0 .* after [0-9.]* s")
    if [ "$said" -eq 1 ] && printf '%s\n' "$out" | grep -q "every message arrived once"; then
        pass "credits/slow_wait"
    else
        fail "credits/slow_wait" "$said warning lines, expected 1: $out"
    fi
fi

# 3. Short epochs: they end, and what was lent in them decays.
if run_traffic "credits/epochs" 4 hotspot 2000 GASNET_PORTAL_CRED_PER_NODE=4 \
        GASNET_PORTAL_EPOCH_DURATION=64; then
    epochs=$(field 0 node= epochs) given=$(field 0 peer=1 loan_given) granted=$(field 0 node= extra_granted)
    if [ "$epochs" -ge 10 ] && [ "$given" -lt "$granted" ]; then
        pass "credits/epochs ($epochs epochs; LoanGiven decayed to $given of $granted granted)"
    else
        fail "credits/epochs" "epochs=$epochs loan_given=$given extra_granted=$granted"
    fi
fi

# 4. Random AMs of random sizes to random nodes under tight credits: a million
# in all in the SEQ build (fewer under the sanitizers), checksummed, none lost.
case "$GPTEST_VARIANT" in seq) each=250000 ;; *) each=25000 ;; esac
if run_traffic "credits/random_$((each * 4))_ams" 4 random $each GASNET_PORTAL_CRED_PER_NODE=4 \
        GASNET_PORTAL_AMRECV_SPACE=64K; then
    moved=$(grep -h '^node' "$work"/gp-credits.* | tr ' ' '\n' | sed -n 's/^extra_granted=//p' | awk '{s += $1} END {print s}')
    if printf '%s\n' "$out" | grep -q "every message arrived once" && [ "$moved" -gt 0 ]; then
        pass "credits/random_$((each * 4))_ams ($moved credits lent on demand)"
    else
        fail "credits/random_$((each * 4))_ams" "moved=$moved: $out"
    fi
fi

# sum KEY: KEY summed over every node's node line.
sum() {
    grep -h '^node' "$work"/gp-credits.* | tr ' ' '\n' | sed -n "s/^$1=//p" | awk '{s += $1} END {print s + 0}'
}

# 4b. Peers that start with 1 credit (a Short) and floods of Mediums: every
# Medium above 256 bytes needs an ask.  Without dynamic credits nothing is
# lent for good: every ask is answered with credits for one request, which
# come home when it has been handled.  A catch-basin hit would be fatal.
case "$GPTEST_VARIANT" in seq) each=20000 ;; *) each=4000 ;; esac
if run_traffic "credits/asks_admit" 4 random $each GASNET_PORTAL_CRED_PER_NODE=1 \
        GASNET_PORTAL_DYNAMIC_CREDITS=0; then
    asks=$(sum asks_sent) answered=$(sum asks_received) admitted=$(sum credits_admitted)
    lent=$(sum credits_lent_on_ask)
    if printf '%s\n' "$out" | grep -q "every message arrived once" && [ "$asks" -gt 0 ] &&
       [ "$answered" -eq "$asks" ] && [ "$admitted" -ge "$asks" ] && [ "$lent" -eq 0 ]; then
        pass "credits/asks_admit ($asks asks, $admitted credits admitted)"
    else
        fail "credits/asks_admit" "asks_sent=$asks asks_received=$answered credits_admitted=$admitted credits_lent_on_ask=$lent: $out"
    fi
fi

# 4c. The same with dynamic credits and a small ReqRB (64K: 180 credits, 1
# per peer and a bank of 172): a bank well above its low mark answers asks
# with loans for good, which then grow through the credit bytes of the replies as before.
case "$GPTEST_VARIANT" in seq) each=20000 ;; *) each=2000 ;; esac
if run_traffic "credits/asks_lend" 8 random $each GASNET_PORTAL_CRED_PER_NODE=1 \
        GASNET_PORTAL_AMRECV_SPACE=64K; then
    asks=$(sum asks_sent) lent=$(sum credits_lent_on_ask) bank=$(field 0 node= banked)
    if printf '%s\n' "$out" | grep -q "every message arrived once" && [ "$asks" -gt 0 ] &&
       [ "$lent" -gt 0 ]; then
        pass "credits/asks_lend ($asks asks, $lent credits lent on them; node 0's bank ends at $bank)"
    else
        fail "credits/asks_lend" "asks_sent=$asks credits_lent_on_ask=$lent: $out"
    fi
fi

# 5. The live statistics pages of a running job: readable by the job's user
# (mode 0600), showing the hot spot's loan while the job runs, gone after it.
hold=$(mktemp -d /tmp/gp-hold.XXXXXX)
GASNET_PORTAL_CRED_PER_NODE=4 "$GP_RUN" -n 4 "$GPTEST_ITEST/credit_dyn" hotspot 2000 "$hold" \
    >"$hold/out" 2>&1 &
runner=$!
tries=0
while [ ! -s "$hold/ready" ] && [ $tries -lt 300 ]; do sleep 0.1; tries=$((tries + 1)); done
jobid=$(cat "$hold/ready" 2>/dev/null)
modes=$(stat -c %a /dev/shm/gp-"$jobid"-stats-* 2>/dev/null | sort -u | tr '\n' ' ')
# A page is republished at most every 5 ms and only while its process polls
# (every 256th poll looks at the clock), so on a fast machine the traffic can
# end before any page shows it: the pages may still hold their attach-time
# values (4 and 4, which agree).  Read until both sides have published their
# view of the loan itself (a monitor sees the same lag).
tries=0
while :; do
    dump=$("$GPTEST_ITEST/stats_dump" "$jobid" 4 2>&1)
    lent=$(printf '%s\n' "$dump" | sed -n 's/^rank=0 peer=1 loan_credits=\([0-9]*\).*/\1/p')
    borrowed=$(printf '%s\n' "$dump" | sed -n 's/^rank=1 peer=0 loan_credits=[0-9]* send_credits=\([0-9]*\).*/\1/p')
    [ -n "$lent" ] && [ "$lent" -gt 4 ] && [ "$lent" = "$borrowed" ] && break
    tries=$((tries + 1))
    [ $tries -ge 100 ] && break
    sleep 0.1
done
touch "$hold/go"
wait $runner
rc=$?
sleep 0.2
after=$(ls /dev/shm 2>/dev/null | grep -c "gp-$jobid-stats" || true)
if [ -z "$jobid" ]; then
    fail credits/stats_page "the job never got ready: $(cat "$hold/out")"
elif [ "$modes" != "600 " ]; then
    fail credits/stats_page "pages have modes '$modes', expected 600"
elif [ "$rc" -ne 0 ] || [ "$after" -ne 0 ]; then
    fail credits/stats_page "exit status $rc, $after pages left after the job"
elif [ -z "$lent" ] || [ "$lent" -le 4 ] || [ "$lent" != "$borrowed" ]; then
    fail credits/stats_page "node 0 lent '$lent' to node 1, which holds '$borrowed': $dump"
else
    pass "credits/stats_page (node 0 lends node 1 $lent credits, as node 1's page agrees)"
fi
rm -rf "$hold"
end_tests
