#!/bin/sh
# bench/credit-sim: the library's credit algorithm (credit_flow.c, linked
# from libgp.a) over 1,000 virtual nodes.  The simulator checks invariants
# around every call and audits all nodes (--audit: at the end of every
# window; always after the final drain) and exits 1 if one broke:
#   - conservation: every lender's bank + all its loans == its credits, and
#     what it lends - what its borrowers hold == its credits on the wire;
#   - once nothing is in flight, every borrower's SendCredits (and credits
#     admitted to it) == its lender's LoanCredits, nothing in use, no ask
#     unanswered;
#   - nobody lends or holds more than GASNET_PORTAL_MAX_CRED_PER_NODE, has
#     more in use than it holds, or gives back below the minimum.
# On top of that, each case asserts what the algorithm must achieve.
# SEQ and ASan builds only (the simulator is single-threaded).
. "$(dirname "$0")/../lib.sh"

case "$GPTEST_VARIANT" in seq|asan) ;; *) end_tests ;; esac
SIM="$GPTEST_BIN/credit-sim"
T=credit_sim

# run NAME ARGS...: runs the simulator for a CSV summary; $out holds it.
run() {
    name=$1; shift
    expect_rc "$name" 0 300 "$SIM" --nodes 1000 --csv --audit "$@"
}

