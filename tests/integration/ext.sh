#!/bin/sh
# The GASNet extended API over shm with real processes: every put/get/memset
# form and size, value ops, many outstanding operations, access regions and
# barriers (ext_core), both as direct copies into mapped segments and
# through the seed's Portals protocol (GP_DIRECT_RMA=0: tickets, bounce
# chunks, TMPMDs, handles in match bits, ACK/REPLY_END events).
. "$(dirname "$0")/../lib.sh"


# Sanitizer builds and emulated runs are slower: fewer barriers there, same coverage otherwise.
if slow_run; then barriers=2000; else barriers=10000; fi
# max_size N: ext_core's largest transfer at N nodes (empty: 16 MiB).  Under the sanitizers 4
# and 8 nodes move up to 1 MiB: 16 MiB takes the same paths at 1 and 2 nodes (a transfer is
# split only past 1 GiB), and 4 or 8 ranks on two cores spent most of the suite's time copying
# and checking it (doc/decisions.md, "make check's time"); the SEQ and PAR builds move 16 MiB
# at every size of job.
max_size() { if slow_run && [ "$1" -ge 4 ]; then echo 1M; fi; }

for n in 1 2 4 8; do
    expect_rc "ext/core_direct_n$n" 0 300 "$GP_RUN" -n $n "$GPTEST_ITEST/ext_core" $barriers \
        $(max_size $n) &&
        check_line "ext/core_direct_n$n" "ext_core: $n nodes, every put/get/memset form verified"
done
for n in 1 2 4 8; do
    expect_rc "ext/core_protocol_n$n" 0 300 env GP_DIRECT_RMA=0 \
        "$GP_RUN" -n $n "$GPTEST_ITEST/ext_core" 200 $(max_size $n) &&
        check_line "ext/core_protocol_n$n" "ext_core: $n nodes, every put/get/memset form verified"
done
# No bounce buffers: every out-of-segment transfer takes a TMPMD.
expect_rc "ext/core_protocol_tmpmd_only" 0 300 env GP_DIRECT_RMA=0 \
    GASNET_PORTAL_PUTGET_BOUNCE_LIMIT=0 GASNET_PORTAL_NUM_TMPMD=4 GASNET_PORTAL_MSG_LIMIT=8 \
    "$GP_RUN" -n 4 "$GPTEST_ITEST/ext_core" 100 $(max_size 4) &&
    check_line "ext/core_protocol_tmpmd_only" "every put/get/memset form verified"

# gasnet.h's inline puts and gets: the right bytes, the library's table exactly
# where it copies directly, and the inline path really taken (GP_NO_INLINE_RMA: never).
for n in 1 2 4; do
    for prog in ext_inline ext_inline_off; do
        expect_rc "ext/${prog}_direct_n$n" 0 120 env GP_DIRECT_RMA=1 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/$prog" direct &&
            check_line "ext/${prog}_direct_n$n" "ext_inline: node 0 of $n ok"
        expect_rc "ext/${prog}_protocol_n$n" 0 120 env GP_DIRECT_RMA=0 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/$prog" protocol &&
            check_line "ext/${prog}_protocol_n$n" "ext_inline: node 0 of $n ok"
    done
done

# A random mix of puts, gets, memsets, AMs and barriers, checksummed at the end.
for n in 2 4 8; do
    for direct in 1 0; do
        expect_rc "ext/stress_n${n}_direct$direct" 0 300 env GP_DIRECT_RMA=$direct \
            "$GP_RUN" -n $n "$GPTEST_ITEST/ext_stress" 2000 $n &&
            check_line "ext/stress_n${n}_direct$direct" "every area's checksum matched"
    done
done
# Threads issuing nb/nbi operations at once, each syncing its own (PAR: 4 threads, SEQ: 1).
for n in 1 2 4; do
    for direct in 1 0; do
        expect_rc "ext/threads_n${n}_direct$direct" 0 300 env GP_DIRECT_RMA=$direct \
            "$GP_RUN" -n $n "$GPTEST_ITEST/ext_threads" 4 20 &&
            check_line "ext/threads_n${n}_direct$direct" "puts and gets verified"
    done
done

# Misuse is fatal, with a message naming what was wrong, and the job ends.
misuse() { # MODE PATTERN
    expect_rc "ext/misuse_$1" 1 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_misuse" "$1" &&
        check_line "ext/misuse_$1" "$2"
}
misuse outside_segment "FATAL ERROR on node 0/2: put of 16 bytes at 0x[0-9a-f]* on node 1: outside that node's segment \[0x[0-9a-f]*, 0x[0-9a-f]*)"
misuse get_below_segment "FATAL ERROR on node 0/2: get of 8 bytes at 0x[0-9a-f]* on node 1: outside that node's segment \[0x[0-9a-f]*, 0x[0-9a-f]*)"
misuse put_before_attach "gasnet_put called before gasnet_attach"
misuse double_notify "FATAL ERROR on node 0/2: gasnet_barrier_notify called twice"
misuse wait_no_notify "FATAL ERROR on node 0/2: gasnet_barrier_wait/try called without a preceding gasnet_barrier_notify"
misuse value_size "FATAL ERROR on node 0/2: gasnet_put_val: nbytes is 9; value operations take 1 to 8 bytes"
end_tests
