#!/bin/sh
# gasnet_vis.h (vis.c): every vector / indexed / strided put and get,
# blocking, _nb, _nbi and in access regions, byte-checked with the bytes
# between the pieces -- as direct copies on shm, as packed messages through
# the VIS area (GP_DIRECT_RMA=0 over shm, tcp, the hybrid with pretended
# hosts), loopback included; and misuse named by call, list, piece and node.
. "$(dirname "$0")/../lib.sh"

prog="$GPTEST_ITEST/vis"
# 2 targets x (3 forms x 4 syncs x 6 iterations + 3 forms x 2 large + 1 long run) = 158 each way.
verified() { # NAME NODES [THREADS]: node 0's summary and its counts (158 per thread)
    check_line "$1" "vis on $2 nodes x ${3:-1} threads: vector, indexed and strided puts and gets, blocking, nb, nbi and in access regions, verified" &&
        check_line "$1_counts" "vis: node 0 verified $((158 * ${3:-1})) puts and $((158 * ${3:-1})) gets"
}

# Sanitizer builds and emulated runs are slower: the same forms, a few node counts fewer off shm.
if slow_run; then san=1; else san=0; fi

for n in 1 2 3 4 8; do
    expect_rc "vis/direct_n$n" 0 120 "$GP_RUN" -n $n "$prog" all && verified "vis/direct_n$n" $n
done
for n in 1 2 3; do
    [ $san = 1 ] && [ $n = 3 ] && continue
    expect_rc "vis/packed_n$n" 0 120 env GP_DIRECT_RMA=0 "$GP_RUN" -n $n "$prog" all &&
        verified "vis/packed_n$n" $n
done
expect_rc "vis/tcp_n2" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n 2 "$prog" all && verified "vis/tcp_n2" 2
[ $san = 1 ] ||
    { expect_rc "vis/tcp_n4" 0 180 env GP_TRANSPORT=tcp "$GP_RUN" -n 4 "$prog" all && verified "vis/tcp_n4" 4; }
# A node without a segment has no VIS area: its gets go one ordinary get per span.
expect_rc "vis/zeroseg_tcp" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n 2 "$prog" zeroseg &&
    check_line "vis/zeroseg_tcp" "vis zeroseg: node 1 without a segment verified 13 puts and 13 gets"
# Hosts pretended with GP_HOST_ID: shm copies within a host, messages between them.
tmp=$(mktemp -d /tmp/gp-vis.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#!/bin/sh\nper_host=$1; shift\nGP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"\n' >"$tmp/as-host"
chmod +x "$tmp/as-host"
expect_rc "vis/hybrid_n4_per2" 0 180 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 "$prog" all &&
    verified "vis/hybrid_n4_per2" 4

# PAR: four threads per node at once, sharing slots, staging buffers and the op records.
case "$GPTEST_VARIANT" in
par|pasan)
    expect_rc "vis/threads_direct_n2" 0 120 "$GP_RUN" -n 2 "$prog" all 4 && verified "vis/threads_direct_n2" 2 4
    expect_rc "vis/threads_packed_n3" 0 180 env GP_DIRECT_RMA=0 "$GP_RUN" -n 3 "$prog" all 4 &&
        verified "vis/threads_packed_n3" 3 4
    # Over tcp with the sanitizers this one alone takes half a minute here: par only.
    [ "$GPTEST_VARIANT" = par ] &&
        expect_rc "vis/threads_tcp_n2" 0 180 env GP_TRANSPORT=tcp "$GP_RUN" -n 2 "$prog" all 4 &&
        verified "vis/threads_tcp_n2" 2 4
    ;;
esac

# Misuse: node 0 makes the mistake, the job ends with a message naming it.
misuse() { # CASE NAME PATTERN
    expect_rc "vis/misuse_$2" 1 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$prog" misuse "$1" &&
        check_line "vis/misuse_$2" "$3"
}
misuse 1 putv_piece "gasnet_putv_bulk: dstlist\[2\] (8 bytes at 0x[0-9a-f]*) lies outside node 1's segment"
misuse 2 geti_piece "gasnet_geti_bulk: srclist\[1\] (8 bytes at 0x[0-9a-f]*) lies outside node 1's segment"
misuse 3 puts_strides "gasnet_puts_bulk: dststrides\[0\] (4) < count\[0\] (8)"
misuse 4 putv_sizes "gasnet_putv_bulk: the destination pieces hold 8 bytes and the source pieces 16"
misuse 5 puti_len "gasnet_puti_bulk: dstlist's piece length is 0"
misuse 6 putv_overlap "gasnet_putv_bulk: dstlist has overlapping elements (16 bytes in a span of 8)"
end_tests
