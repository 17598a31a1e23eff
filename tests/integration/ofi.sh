#!/bin/sh
# The ofi transport (GP_TRANSPORT=ofi: every process of the job talks
# through libfabric) over each provider here that offers an
# FI_EP_RDM endpoint with FI_MSG and FI_RMA and carries these jobs:
# tcp;ofi_rxm, net;ofi_rxm, net, shm, sockets and udp;ofi_rxd (the last two
# lost an ACK under ext_core at 4 nodes while window puts still fell back to
# messages; they pass since: doc/wire-ofi.md, "Status").  Per provider: the core API (am_core),
# the extended API through the protocol and through windows (ext_core),
# threads at once (am_threads, ext_threads: 4 per process in PAR builds),
# the random mix (ext_stress), the ways a job ends (exit_cases), the
# conduit's credits under a hot spot (credit_dyn) and the transport's own
# credit flow at its tightest (GP_OFI_CREDITS_PP=2: requests must wait, and
# CREDIT messages must bring them back), and the write order's two (put_flag): a
# window put's bytes all there when its completion lets an AM go, over the
# provider as if it did not order writes (GP_OFI_ORDER_WAW=0, and
# GP_OFI_TEST_LATE_WRITES lands a part that completed when sent after the
# target's next message: a put trusting write order it was not given leaves
# bytes behind), and two processes putting into each other at once with one
# tx buffer and one bounce buffer each, over the provider as if only reading
# the receive CQ moved it (GP_OFI_TEST_RX_PROGRESS: a wait that reads the
# transmit CQ alone never ends).  Then the errors: a provider that
# does not exist (the line names what was asked and what libfabric lists),
# and a failed completion (GP_OFI_FAULT_KEY, on sockets, which checks keys:
# the job ends naming the operation, the node and the provider's words).
# A busy peer over tcp;ofi_rxm (busy_peer, 65 s) runs in tcp.sh, beside the
# tcp and hybrid cases, so that make check waits for it once.
. "$(dirname "$0")/../lib.sh"

T=ofi
export GP_TRANSPORT=ofi
log=$(mktemp /tmp/gp-ofi-test.XXXXXX)
trap 'rm -f "$log" "$log.lsan"' EXIT INT TERM
# ext_core's barrier rounds: a barrier over ofi takes the same path each round (ext.sh runs
# 10,000 of them on shm), so more rounds here would only cost time.
case "$GPTEST_VARIANT" in
    *asan) barriers=50 stress=500 flag_rounds=10 ;;
    *) barriers=100 stress=2000 flag_rounds=30 ;;
esac
# A job ends without closing its transport (doc/decisions.md); objects libfabric's providers
# allocate for themselves (fi_dupinfo'd copies a connection keeps, seen on net) are then
# reported by LeakSanitizer, from inside libfabric only: those are not gp's to free.
printf 'leak:libfabric.so\n' >"$log.lsan"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$log.lsan"

if ! command -v fi_info >/dev/null 2>&1; then
    echo "skip $T: no fi_info (install libfabric-bin and libfabric-dev: tools/deps.sh)"
    end_tests
fi

# The PAR builds differ from the SEQ one in their locks and threads: under make check they run
# the cases where threads meet (am_threads, ext_threads, the receive thread, the exits, credits,
# the two-node core and extended cases), and the SEQ and ASan builds every case; make check-ofi
# (GP_OFI_TEST_PROVIDERS set) runs every case in every variant.
everywhere() { # NAME: whether a case that one thread drives runs in this variant
    case "$GPTEST_VARIANT" in
    par|pasan) [ -n "$GP_OFI_TEST_PROVIDERS" ] && return 0
               echo "skip $1: one thread drives it; the seq and asan builds run it"; return 1 ;;
    esac
    return 0
}

# 8 ranks on two cores take the paths 4 do, at several times the cost: under make check they
# run over the first provider of the list only.
at_eight() { # NAME: whether an 8-rank case runs over this provider
    first_provider=${default_providers%% *}
    [ -n "$GP_OFI_TEST_PROVIDERS" ] || [ "$GP_OFI_PROVIDER" = "$first_provider" ] && return 0
    echo "skip $1: 8 ranks run over $first_provider only; make check-ofi runs them everywhere"
    return 1
}

# Runs a job and checks its line and a clean, coordinated exit.
job() { # NAME PATTERN TIMEOUT CMD...
    name=$1 pattern=$2 limit=$3; shift 3
    expect_rc "$name" 0 "$limit" "$@" || return 1
    if printf '%s\n' "$out" | grep -q "the exit could not be coordinated"; then
        fail "$name" "exit status 0, but the exit was not coordinated"
        return 1
    fi
    check_line "$name" "$pattern"
}

