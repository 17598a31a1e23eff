#!/bin/sh
# The default (hybrid) transport with processes on several hosts of one
# job: peers with the same host identity map each other's memory (shm),
# the others talk over tcp (or, asked with GP_HYBRID_ORDER, ofi), in one
# ptl layer.  Here the hosts are
# pretended with GP_HOST_ID, set per rank by a wrapper (ranks in blocks of
# PER_HOST); tests/integration/ssh.sh runs the same over real hosts.
# A busy peer between two pretended hosts (busy_peer, 65 s) runs in tcp.sh,
# beside the tcp and ofi cases, so that make check waits for it once.
. "$(dirname "$0")/../lib.sh"

T=hybrid
tmp=$(mktemp -d /tmp/gp-hybrid-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset GP_TRANSPORT GP_HYBRID_ORDER GP_OFI_PROVIDER FI_PROVIDER
as_host_wrapper "$tmp"   # $tmp/as-host PER_HOST PROGRAM ARGS...

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

# Transfers up to 16 MiB where shm and tcp peers mix (4 ranks, 2 hosts), up to 1 MiB in the
# other layouts: every size above 1 MiB takes the same paths (ext.sh and tcp.sh run them
# at 16 MiB too), so the larger ones would only cost time (doc/decisions.md, "make check's time").
for layout in "2 1" "3 2" "4 2" "6 3" "4 4"; do
    set -- $layout
    n=$1 per=$2
    # 16 MiB once, at 4 nodes of 2 hosts (under the sanitizers 1 MiB: the copy and its check
    # are most of such a run there).
    case $layout in "4 2") if slow_run; then max_size=1M; else max_size=; fi ;; *) max_size=1M ;; esac
    run "$T/exchange_n${n}_per$per" $n $per "ptl_exchange: $n processes, every byte verified" \
        "$GPTEST_ITEST/ptl_exchange"
    run "$T/am_core_n${n}_per$per" $n $per "am_core: $n nodes, 1 rounds, every category" \
        "$GPTEST_ITEST/am_core" 1
    run "$T/ext_core_n${n}_per$per" $n $per "ext_core: $n nodes, every put/get/memset form verified" \
        "$GPTEST_ITEST/ext_core" 20 $max_size
done
# The seed's protocol for every put and get (no direct copies), mixed hosts.
run "$T/ext_protocol_n4_per2" 4 2 "ext_core: 4 nodes, every put/get/memset form verified" \
    env GP_DIRECT_RMA=0 "$GPTEST_ITEST/ext_core" 20 1M
run "$T/am_flood_n4_per2" 4 2 "am_flood: 300 requests from each of 4 nodes arrived exactly once" \
    env GASNET_PORTAL_AMRECV_SPACE=64K "$GPTEST_ITEST/am_flood" 300 1

# Fair progress (doc/progress.md): an exit started off-host while node 1, on node 0's host,
# floods node 0 over the rings reaches both ends of the flood: the job ends with the exit's
# code, and gp-run never has to terminate a rank that missed it.  (The round-trip ratio under
# the flood is a timing: tests/timing/fair_rtt.sh, make check-timing.)
if expect_rc "$T/fair_exit_under_flood" 7 60 env GASNET_EXITTIMEOUT=10 "$GP_RUN" -n 3 \
        "$tmp/as-host" 2 "$GPTEST_ITEST/flood_fair" exit 300; then
    if printf '%s\n' "$out" | grep -q "still running"; then
        fail "$T/fair_exit_under_flood" "a rank missed the exit: $(printf '%s\n' "$out" | grep 'still running')"
    else
        check_line "$T/fair_exit_under_flood" "flood_fair: node 2 calls gasnet_exit(7) during the flood"
    fi
fi

# The same flood, counted: node 0 holds off until node 2's request is in its socket and
# node 1 has filled its ring, then waits for that request in a gasnet_AMPoll loop or in
# GASNET_BLOCKUNTIL while node 1 keeps the ring full.  The flood handlers it runs first must
# stay within doc/progress.md's bounds (one ring look; 64 more in a wait).  A pass that ends
# where the rings gave messages runs hundreds to thousands first.
for wait in poll blockuntil; do
    expect_rc "$T/fair_count_$wait" 0 120 "$GP_RUN" -n 3 "$tmp/as-host" 2 \
        "$GPTEST_ITEST/flood_fair" $wait 10 &&
        check_line "$T/fair_count_$wait" "flood_fair: node 0 ran [0-9]* flood handlers"
