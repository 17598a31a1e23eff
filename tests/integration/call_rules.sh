#!/bin/sh
# GASNet-1 call rules clients rely on (tests/integration/call_rules.c): the
# configuration macros and headers, gasnet_max_segsize and the attach hook,
# gasnet_getNodeInfo before attach, loopback AMs run inside the request call
# (a client spinning on a flag while doing only puts fails in 5 s rather than hanging), and
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
# Four pretended hosts' worth of ranks, interleaved (node i on host i % 2): the hosts are
# numbered by their lowest node, the same before attach and after, and the default
# transport maps exactly the peers of a host.
tmp=$(mktemp -d /tmp/gp-call-rules.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#!/bin/sh\nGP_HOST_ID=h$((GP_RANK %% 2)) exec "$@"\n' >"$tmp/as-host"
chmod +x "$tmp/as-host"
expect_rc call_rules/hybrid_interleaved_n4 0 120 env -u GP_TRANSPORT GP_LOG_LEVEL=debug \
    "$GP_RUN" -n 4 "$tmp/as-host" "$GPTEST_ITEST/call_rules" interleaved 2 &&
    check_ok call_rules/hybrid_interleaved_n4 4 &&
    if printf '%s\n' "$out" | grep -q "debug hybrid: 2 hosts: shm to this host's peers"; then
        pass call_rules/hybrid_interleaved_hosts_seen
    else
        fail call_rules/hybrid_interleaved_hosts_seen "no 'debug hybrid: 2 hosts' line: $(printf '%s\n' "$out" | grep hybrid: | head -2)"
    fi
end_tests