# Time limits are generous: a process waiting on ofi polls (it does not sleep on the CQ
# yet), so on a loaded machine a job takes several times what it takes over tcp.
# Which providers: GP_OFI_TEST_PROVIDERS (space-separated), else by variant, to keep make
# check's time: SEQ two that differ most (tcp;ofi_rxm, a utility layer over sockets whose
# registrations take no mode bits; shm, within one host, addressed by virtual address),
# the sanitizer and PAR builds tcp;ofi_rxm (the code above the provider is the same;
# make check-ofi runs all six, net;ofi_rxm, net, sockets and udp;ofi_rxd too, in every variant).
case "$GPTEST_VARIANT" in
    seq) default_providers="tcp;ofi_rxm shm" ;;
    *) default_providers="tcp;ofi_rxm" ;;
esac
tested=0
for prov in ${GP_OFI_TEST_PROVIDERS:-$default_providers}; do
    if ! fi_info -p "$prov" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
        echo "skip $T/$prov: libfabric lists no such provider with FI_EP_RDM and FI_RMA here"
        continue
    fi
    export GP_OFI_PROVIDER="$prov"
    P="$T/$prov"
    tested=$((tested + 1))
    # The job really runs over this provider: its debug line names it.
    if expect_rc "$P/opened" 0 180 env GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1; then
        check_line "$P/opened" "debug ofi: provider $prov: [0-9]* receive buffers"
        # FI_ORDER_WAW asked for, and given by every provider here (ofi_info.c).
        check_line "$P/opened/write_order" "debug ofi: provider $prov, .* writes placed in order (FI_ORDER_WAW)"
    fi
    # Nothing left in /dev/shm under the job's pids (the shm provider names its region after
    # the pid; one left behind made a later process given that pid fail fi_enable).
    if expect_rc "$P/no_region_left" 0 180 "$GP_RUN" -v -n 2 "$GPTEST_ITEST/am_core" 1; then
        printf '%s\n' "$out" >"$log"
        left=""
        for pid in $(job_pids "$log"); do
            left="$left$(ls /dev/shm | grep "^$pid:" | tr '\n' ' ')"
        done
        if [ -z "$(job_pids "$log")" ]; then fail "$P/no_region_left" "gp-run -v named no pids"
        elif [ -n "$left" ]; then fail "$P/no_region_left" "left in /dev/shm: $left"
        else pass "$P/no_region_left"; fi
    fi
    for n in 2 4 8; do
        [ $n = 2 ] || everywhere "$P/am_core_n$n" || continue
        [ $n != 8 ] || at_eight "$P/am_core_n$n" || continue
        job "$P/am_core_n$n" "am_core: $n nodes, 1 rounds, every category" 240 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/am_core" 1
    done
    for n in 2 4; do
        [ $n = 2 ] || everywhere "$P/ext_core_n$n" || continue
        # Transfers up to 16 MiB at 2 nodes, up to 1 MiB at 4: the sizes above take the same
        # paths, so the larger ones would only cost time.
        case $n in 2) max_size= ;; *) max_size=1M ;; esac
        # Through windows: every rank's debug line counts the puts and gets that went
        # straight into a peer's window; a put that fell back to messages has no count.
        if job "$P/ext_core_n$n" "ext_core: $n nodes, every put/get/memset form verified" 300 \
                env GP_LOG_LEVEL=debug "$GP_RUN" -n $n "$GPTEST_ITEST/ext_core" $barriers $max_size; then
            check_line "$P/ext_core_n$n/windows" "debug ofi: provider $prov: .* [1-9][0-9]* puts and [1-9][0-9]* gets straight into windows"
        fi
        # And every put and get through messages (eager, rendezvous): no window told, none used.
        if job "$P/ext_core_protocol_n$n" "ext_core: $n nodes, every put/get/memset form verified" 300 \
                env GP_DIRECT_RMA=0 GP_OFI_WINDOWS=0 GP_LOG_LEVEL=debug "$GP_RUN" -n $n \
                "$GPTEST_ITEST/ext_core" 100 $max_size; then
            if printf '%s\n' "$out" | grep "straight into windows" | grep -qv " 0 puts and 0 gets "; then
                fail "$P/ext_core_protocol_n$n/no_windows" "windows used with GP_OFI_WINDOWS=0: $(printf '%s\n' "$out" | grep -m1 'straight into')"
            else
                check_line "$P/ext_core_protocol_n$n/no_windows" "debug ofi: provider $prov: .* 0 puts and 0 gets straight into windows"
            fi
        fi
    done
    # A put's bytes all there at its completion, write order not given: every part waits for
    # its delivery (the debug line says so), none lands after the flag.
    if job "$P/put_flag_no_waw" "put_flag: flag, 2 nodes, $flag_rounds rounds of 1048576 bytes: every byte there" 180 \
            env GP_OFI_ORDER_WAW=0 GP_OFI_TEST_LATE_WRITES=1 GP_LOG_LEVEL=debug "$GP_RUN" -n 2 \
            "$GPTEST_ITEST/put_flag" flag $flag_rounds 1048576; then
        check_line "$P/put_flag_no_waw/unordered" "debug ofi: provider $prov, .* writes unordered (every put part completes at delivery)"
        check_line "$P/put_flag_no_waw/windows" "debug ofi: provider $prov: .* [1-9][0-9]* puts and [0-9]* gets straight into windows"
    fi
    # Both short of buffers at once, each waiting on parts the other's progress completes.
    job "$P/buffers_short_both" "put_flag: both, 2 nodes, $flag_rounds rounds of 1048576 bytes: every byte there" 180 \
        env GP_OFI_TX_BUFS=1 GP_OFI_BOUNCE_BUFS=1 GP_OFI_TEST_RX_PROGRESS=1 "$GP_RUN" -n 2 \
        "$GPTEST_ITEST/put_flag" both $flag_rounds 1048576
    # Threads issuing AMs, puts and gets at once (PAR builds: 4 threads; SEQ: 1).
    job "$P/am_threads_n2" "each run exactly once" 240 "$GP_RUN" -n 2 "$GPTEST_ITEST/am_threads" 4 200
    job "$P/ext_threads_n2" "puts and gets verified" 240 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_threads" 4 20
    for n in 4 8; do
        [ $n = 4 ] || { everywhere "$P/ext_stress_n$n" && at_eight "$P/ext_stress_n$n"; } || continue
        job "$P/ext_stress_n$n" "every area's checksum matched" 300 \
            "$GP_RUN" -n $n "$GPTEST_ITEST/ext_stress" $stress $n
    done
    # The ways a job ends: its code, and no process left behind.
    for mode in collective:7 one_polling:7 request_handler:7 return_one:7 segv:139 stopped:7; do
        name="$P/exit_${mode%%:*}"
        case $mode in collective:*|segv:*) ;; *) everywhere "$name" || continue ;; esac
        # A stopped node costs two whole exit timeouts (the exit's, then gp-run's grace): 1 s.
        case $mode in stopped:*) exit_timeout=1 ;; *) exit_timeout=3 ;; esac
        GASNET_EXITTIMEOUT=$exit_timeout timeout -k 5 60 "$GP_RUN" -v -n 4 "$GPTEST_ITEST/exit_cases" \
            "${mode%%:*}" 7 >"$log" 2>&1
        rc=$?
        left=$(job_alive "$log" exit_cases)
        if [ "$rc" -ne "${mode#*:}" ]; then
            fail "$name" "exit status $rc, expected ${mode#*:}: $(tail -3 "$log" | tr '\n' ' ')"
        elif [ -n "$left" ]; then
            fail "$name" "processes left behind: $left"; kill -9 $left
        elif grep -q 'ERROR: AddressSanitizer\|runtime error:' "$log"; then
            fail "$name" "sanitizer report: $(grep -m1 'ERROR\|runtime error' "$log")"
        elif [ "${mode%%:*}" = segv ] && grep -q "sending SIGKILL" "$log"; then
            # A survivor's exit meets the dead node's failed sends: it has left in the
            # exit, which ends the survivor, not a wait for gp-run's SIGKILL.
            fail "$name" "a survivor had to be killed: $(grep -m1 'sending SIGKILL' "$log")"
        else
            pass "$name"
        fi
    done
    # The conduit's credits over this transport: a hot spot, every message once.
    job "$P/credits_hotspot" "every message arrived once" 120 \
        env GASNET_PORTAL_CRED_PER_NODE=4 "$GP_RUN" -n 4 "$GPTEST_ITEST/credit_dyn" hotspot 1000
    # The transport's own credits at their tightest: requests wait, CREDITs return them.
    if expect_rc "$P/transport_credits" 0 120 env GP_OFI_CREDITS_PP=2 GP_LOG_LEVEL=debug \
            "$GP_RUN" -n 4 "$GPTEST_ITEST/am_flood" 400 1; then
        waits=$(printf '%s\n' "$out" | sed -n 's/.*debug ofi: provider .* sent (\([0-9]*\) CREDIT).*, \([0-9]*\) requests waited for a credit$/\1 \2/p' |
                awk '{ c += $1; w += $2 } END { print c + 0, w + 0 }')
        if ! printf '%s\n' "$out" | grep -q "arrived exactly once"; then
            fail "$P/transport_credits" "am_flood did not finish: $(printf '%s\n' "$out" | tail -3)"
        elif [ "${waits#* }" -gt 0 ] && [ "${waits% *}" -gt 0 ]; then
            pass "$P/transport_credits (CREDIT messages, waits: $waits)"
        else
            fail "$P/transport_credits" "expected requests waiting for credits and CREDIT messages (got $waits)"
        fi
    fi
