#!/bin/sh
# GASNET_PORTAL_MSG_LIMIT is the conduit's send-ticket count (seed 000), one
# pool above every transport: with the smallest limit, 2, the AM and
# put/get suites still run correctly on shm (direct copies and the Portals
# protocol) and on tcp, and each process's debug log says the limit is in
# force.  1 is refused: a request handler's reply holds 2 tickets, so a job
# with 1 would hang in its first AM (gp-run checks the table before it starts one).
. "$(dirname "$0")/../lib.sh"
# Send tickets belong to the Portals protocol: on shm, AMs take it, not the slot rings.
export GP_SHM_AM_RING=0

T=msg_limit
I=$GPTEST_ITEST
# check_line NAME PATTERN...: the last expect_rc's output must hold every PATTERN.
check_line() {
    name=$1; shift
    for pattern in "$@"; do
        if ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
            fail "$name" "missing '$pattern' in: $(printf '%s\n' "$out" | grep -v ' debug ' | tail -5)"
            return 1
        fi
    done
    pass "$name"
}
# in_force NAME N: every one of N processes logged its send tickets as 2.
in_force() {
    got=$(printf '%s\n' "$out" | grep -c 'debug attach: send tickets: 2 (GASNET_PORTAL_MSG_LIMIT)')
    [ "$got" -eq "$2" ] || { fail "$1" "$got of $2 processes logged 'send tickets: 2'"; return 1; }
}
unset GP_TRANSPORT GP_DIRECT_RMA GASNET_PORTAL_MSG_LIMIT

case "$GPTEST_VARIANT" in *asan) barriers=50 ;; *) barriers=200 ;; esac

for transport in shm tcp; do
    expect_rc "$T/am_core_$transport" 0 180 env GASNET_PORTAL_MSG_LIMIT=2 GP_LOG_LEVEL=debug \
        GP_TRANSPORT=$transport "$GP_RUN" -n 3 "$I/am_core" 1 &&
        in_force "$T/am_core_$transport" 3 &&
        check_line "$T/am_core_$transport" "am_core: 3 nodes, 1 rounds, every category and argument count verified"
    # Unpacked Longs take 2 tickets each, as many as the whole pool.
    expect_rc "$T/am_core_unpacked_$transport" 0 180 env GASNET_PORTAL_MSG_LIMIT=2 \
        GASNET_PORTAL_PACKED_LONG=0 GP_LOG_LEVEL=debug GP_TRANSPORT=$transport \
        "$GP_RUN" -n 2 "$I/am_core" 1 &&
        in_force "$T/am_core_unpacked_$transport" 2 &&
        check_line "$T/am_core_unpacked_$transport" "every category and argument count verified"
    # Puts and gets through the protocol: each holds a ticket until its ACK or REPLY.
    expect_rc "$T/ext_core_protocol_$transport" 0 300 env GASNET_PORTAL_MSG_LIMIT=2 \
        GP_DIRECT_RMA=0 GP_LOG_LEVEL=debug GP_TRANSPORT=$transport \
        "$GP_RUN" -n 3 "$I/ext_core" $barriers &&
        in_force "$T/ext_core_protocol_$transport" 3 &&
        check_line "$T/ext_core_protocol_$transport" "ext_core: 3 nodes, every put/get/memset form verified"
    expect_rc "$T/am_flood_$transport" 0 180 env GASNET_PORTAL_MSG_LIMIT=2 \
        GP_TRANSPORT=$transport "$GP_RUN" -n 3 "$I/am_flood" 200 1 &&
        check_line "$T/am_flood_$transport" "am_flood: 200 requests from each of 3 nodes arrived exactly once"
done

expect_rc "$T/one_refused" 2 30 env GASNET_PORTAL_MSG_LIMIT=1 "$GP_RUN" -n 2 "$I/am_core" 1 &&
    check_line "$T/one_refused" \
        "GASNET_PORTAL_MSG_LIMIT='1' is not valid: expected an integer from 2 to 65535"
end_tests
