#!/bin/sh
# GASNet-1 call rules clients rely on (tests/integration/call_rules.c): the
# configuration macros and headers, gasnet_max_segsize and the attach hook,
# gasnet_getNodeInfo before attach, loopback AMs run inside the request call
# (the issue's spin-on-a-flag-doing-puts hang fails in 5 s, not never), and
# gasnett_run_diagnostics -- on shm at 1, 2 and 4 nodes, and over tcp.
. "$(dirname "$0")/../lib.sh"

check_ok() { # NAME N: every node printed its ok line
    if [ "$(printf '%s\n' "$out" | grep -c "^call_rules: node [0-9]* of $2 ok")" -eq "$2" ]; then
        pass "$1"
    else
        fail "$1" "not every node said ok: $(printf '%s\n' "$out" | grep -v 'error api' | tail -5)"
    fi
}

for n in 1 2 4; do
    expect_rc "call_rules/shm_n$n" 0 120 "$GP_RUN" -n $n "$GPTEST_ITEST/call_rules" &&
        check_ok "call_rules/shm_n$n" $n
done
# tcp maps no peer: the supernodes gathered at init must still match attach's.
expect_rc call_rules/tcp_n2 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n 2 "$GPTEST_ITEST/call_rules" &&
    check_ok call_rules/tcp_n2 2
end_tests