done
unset GP_OFI_PROVIDER
# Where every provider was asked for, at least two of them must be here.
[ "$GPTEST_VARIANT" != seq ] && [ -z "$GP_OFI_TEST_PROVIDERS" ] || [ $tested -ge 2 ] ||
    fail "$T/providers" "only $tested provider(s) here to test (two wanted)"

# --- memory outside the region: the registration cache (ofi_mr.c, nal/firehose.c) -------------
# Through the protocol (GP_OFI_WINDOWS=0: no put or get straight into a window), a
# rendezvous put's source and a large get's destination in malloc'd memory need a key for the
# peer's RMA: they borrow a cached registration.  Kept after their transfer
# (GP_FIREHOSE_KEEP=1), later transfers from the same buffers hit it, and every byte is still
# checked; GASNET_USE_FIREHOSE=0 registers each one for its operation alone.  ext_core's
# out-of-segment buffers are 1 and 16 MiB: 64 MiB regions hold the first (a range crossing
# a multiple of the region size is registered alone, one key per rendezvous).
if fi_info -p "tcp;ofi_rxm" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1 && everywhere "$T/firehose"; then
    if expect_rc "$T/firehose_keep" 0 300 env GP_OFI_PROVIDER="tcp;ofi_rxm" GP_DIRECT_RMA=0 GP_OFI_WINDOWS=0 \
            GP_FIREHOSE_KEEP=1 GASNET_FIREHOSE_MAXREGION_SIZE=64M GASNET_FIREHOSE_VERBOSE=1 \
            "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" 100; then
        if ! printf '%s\n' "$out" | grep -q "info firehose: [1-9][0-9]* acquires: [1-9][0-9]* hits"; then
            fail "$T/firehose_keep" "no 'info firehose: N acquires: M hits' line with hits: $(printf '%s\n' "$out" | grep firehose | head -2)"
        else
            check_line "$T/firehose_keep" "ext_core: 2 nodes, every put/get/memset form verified"
        fi
    fi
    if expect_rc "$T/firehose_off" 0 300 env GP_OFI_PROVIDER="tcp;ofi_rxm" GP_DIRECT_RMA=0 GP_OFI_WINDOWS=0 \
            GASNET_USE_FIREHOSE=0 GASNET_FIREHOSE_VERBOSE=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" 100; then
        if printf '%s\n' "$out" | grep -q "info firehose: "; then
            fail "$T/firehose_off" "the cache ran with GASNET_USE_FIREHOSE=0"
        else
            check_line "$T/firehose_off" "ext_core: 2 nodes, every put/get/memset form verified"
        fi
    fi