done

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
    check_line "$T/order_no_route" "error hybrid: no transport of GP_HYBRID_ORDER='ibv' reaches rank [0-3] on host [01] from rank [0-3] on host [01] (both ends must be able to use one: ibv|ofi|tcp are built in"
fi
# One host: nothing is routed, so an order no host could follow does not matter.
if order_job "$T/order_one_host" ibv 0 2 2; then
    check_line "$T/order_one_host" "debug hybrid: 2 processes on one host: shm only"
fi
# A name the registry does not route through: refused before the job starts, naming the
# value and the accepted names.
if order_job "$T/order_unknown" ibv,udp 2 2 1; then
    check_line "$T/order_unknown" "GP_HYBRID_ORDER='ibv,udp' is not valid: 'udp' is not a transport the hybrid routes through; expected names from ibv|ofi|tcp"
fi

# --- ofi between hosts ---------------------------------------------------------------------
# GP_HYBRID_ORDER=ofi sends the peers on other hosts through libfabric (here tcp;ofi_rxm) and
# keeps shm for this host's: every rank's debug log must say so, ofi must carry exactly the
# ranks of the other hosts on every rank, tcp must not be set up, and messages must have gone.
if ! command -v fi_info >/dev/null 2>&1 ||
   ! fi_info -p 'tcp;ofi_rxm' -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
    echo "skip $T/ofi: libfabric's tcp;ofi_rxm is not here (tools/deps.sh installs it)"
    end_tests
fi
# Objects libfabric's providers keep for themselves are not gp's to free (as in ofi.sh).
printf 'leak:libfabric.so\n' >"$tmp/lsan"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan"
case "$GPTEST_VARIANT" in *asan) stress=300 ;; *) stress=1000 ;; esac
ofi_env="GP_OFI_PROVIDER=tcp;ofi_rxm GP_LOG_LEVEL=debug"

# ofi_check NAME N PER_HOST ORDER PATTERN: the last job's log, as said above.
ofi_check() {
    name=$1 n=$2 per_host=$3 order=$4 pattern=$5
    hosts=$((n / per_host)) others=$((n - per_host))
    routed=$(printf '%s\n' "$out" | grep -c "debug hybrid: $hosts hosts: shm to this host's peers, ofi to the others")
    carried=$(printf '%s\n' "$out" | grep -c "debug ofi: provider tcp;ofi_rxm carries this process's $others peers on other hosts (of $n processes)")
    sent=$(printf '%s\n' "$out" | grep -c "debug ofi: provider tcp;ofi_rxm: [1-9][0-9]* messages sent")
    if [ "$routed" -ne "$n" ] || [ "$carried" -ne "$n" ]; then
        fail "$name" "GP_HYBRID_ORDER=$order: $routed of $n ranks routed the other hosts through ofi, $carried carried $others peers: $(printf '%s\n' "$out" | grep 'hybrid:\|ofi:' | head -3)"
    elif printf '%s\n' "$out" | grep -q "debug tcp:"; then
        fail "$name" "ofi carries the other hosts, yet the tcp transport was set up"
    elif [ "$sent" -ne "$n" ]; then
        fail "$name" "only $sent of $n ranks sent messages through ofi"
    else
        check_line "$name" "$pattern"
    fi
}

ofi_run() { # NAME N PER_HOST PATTERN CMD...
    name=$1 n=$2 per_host=$3 pattern=$4; shift 4
    expect_rc "$name" 0 300 env GP_HYBRID_ORDER=ofi $ofi_env "$GP_RUN" -n "$n" \
        "$tmp/as-host" "$per_host" "$@" || return 1
    ofi_check "$name" "$n" "$per_host" ofi "$pattern"
}

ofi_run "$T/ofi_am_core_n4_per2" 4 2 "am_core: 4 nodes, 1 rounds, every category" \
    "$GPTEST_ITEST/am_core" 1
ofi_run "$T/ofi_am_core_n6_per2" 6 2 "am_core: 6 nodes, 1 rounds, every category" \
    "$GPTEST_ITEST/am_core" 1
