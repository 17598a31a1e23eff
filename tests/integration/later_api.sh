#!/bin/sh
# The GASNet-1 additions of spec 5.4 (later_api.c): gasnet_getNodeInfo on
# shm and tcp, the variable-argument AM forms with 0..16 arguments and the
# #undef-able names, gasnet_barrier_result with the relaxed flag matching,
# and the collectives with every IN/OUT sync flag pair -- at 1 to 4 nodes.
. "$(dirname "$0")/../lib.sh"

prog="$GPTEST_ITEST/later_api"

for n in 1 2 3 4; do
    expect_rc "later/nodeinfo_shm_n$n" 0 120 "$GP_RUN" -n $n "$prog" nodeinfo shm &&
        check_line "later/nodeinfo_shm_n$n" "nodeinfo on $n nodes (shm): hosts, supernodes and offsets verified"
    expect_rc "later/varargs_n$n" 0 120 "$GP_RUN" -n $n "$prog" varargs &&
        check_line "later/varargs_n$n" "varargs AMs with 0..16 arguments to $n nodes verified"
    expect_rc "later/barrier_n$n" 0 120 "$GP_RUN" -n $n "$prog" barrier &&
        check_line "later/barrier_n$n" "barrier_result and relaxed flag matching verified on $n nodes"
    expect_rc "later/coll_n$n" 0 300 "$GP_RUN" -n $n "$prog" coll 1 &&
        check_line "later/coll_n$n" "coll on $n nodes: 126 broadcasts (every IN x OUT flag pair, SINGLE and LOCAL) and 84 scatter/gather/gather_all/exchange verified"
done
# tcp maps no peer: a supernode per node, offsets 0.
expect_rc "later/nodeinfo_tcp_n3" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n 3 "$prog" nodeinfo tcp &&
    check_line "later/nodeinfo_tcp_n3" "nodeinfo on 3 nodes (tcp): hosts, supernodes and offsets verified"
# Hosts pretended with GP_HOST_ID (as hybrid.sh does): a host and a
# supernode per block of ranks, offsets only within the block.
tmp=$(mktemp -d /tmp/gp-later.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#!/bin/sh\nper_host=$1; shift\nGP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"\n' >"$tmp/as-host"
chmod +x "$tmp/as-host"
for layout in "4 2" "3 1" "6 3"; do
    set -- $layout
    expect_rc "later/nodeinfo_hosts_n$1_per$2" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n $1 "$tmp/as-host" $2 "$prog" nodeinfo hosts:$2 &&
        check_line "later/nodeinfo_hosts_n$1_per$2" "nodeinfo on $1 nodes (hosts:$2): hosts, supernodes and offsets verified"
done
expect_rc "later/coll_hosts_n4_per2" 0 300 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 "$prog" coll 1 &&
    check_line "later/coll_hosts_n4_per2" "coll on 4 nodes: 126 broadcasts"
# Over tcp the collectives' pieces really travel, and arrive in any order.
expect_rc "later/coll_tcp_n3" 0 300 env GP_TRANSPORT=tcp "$GP_RUN" -n 3 "$prog" coll 1 &&
    check_line "later/coll_tcp_n3" "coll on 3 nodes: 126 broadcasts"
expect_rc "later/coll_badflags" 1 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$prog" coll_badflags &&
    check_line "later/coll_badflags" "FATAL ERROR on node [01]/2: gasnet_coll_broadcast: flags 0x95 must hold exactly one of GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC"
end_tests