fi
# --- the receive thread (GASNET_RCV_THREAD=1, PAR builds; as rcv_thread.sh on tcp) -----------
# tcp;ofi_rxm's CQs give a wait descriptor: a node that computes without calling GASNet has
# its peers' get, put and AMs served by the thread, handlers included (rcv_thread checks they
# ran there); am_pollers runs the thread's handlers beside the application's own polling.
# shm's CQs give none: the variable is ignored with a warning naming the provider.
case "$GPTEST_VARIANT" in
par|pasan)
    if fi_info -p "tcp;ofi_rxm" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
        job "$T/rcv_thread/handlers_on_thread" "rcv_thread: node 1 served a get, a put and 28 AM requests (Short, Medium, Long, a burst of Shorts) on its receive thread while it computed" 120 \
            env GP_OFI_PROVIDER="tcp;ofi_rxm" GASNET_RCV_THREAD=1 GASNET_PORTAL_AM_LIMIT=1 \
            "$GP_RUN" -n 2 "$GPTEST_ITEST/rcv_thread"
        job "$T/rcv_thread/am_pollers_n4" "each run exactly once with intact data" 240 \
            env GP_OFI_PROVIDER="tcp;ofi_rxm" GASNET_RCV_THREAD=1 \
            "$GP_RUN" -n 4 "$GPTEST_ITEST/am_pollers" 2 2 300
    fi
    if fi_info -p shm -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
        job "$T/rcv_thread/no_wait_fd" "warn ofi: GASNET_RCV_THREAD=1 ignored: provider shm opens no completion queue with a file descriptor to wait on (FI_WAIT_FD)" 120 \
            env GP_OFI_PROVIDER=shm GASNET_RCV_THREAD=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1
    fi
    ;;