# col NAME: the value of column NAME in the CSV summary in $out.
col() {
    printf '%s\n' "$out" | awk -F, -v k="$1" '
        /^pattern,/ { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
        c && /,/ { print $c; exit }'
}

# 1. Every pattern keeps the invariants, and the checks saw real traffic.
for p in hotspot stencil tree shift; do
    if run "$T/invariants_$p" --pattern "$p" --ticks 5000; then
        if [ "$(col failures)" -eq 0 ] && [ "$(col requests)" -gt 1000 ]; then
            pass "$T/invariants_$p ($(col requests) requests, $(col granted) credits lent, $(col revoked) revoked)"
        else
            fail "$T/invariants_$p" "failures=$(col failures) requests=$(col requests)"
        fi
    fi
done

# 2. A few hot senders stall on node 0 and end with more than they started with.
if run "$T/hotspot_gains" --pattern hotspot --senders 4 --ticks 5000; then
    cpn=$(col credits_per_node) max=$(col max_send)
    if [ "$(col stalls)" -gt 0 ] && [ "$max" -gt "$cpn" ] && [ "$max" -gt 4 ] && [ "$(col granted)" -gt 0 ]; then
        pass "$T/hotspot_gains (credits for node 0 grew $cpn -> $max)"
    else
        fail "$T/hotspot_gains" "stalls=$(col stalls) max_send=$max credits_per_node=$cpn granted=$(col granted)"
    fi
fi

# 3. GASNET_PORTAL_MAX_CRED_PER_NODE holds under pressure.
if run "$T/max_per_node" --pattern hotspot --senders 2 --max-cred-per-node 40 --ticks 5000; then
    if [ "$(col max_send)" -le 40 ] && [ "$(col max_send)" -gt 30 ]; then
        pass "$T/max_per_node (hot senders reached $(col max_send) of 40)"
    else
        fail "$T/max_per_node" "max_send=$(col max_send), limit 40"
    fi
fi

# 4. A static stencil reaches a steady state: credits stop moving, no oscillation.
if run "$T/stencil_steady" --pattern stencil --ticks 6000; then
    if [ "$(col stops_moving)" = yes ] && [ "$(col steady_tick)" -ge 0 ] &&
       [ "$(col oscillating_pairs)" -eq 0 ] && [ "$(col granted)" -gt 0 ]; then
        pass "$T/stencil_steady (steady from tick $(col steady_tick), $(col granted) credits lent)"
    else
        fail "$T/stencil_steady" "stops_moving=$(col stops_moving) steady_tick=$(col steady_tick) oscillating=$(col oscillating_pairs)"
    fi
fi

# 5. A small bank: lenders revoke from idle peers, get credits back, and still settle.
if run "$T/revoke_idle" --pattern stencil --banked 100 --ticks 6000; then
    if [ "$(col revokes)" -gt 0 ] && [ "$(col revoked)" -gt 0 ] && [ "$(col stops_moving)" = yes ]; then
        pass "$T/revoke_idle ($(col revokes) revokes brought back $(col revoked) credits)"
    else
        fail "$T/revoke_idle" "revokes=$(col revokes) revoked=$(col revoked) stops_moving=$(col stops_moving)"
    fi
fi

# 6. Demand driven (goal 1): with enough credits nothing stalls and nothing moves;
#    with dynamic credits off nothing moves either.
if run "$T/demand_driven" --pattern tree --cred-per-node 64 --ticks 3000; then
    if [ "$(col stalls)" -eq 0 ] && [ "$(col granted)" -eq 0 ] && [ "$(col revokes)" -eq 0 ]; then
        pass "$T/demand_driven"
    else
        fail "$T/demand_driven" "stalls=$(col stalls) granted=$(col granted) revokes=$(col revokes)"
    fi
fi
if run "$T/static" --pattern stencil --static --ticks 3000; then
    if [ "$(col stalls)" -gt 0 ] && [ "$(col granted)" -eq 0 ] && [ "$(col revokes)" -eq 0 ]; then
        pass "$T/static ($(col stalls) stalls, no credit moved)"
    else
        fail "$T/static" "stalls=$(col stalls) granted=$(col granted) revokes=$(col revokes)"
    fi
fi

# 7. An all-to-one hot spot settles (goal 3): the target lends its bank
#    and then moves nothing among senders that keep sending to it -- no pair
#    oscillates, at most 5% of revokes come back empty -- and it still handles
#    a request every half tick (its service rate: 2 per tick).
for senders in 0 64; do
    name=$T/hotspot_settles_$senders
    if run "$name" --pattern hotspot --senders "$senders" --ticks 40000; then
        revokes=$(col revokes) zero=$(col zero_replies) osc=$(col oscillating_pairs)
        if [ "$osc" -eq 0 ] && [ $((zero * 20)) -le "$revokes" ] &&
           [ "$(col stops_moving)" = yes ] && [ "$(col requests)" -ge 79900 ]; then
            pass "$name ($(col granted) lent, $revokes revokes, $zero empty, $(col requests) requests)"
        else
            fail "$name" "oscillating=$osc revokes=$revokes zero=$zero stops_moving=$(col stops_moving) requests=$(col requests)"
        fi
    fi
done

# 8. The memory model: compact conn arrays give the same run as full ones,
#    including a compact run abandoned by the scavenge guard and rerun.
same() { # NAME ARGS...: --compact and --full-state agree on every result column
    name=$1; shift
    run "$name" "$@" --compact || return 1
    compact=$(printf '%s\n' "$out" | tail -1 | cut -d, -f1-30)
    restarted=$(col restarted_at)
    run "$name" "$@" --full-state || return 1
    full=$(printf '%s\n' "$out" | tail -1 | cut -d, -f1-30)
    if [ "$compact" = "$full" ]; then
        if [ "$restarted" -ge 0 ]; then
            pass "$name (the guard fired at tick $restarted; the full rerun matches)"
        else
            pass "$name"
        fi
    else
        fail "$name" "compact: $compact; full: $full"
    fi
}
same "$T/compact_stencil" --pattern stencil --ticks 3000
same "$T/compact_guarded" --pattern stencil --banked 100 --ticks 3000
same "$T/compact_shift" --pattern shift --ticks 5000
same "$T/compact_asks" --pattern shift --cred-per-node 2 --banked 64 --ticks 5000

# 9. Peers below the minimum (2 credits, a bank of 64): every pattern asks,
#    keeps the invariants (asks, grants and admitted credits included), and
#    the hot spot's target still handles 2 requests a tick with 1,000 senders
#    asking it; where the bank runs low, Mediums are admitted one at a time.
for p in hotspot stencil tree shift; do
    if run "$T/asks_$p" --pattern "$p" --cred-per-node 2 --banked 64 --ticks 5000; then
        asks=$(col asks) admitted=$(col admitted) requests=$(col requests)
        least=$([ "$p" = hotspot ] && echo 9980 || echo 1000)
        if [ "$(col failures)" -eq 0 ] && [ "$asks" -gt 0 ] && [ "$requests" -ge "$least" ] &&
           { [ "$p" = tree ] || [ "$admitted" -gt 0 ]; }; then
            pass "$T/asks_$p ($requests requests, $asks asks, $admitted credits admitted)"
        else
            fail "$T/asks_$p" "failures=$(col failures) requests=$requests asks=$asks admitted=$admitted"
        fi
    fi
done
end_tests
