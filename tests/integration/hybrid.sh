#!/bin/sh
# The default (hybrid) transport with processes on several hosts of one
# job: peers with the same host identity map each other's memory (shm),
# the others talk over tcp, in one ptl layer.  Here the hosts are
# pretended with GP_HOST_ID, set per rank by a wrapper (ranks in blocks of
# PER_HOST); tests/integration/ssh.sh runs the same over real hosts.
. "$(dirname "$0")/../lib.sh"

T=hybrid
tmp=$(mktemp -d /tmp/gp-hybrid-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT
cat >"$tmp/as-host" <<'WRAP'
#!/bin/sh
# as-host PER_HOST PROGRAM ARGS...: this rank's host is h<rank / PER_HOST>.
per_host=$1; shift
GP_HOST_ID=h$((GP_RANK / per_host)) exec "$@"
WRAP
chmod +x "$tmp/as-host"

check_line() { # NAME PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

# run NAME N PER_HOST PATTERN CMD...: the job must say it spans N/PER_HOST
# hosts (debug log) and print PATTERN.
run() {
    name=$1 n=$2 per_host=$3 pattern=$4; shift 4
    hosts=$(( (n + per_host - 1) / per_host ))
    expect_rc "$name" 0 240 env GP_LOG_LEVEL=debug "$GP_RUN" -n $n "$tmp/as-host" $per_host "$@" || return
    if [ $hosts -gt 1 ] && ! printf '%s\n' "$out" | grep -q "debug hybrid: $hosts hosts: shm to this host's peers, tcp to the others"; then
        fail "$name" "the job did not see $hosts hosts: $(printf '%s\n' "$out" | grep 'hybrid:' | head -3)"
        return
    fi
    if [ $hosts -eq 1 ] && printf '%s\n' "$out" | grep -q "debug tcp: listening"; then
        fail "$name" "one host, yet the tcp transport was set up"
        return
    fi
    check_line "$name" "$pattern"
}

for layout in "2 1" "3 2" "4 2" "6 3" "4 4"; do
    set -- $layout
    n=$1 per=$2
    run "$T/exchange_n${n}_per$per" $n $per "ptl_exchange: $n processes, every byte verified" \
        "$GPTEST_ITEST/ptl_exchange"
    run "$T/am_core_n${n}_per$per" $n $per "am_core: $n nodes, 1 rounds, every category" \
        "$GPTEST_ITEST/am_core" 1
    run "$T/ext_core_n${n}_per$per" $n $per "ext_core: $n nodes, every put/get/memset form verified" \
        "$GPTEST_ITEST/ext_core" 20
done
# The seed's protocol for every put and get (no direct copies), mixed hosts.
run "$T/ext_protocol_n4_per2" 4 2 "ext_core: 4 nodes, every put/get/memset form verified" \
    env GP_DIRECT_RMA=0 "$GPTEST_ITEST/ext_core" 20
run "$T/am_flood_n4_per2" 4 2 "am_flood: 300 requests from each of 4 nodes arrived exactly once" \
    env GASNET_PORTAL_AMRECV_SPACE=64K "$GPTEST_ITEST/am_flood" 300 1

# GP_HYBRID_ORDER, the order in which the hybrid tries the routable transports
# (the registry's names) for peers on other hosts: a pair of hosts takes the
# first that both can use.  tests/ibv/suite.sh shows "tcp" winning over verbs.
order_job() { # NAME ORDER RC N PER_HOST
    expect_rc "$1" "$3" 120 env GP_HYBRID_ORDER="$2" GP_LOG_LEVEL=debug "$GP_RUN" -n "$4" \
        "$tmp/as-host" "$5" "$GPTEST_ITEST/am_core" 1
}
# Verbs first, but no host here can use them: tcp, the next, carries the job.
if order_job "$T/order_ibv_then_tcp" ibv,tcp 0 4 2; then
    check_line "$T/order_ibv_then_tcp" "debug hybrid: 2 hosts: shm to this host's peers, tcp to the others"
fi
if order_job "$T/order_tcp" tcp 0 4 2; then
    check_line "$T/order_tcp" "am_core: 4 nodes, 1 rounds, every category"
fi
if ls /sys/class/infiniband_verbs 2>/dev/null | grep -q '^uverbs'; then
    echo "skip $T/order_no_route: this host has verbs devices (the case needs a host without)"
elif order_job "$T/order_no_route" ibv 1 4 2; then
    # Neither pretended host can use verbs, the only transport allowed: an error naming
    # the variable, its value, the unreached pair and the transports built in.
    check_line "$T/order_no_route" "error hybrid: no transport of GP_HYBRID_ORDER='ibv' reaches rank [0-3] on host [01] from rank [0-3] on host [01] (both ends must be able to use one: ibv|tcp are built in"
fi
# One host: nothing is routed, so an order no host could follow does not matter.
if order_job "$T/order_one_host" ibv 0 2 2; then
    check_line "$T/order_one_host" "debug hybrid: 2 processes on one host: shm only"
fi
# A name the registry does not route through: refused before the job starts, naming the
# value and the accepted names.
if order_job "$T/order_unknown" ibv,udp 2 2 1; then
    check_line "$T/order_unknown" "GP_HYBRID_ORDER='ibv,udp' is not valid: 'udp' is not a transport the hybrid routes through; expected names from ibv|tcp"
fi
end_tests