esac

# --- errors -----------------------------------------------------------------------------------
if expect_rc "$T/no_such_provider" 1 60 env GASNET_EXITTIMEOUT=3 GP_OFI_PROVIDER=nonesuch \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1; then
    check_line "$T/no_such_provider" "error ofi: no libfabric provider offers what the ofi transport needs: asked for provider nonesuch, an FI_EP_RDM endpoint with FI_MSG and FI_RMA.*lists: .*tcp;ofi_rxm (FI_EP_RDM, caps FI_MSG, FI_RMA"
fi
# FI_PROVIDER, libfabric's own filter, is honoured.
if expect_rc "$T/fi_provider" 0 60 env FI_PROVIDER="net" GP_LOG_LEVEL=debug \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1; then
    check_line "$T/fi_provider" "debug ofi: provider net"
fi
if fi_info -p sockets -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1 && everywhere "$T/failed_completion"; then
    if expect_rc "$T/failed_completion" 1 60 env GASNET_EXITTIMEOUT=3 GP_OFI_PROVIDER=sockets \
            GP_OFI_FAULT_KEY=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" 20; then
        check_line "$T/failed_completion" "FATAL ERROR on node [01]/2: aborting on a failed RMA operation into a window to node [01] (host [^)]*) on provider sockets: "
    fi
fi
# Named by nothing, the provider is libfabric's native tcp one (net in 1.17), not tcp;ofi_rxm,
# which 1.17 lists first (ofi_info.c's preferred_entry); a hardware provider would come first.
hardware=$(fi_info -t FI_EP_RDM -c FI_RMA 2>/dev/null | sed -n 's/^provider: //p' | sort -u |
           grep -Ev '^(tcp|udp|sockets|shm|sm2|net)(;|$)' | head -1)
if [ -n "$hardware" ]; then
    echo "skip $T/default_provider: libfabric lists the hardware provider $hardware here"
elif fi_info -p net -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
    if expect_rc "$T/default_provider" 0 60 env -u GP_OFI_PROVIDER -u FI_PROVIDER \
            GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1; then
        check_line "$T/default_provider" "debug ofi: provider net, fabric"
    fi
    out=$(env -u GP_OFI_PROVIDER -u FI_PROVIDER timeout 120 "$GPTEST_BIN/gp-check" -n 2 2>&1)
    check_line "$T/default_provider/gp_check" "^ok libfabric: providers: .*GP_TRANSPORT=ofi would use net (fabric"
else
    echo "skip $T/default_provider: libfabric lists no net provider here"
fi
# A libfabric.so.1 that is not a library, found first: the error names the library and
# what wanted it (libfabric is opened only when a job asks for ofi: footprint.sh).
mkdir -p "$log.badlib"
echo "not a library" >"$log.badlib/libfabric.so.1"
if expect_rc "$T/library_missing" 1 60 env GASNET_EXITTIMEOUT=3 LD_LIBRARY_PATH="$log.badlib" \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1; then
    check_line "$T/library_missing" "GP_TRANSPORT=ofi needs the libfabric library libfabric.so.1, which cannot be loaded: .*badlib/libfabric.so.1"
fi
rm -rf "$log.badlib"

# gp-check lists the providers and names the one gp would open.
# (Its exit status depends on the other checks of this host: only the line is looked at.)
out=$(GP_OFI_PROVIDER="net;ofi_rxm" timeout 120 "$GPTEST_BIN/gp-check" -n 2 2>&1)
check_line "$T/gp_check" "^ok libfabric: providers: .*net;ofi_rxm (rdm+rma).*GP_TRANSPORT=ofi would use net;ofi_rxm (fabric"
end_tests