# Puts and gets straight into the other hosts' windows: some rank must have used them.  Up to
# 1 MiB: ofi.sh moves 16 MiB through windows and messages.
if ofi_run "$T/ofi_ext_core_n4_per2" 4 2 "ext_core: 4 nodes, every put/get/memset form verified" \
        "$GPTEST_ITEST/ext_core" 20 1M; then
    check_line "$T/ofi_ext_core_n4_per2/windows" "debug ofi: provider tcp;ofi_rxm: .* [1-9][0-9]* puts and [0-9]* gets straight into windows"
fi
ofi_run "$T/ofi_ext_protocol_n4_per2" 4 2 "ext_core: 4 nodes, every put/get/memset form verified" \
    env GP_DIRECT_RMA=0 GP_OFI_WINDOWS=0 "$GPTEST_ITEST/ext_core" 20 1M
ofi_run "$T/ofi_ext_stress_n4_per2" 4 2 "every area's checksum matched" \
    "$GPTEST_ITEST/ext_stress" $stress 4
# The ways a job ends, with peers behind ofi and shm: its code, and no process left behind.
for mode in collective:7 segv:139; do
    name="$T/ofi_exit_${mode%%:*}"
    GASNET_EXITTIMEOUT=3 GP_HYBRID_ORDER=ofi GP_OFI_PROVIDER='tcp;ofi_rxm' timeout -k 5 90 \
        "$GP_RUN" -v -n 4 "$tmp/as-host" 2 "$GPTEST_ITEST/exit_cases" "${mode%%:*}" 7 \
        >"$tmp/exit.log" 2>&1
    rc=$?
    left=$(job_alive "$tmp/exit.log" exit_cases)
    if [ "$rc" -ne "${mode#*:}" ]; then
        fail "$name" "exit status $rc, expected ${mode#*:}: $(tail -3 "$tmp/exit.log" | tr '\n' ' ')"
    elif [ -n "$left" ]; then
        fail "$name" "processes left behind: $left"; kill -9 $left
    elif grep -q 'ERROR: AddressSanitizer\|runtime error:' "$tmp/exit.log"; then
        fail "$name" "sanitizer report: $(grep -m1 'ERROR\|runtime error' "$tmp/exit.log")"
    else
        pass "$name"
    fi
done
# ofi first, tcp the fallback: every pair here can use ofi, so ofi carries them all.
if expect_rc "$T/order_ofi_then_tcp" 0 300 env GP_HYBRID_ORDER=ofi,tcp $ofi_env "$GP_RUN" -n 4 \
        "$tmp/as-host" 2 "$GPTEST_ITEST/am_core" 1; then
    ofi_check "$T/order_ofi_then_tcp" 4 2 ofi,tcp "am_core: 4 nodes, 1 rounds, every category"
fi
# Unasked, ofi serves only on a hardware provider (doc/decisions.md): tcp;ofi_rxm runs over
# sockets, so tcp carries the job and libfabric is not even opened.
if expect_rc "$T/ofi_unasked_software" 0 120 env $ofi_env "$GP_RUN" -n 4 "$tmp/as-host" 2 \
        "$GPTEST_ITEST/am_core" 1; then
    if printf '%s\n' "$out" | grep -q "debug ofi:"; then
        fail "$T/ofi_unasked_software" "libfabric was opened: $(printf '%s\n' "$out" | grep -m1 'debug ofi:')"
    else
        check_line "$T/ofi_unasked_software" "debug hybrid: 2 hosts: shm to this host's peers, tcp to the others"
    fi
fi
# A provider filter that names a hardware provider first makes the host a candidate, but the
# provider libfabric then gives is tcp;ofi_rxm: ofi declines and tcp carries the job.
if expect_rc "$T/ofi_unasked_declines" 0 120 env FI_PROVIDER=cxi,tcp GP_LOG_LEVEL=debug \
        "$GP_RUN" -n 4 "$tmp/as-host" 2 "$GPTEST_ITEST/am_core" 1; then
    if ! printf '%s\n' "$out" | grep -q "debug ofi: libfabric's provider here is tcp;ofi_rxm, which runs over sockets or memory: tcp serves the other hosts instead"; then
        fail "$T/ofi_unasked_declines" "ofi did not say it declined: $(printf '%s\n' "$out" | grep 'ofi:\|hybrid:' | head -3)"
    else
        check_line "$T/ofi_unasked_declines" "debug hybrid: 2 hosts: shm to this host's peers, tcp to the others"
    fi
fi
end_tests
