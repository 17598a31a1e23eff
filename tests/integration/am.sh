#!/bin/sh
# The GASNet core API over shm with real processes: every AM category and
# argument count (am_core), flow control under a flood (am_flood), and in
# PAR builds several threads sending and polling at once (am_threads).
. "$(dirname "$0")/../lib.sh"

check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

for n in 1 2 4 8; do
    expect_rc "am/core_n$n" 0 180 "$GP_RUN" -n $n "$GPTEST_ITEST/am_core" 2 &&
        check_line "am/core_n$n" "am_core: $n nodes, 2 rounds, every category"
done
# The Portals protocol for every message (on-node AMs take the slot rings otherwise).
expect_rc "am/core_portals_n4" 0 180 env GP_SHM_AM_RING=0 "$GP_RUN" -n 4 "$GPTEST_ITEST/am_core" 1 &&
    check_line "am/core_portals_n4" "every category and argument count verified"
# Every Long unpacked: header and data always travel apart.
expect_rc "am/core_unpacked_longs" 0 180 env GP_SHM_AM_RING=0 GASNET_PORTAL_PACKED_LONG=0 \
    "$GP_RUN" -n 4 "$GPTEST_ITEST/am_core" 1 &&
    check_line "am/core_unpacked_longs" "every category and argument count verified"
# Seed 003's limit on packing: Longs up to 100 bytes packed, the rest apart.
expect_rc "am/core_packedlong_limit" 0 180 env GP_SHM_AM_RING=0 GASNET_PACKEDLONG_LIMIT=100 \
    "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1 &&
    check_line "am/core_packedlong_limit" "every category and argument count verified"

# A flood into a small ReqRB: flow control makes it complete (the Portals credits;
# then the slot rings' own, whose slots are the credits)...
for n in 2 8; do
    expect_rc "am/flood_flow_control_n$n" 0 120 env GP_SHM_AM_RING=0 GASNET_PORTAL_AMRECV_SPACE=64K \
        "$GP_RUN" -n $n "$GPTEST_ITEST/am_flood" 400 1 &&
        check_line "am/flood_flow_control_n$n" "am_flood: 400 requests from each of $n nodes arrived exactly once"
done
expect_rc "am/flood_ring_n4" 0 120 "$GP_RUN" -n 4 "$GPTEST_ITEST/am_flood" 400 1 &&
    check_line "am/flood_ring_n4" "am_flood: 400 requests from each of 4 nodes arrived exactly once"
# ...and without it the overflow reaches the catch basin: a fatal error naming it.
expect_rc "am/flood_no_flow_control" 1 120 env GASNET_PORTAL_AMRECV_SPACE=64K \
    GASNET_PORTAL_FLOW_CONTROL=0 GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 4 "$GPTEST_ITEST/am_flood" 400 1 &&
    check_line "am/flood_no_flow_control" \
        "FATAL ERROR on node 0/4: an AM request of .* bytes from node [0-9] overflowed this node's ReqRB space .* into the catch basin (hint: keep GASNET_PORTAL_FLOW_CONTROL on, or raise GASNET_PORTAL_AMRECV_SPACE)"

# Threads sending and polling at once (PAR builds run 4 per process, SEQ builds 1).
for n in 1 2 4; do
    expect_rc "am/threads_n$n" 0 180 "$GP_RUN" -n $n "$GPTEST_ITEST/am_threads" 4 1500 &&
        check_line "am/threads_n$n" "each run exactly once"
done

# Threads that only poll beside threads sending Medium and Long requests
# with every byte checked, into a small ReqRB so that buffers unlink and are
# relinked all the time while several threads take AM_EQ events (PAR builds;
# a SEQ build runs one sender and no poller).
for n in 2 4; do
    expect_rc "am/pollers_n$n" 0 180 env GASNET_PORTAL_AMRECV_SPACE=64K \
        "$GP_RUN" -n $n "$GPTEST_ITEST/am_pollers" 2 2 600 &&
        check_line "am/pollers_n$n" "each run exactly once with intact data"
done
end_tests
