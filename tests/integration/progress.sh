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
cat >"$tmp/as-host" <<'WRAP'
#!/bin/sh
# as-host PER_HOST PROGRAM ARGS...: this rank's host is h<rank / PER_HOST>.
per_host=$1; shift
GP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"
WRAP
chmod +x "$tmp/as-host"

REQUESTS=200
BOUND_MS=100 # the median answer: a few us to a few ms here (4 ranks on 2 shared cores); a library that does not poll gives 30 s


for n in 2 4; do
    for mode in am rma sync; do
        expect_rc "$T/shm_${mode}_n$n" 0 120 "$GP_RUN" -n $n "$GPTEST_ITEST/self_spin" $mode $REQUESTS $BOUND_MS &&
            check_line "$T/shm_${mode}_n$n" "node 0 answered $(( (n - 1) * REQUESTS )) requests while looping"
        expect_rc "$T/tcp_${mode}_n$n" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n $n "$GPTEST_ITEST/self_spin" $mode $REQUESTS $BOUND_MS &&
            check_line "$T/tcp_${mode}_n$n" "node 0 answered $(( (n - 1) * REQUESTS )) requests while looping"
    done
    # Node 0 shares its host with node 1 (rings) and asks nodes on the other over tcp.
    expect_rc "$T/hybrid_am_n$n" 0 120 env GP_LOG_LEVEL=debug "$GP_RUN" -n $n "$tmp/as-host" 2 \
        "$GPTEST_ITEST/self_spin" am $REQUESTS $BOUND_MS &&
        check_line "$T/hybrid_am_n$n" "node 0 answered $(( (n - 1) * REQUESTS )) requests while looping"
done
# Without the rings, every on-node AM takes the Portals queues: only the whole pass sees them.
expect_rc "$T/shm_portals_am_n4" 0 120 env GP_SHM_AM_RING=0 "$GP_RUN" -n 4 "$GPTEST_ITEST/self_spin" am $REQUESTS $BOUND_MS &&
    check_line "$T/shm_portals_am_n4" "node 0 answered $(( 3 * REQUESTS )) requests while looping"
end_tests
