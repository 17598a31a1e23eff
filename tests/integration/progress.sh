#!/bin/sh
# A rank that loops on calls which complete without waiting -- AM round
# trips to itself, plain copies into mapped segments, syncs of what is
# already done -- still answers its peers' requests (doc/progress.md): over
# shm, tcp and the hybrid (pretended hosts, shm and tcp in one job), at 2
# and 4 nodes.  Each run fails, instead of hanging, when such a call does
# not poll (self_spin.c).
. "$(dirname "$0")/../lib.sh"

T=progress
tmp=$(mktemp -d /tmp/gp-progress-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT GP_HYBRID_ORDER GP_OFI_PROVIDER FI_PROVIDER
as_host_wrapper "$tmp"   # $tmp/as-host PER_HOST PROGRAM ARGS...

REQUESTS=100
BOUND_MS=100 # the median answer: a few us to a few ms here (4 ranks on 2 shared cores); a library that does not poll gives 30 s


# expect_spin NAME N MODE [ENV...]: node 0 loops on MODE's calls while the other nodes ask it.
expect_spin() {
    name=$1 n=$2 mode=$3; shift 3
    expect_rc "$name" 0 120 env "$@" "$GP_RUN" -n "$n" "$GPTEST_ITEST/self_spin" "$mode" $REQUESTS $BOUND_MS &&
        check_line "$name" "node 0 answered $(( (n - 1) * REQUESTS )) requests while looping"
}

# The OpenSHMEM lock test's shape, at 2 and 4 nodes on every transport.
for n in 2 4; do
    expect_spin "$T/shm_am_n$n" $n am GP_TRANSPORT=shm
    expect_spin "$T/tcp_am_n$n" $n am GP_TRANSPORT=tcp
    # Node 0 shares its host with node 1 (rings) and meets the other host's nodes over tcp.
    expect_rc "$T/hybrid_am_n$n" 0 120 "$GP_RUN" -n $n "$tmp/as-host" 2 \
        "$GPTEST_ITEST/self_spin" am $REQUESTS $BOUND_MS &&
        check_line "$T/hybrid_am_n$n" "node 0 answered $(( (n - 1) * REQUESTS )) requests while looping"
done
# The other shapes: on shm the peer's request is in a ring, over tcp only the whole pass finds it.
for mode in rma sync; do
    expect_spin "$T/shm_${mode}_n2" 2 $mode GP_TRANSPORT=shm
    expect_spin "$T/tcp_${mode}_n2" 2 $mode GP_TRANSPORT=tcp
done
# Without the rings, every on-node AM takes the Portals queues: only the whole pass sees them.
expect_spin "$T/shm_portals_am_n4" 4 am GP_TRANSPORT=shm GP_SHM_AM_RING=0
end_tests
