#!/bin/sh
# The ibv suite: runs INSIDE the VM of tests/ibv/vm (as root, on Soft-RoCE
# rxe0), started there by tests/ibv/check.sh.  Real gp jobs through gp-run
# with GP_TRANSPORT=TRANSPORT: the core and extended API suites, the ibv
# variables with good values, and a bad value of each, which must end the
# job with a non-zero status and a message naming the variable.
#
# usage: suite.sh [-t TRANSPORT] [-b VARIANT_DIR] [-r RESULT_DIR] [-s SECONDS] [TEST...]
#   -t  the transport the jobs use (default ibv); any other (tcp) checks the
#       harness itself: the names become ibv/TRANSPORT/..., and the cases that
#       only mean something for ibv are skipped
#   -b  the build variant to run (default build/seq of this checkout)
#   -r  where to note the running test (RESULT_DIR/running), for check.sh
#       to name it if the VM is killed
#   -s  the time limit of each job (default 120 s; the VM is emulated)
#   TEST...  only these cases (names without the ibv/ prefix, e.g. am_core_n2)
# Prints "ok NAME (S s)", "FAIL NAME: why" or "skip NAME: why" per case,
# exits 1 if one failed.  Nothing of the host's environment reaches the
# guest, so everything a job needs is set here.
top=$(cd "$(dirname "$0")/../.." && pwd)
transport=ibv vdir=$top/build/seq resdir= job_limit=120
while getopts "t:b:r:s:" o; do
    case $o in
    t) transport=$OPTARG ;;
    b) vdir=$OPTARG ;;
    r) resdir=$OPTARG ;;
    s) job_limit=$OPTARG ;;
    *) sed -n '/^# usage:/,/^#   TEST/p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
only=" $* "

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export GP_TRANSPORT=$transport
# What a cluster node's limits.conf grants RDMA users; root could pin
# without it, but gp sizes what it registers by this limit.
ulimit -l unlimited 2>/dev/null
GPTEST_BIN=$vdir/bin GPTEST_ITEST=$vdir/tests/integration GPTEST_VARIANT=$(basename "$vdir")
. "$top/tests/lib.sh"
# The emulated machine is slow: short runs of the same suites make check
# runs at full length on shm and tcp.
case "$GPTEST_VARIANT" in *asan) barriers=20 ops=300 ;; *) barriers=100 ops=1000 ;; esac

if [ "$transport" = ibv ]; then P=ibv; else P=ibv/$transport; fi
failed=0
fail() { echo "FAIL $1: $2"; failed=1; }

# run_case NAME FUNCTION: runs FUNCTION as test P/NAME unless TEST... leaves it out.
known=" "
run_case() {
    known="$known$1 "
    name=$P/$1
    case "$only" in "  ") ;; *" $1 "*) ;; *) return ;; esac
    [ -z "$resdir" ] || echo "$name" >"$resdir/running"
    started=$(date +%s.%N)
    "$2"
}
pass() {
    now=$(date +%s.%N)
    echo "ok $1 ($(awk -v a="$started" -v b="$now" 'BEGIN { printf "%.1f", b - a }') s)"
}
skip() { echo "skip $1: $2"; }
ibv_only() { # NAME: true on ibv, else prints skip
    [ "$transport" = ibv ] && return 0
    skip "$1" "means something for the ibv transport only"
    return 1
}

check_line() { # NAME PATTERN: the last expect_rc's output must contain PATTERN
    if printf '%s\n' "$out" | grep -q -- "$2"; then pass "$1"; else fail "$1" "missing '$2' in: $(printf '%s\n' "$out" | tail -5)"; fi
}

# job NAME PATTERN CMD...: a job that must exit 0 after a coordinated exit
# and print PATTERN.
job() {
    jname=$1 pattern=$2; shift 2
    expect_rc "$jname" 0 "$job_limit" "$@" || { failed=1; return 1; }
    if printf '%s\n' "$out" | grep -q "the exit could not be coordinated"; then
        fail "$jname" "exit status 0, but the exit was not coordinated"
        return 1
    fi
    check_line "$jname" "$pattern"
}

am_core() { # N [VAR=VALUE...]
    n=$1; shift
    job "$name" "am_core: $n nodes, 1 rounds, every category" \
        env "$@" "$GP_RUN" -n "$n" "$GPTEST_ITEST/am_core" 1
}
# Every put/get form with local buffers in and out of the segment (the
# out-of-segment ones are what GASNET_USE_FIREHOSE is about), up to 1 MiB:
# 16 MiB transfers take minutes under emulation.
ext_core() { # N [VAR=VALUE...]
    n=$1; shift
    job "$name" "ext_core: $n nodes, every put/get/memset form verified" \
        env "$@" "$GP_RUN" -n "$n" "$GPTEST_ITEST/ext_core" "$barriers" 1M
}
ext_stress() { # N [VAR=VALUE...]
    n=$1; shift
    job "$name" "every area's checksum matched" \
        env "$@" "$GP_RUN" -n "$n" "$GPTEST_ITEST/ext_stress" "$ops" "$n"
}

# bad VAR VALUE: the job must end non-zero, within the limit, with VAR named
# on stderr (stdout may carry the program's own lines).
bad() {
    err=$(mktemp)
    timeout -k 5 "$job_limit" env "$1=$2" GASNET_EXITTIMEOUT=5 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1 >/dev/null 2>"$err"
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$name" "$1=$2: the job ran past ${job_limit}s"
    elif [ "$rc" -eq 0 ]; then
        fail "$name" "$1=$2: the job exited 0"
    elif ! grep -q -- "$1" "$err"; then
        fail "$name" "$1=$2: exit status $rc, but stderr does not name $1: $(tail -3 "$err")"
    else
        pass "$name"
    fi
    rm -f "$err"
}

# ---- the device and plain verbs -------------------------------------------------------------
t_devinfo() {
    out=$(ibv_devinfo -d rxe0 2>&1)
    if printf '%s\n' "$out" | grep -q 'state:.*PORT_ACTIVE' &&
       printf '%s\n' "$out" | grep -q 'link_layer:.*Ethernet'; then
        pass "$name"
    else
        fail "$name" "rxe0 is not an active RoCE port: $(printf '%s\n' "$out" | tr '\n' ' ' | cut -c1-300)"
    fi
}
t_verbs_smoke() {
    expect_rc "$name" 0 60 "$vdir/tests/ibv/verbs_smoke" rxe0 1 &&
        check_line "$name" "verbs_smoke: RDMA WRITE, RDMA READ and SEND/RECV of 65536 bytes over rxe0 verified"
}

# gp-check's rdma line, which ibv's ops table fills (nal_ops.host_report, libibverbs
# loaded there): the device and its active port.
t_gp_check_rdma() {
    ibv_only "$name" || return
    out=$(timeout -k 5 60 "$GPTEST_BIN/gp-check" -n 2 2>&1)
    check_line "$name" "^ok rdma: [0-9]* devices*: .*rxe0 port 1 active (Ethernet)"
}

# ---- gp jobs ----------------------------------------------------------------------------------
# The transport is the one asked for: its debug log has its own lines, and
# over ibv they name the device.
t_transport() {
    expect_rc "$name" 0 "$job_limit" env GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1 || return
    if ! printf '%s\n' "$out" | grep -q "^gp\[[01]/2\] debug $transport: "; then
        fail "$name" "no 'gp[R/2] debug $transport: ' line with GP_LOG_LEVEL=debug: did the job run over $transport?"
    elif [ "$transport" = ibv ] && ! printf '%s\n' "$out" | grep -q "^gp\[[01]/2\] debug ibv: .*rxe0"; then
        fail "$name" "no 'debug ibv:' line names the device rxe0"
    else
        pass "$name"
    fi
}
t_am_core_n2() { am_core 2; }
t_am_core_n4() { am_core 4; }
t_ext_core_n2() { ext_core 2; }
# At 4 nodes up to 256 KiB: the larger sizes take the paths ext_core_n2 takes at 1 MiB, and
# cost this case half its time under emulation.
t_ext_core_n4() {
    job "$name" "ext_core: 4 nodes, every put/get/memset form verified" \
        "$GP_RUN" -n 4 "$GPTEST_ITEST/ext_core" "$barriers" 256K
}
t_ext_stress_n4() { ext_stress 4; }
# job_saying NAME PATTERN LOG_PATTERN CMD...: a job as with job, whose output
# must also hold LOG_PATTERN over ibv (a line saying the feature was used).
job_saying() {
    jname=$1 pattern=$2 log_pattern=$3; shift 3
    expect_rc "$jname" 0 "$job_limit" "$@" || { failed=1; return 1; }
    if [ "$transport" = ibv ] && ! printf '%s\n' "$out" | grep -q -- "$log_pattern"; then
        fail "$jname" "no line matching '$log_pattern': $(printf '%s\n' "$out" | grep 'ibv\|firehose' | head -3)"
        return 1
    fi
    check_line "$jname" "$pattern"
}
t_num_qps_2() {
    job_saying "$name" "every area's checksum matched" "debug ibv: 1 port, 2 QPs per peer" \
        env GASNET_NUM_QPS=2 GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_stress" "$ops" 2
}
# Out-of-segment buffers through firehose (its summary counts the pinnings) or,
# with it off, through bounce buffers (no firehose at all).
t_firehose_0() {
    expect_rc "$name" 0 "$job_limit" env GASNET_USE_FIREHOSE=0 GASNET_FIREHOSE_VERBOSE=1 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" "$barriers" 1M || { failed=1; return; }
    if printf '%s\n' "$out" | grep -q "info firehose: "; then
        fail "$name" "firehose ran with GASNET_USE_FIREHOSE=0"
    else
        check_line "$name" "ext_core: 2 nodes, every put/get/memset form verified"
    fi
}
t_firehose_1() {
    job_saying "$name" "ext_core: 2 nodes, every put/get/memset form verified" \
        "info firehose: [1-9][0-9]* acquires" env GASNET_USE_FIREHOSE=1 GASNET_FIREHOSE_VERBOSE=1 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" "$barriers" 1M
}
# A kept registration (GP_FIREHOSE_KEEP=1) serves the next transfer from
# the same buffer: the summary counts hits.
t_firehose_keep() {
    job_saying "$name" "ext_core: 2 nodes, every put/get/memset form verified" \
        "info firehose: [1-9][0-9]* acquires: [1-9][0-9]* hits" env GP_FIREHOSE_KEEP=1 \
        GASNET_FIREHOSE_VERBOSE=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" "$barriers" 1M
}
# VIS packs its pieces in buffers it mallocs and frees, so the same
# addresses come back with new pages: a registration kept past a transfer
# moved stale bytes here (every transfer's bytes are checked).
vis_job() { # NODES [MODE]
    expect_rc "$name" 0 "$job_limit" "$GP_RUN" -n "$1" "$GPTEST_ITEST/vis" "${2:-all}" ||
        { failed=1; return; }
    case "${2:-all}" in
    zeroseg) check_line "$name" "vis zeroseg: node 1 without a segment verified 13 puts and 13 gets" ;;
    *) check_line "$name" "vis: node 0 verified 158 puts and 158 gets" ;;
    esac
}
t_vis_n2() { vis_job 2; }
t_vis_n3() { vis_job 3; }
t_vis_zeroseg() { vis_job 2 zeroseg; }
t_ports_rxe0() { ibv_only "$name" && am_core 2 GASNET_IBV_PORTS=rxe0:1; }

# The default (hybrid) transport with two pretended hosts of two ranks each:
# shm on a host, verbs between the hosts.
t_hybrid_hosts() {
    ibv_only "$name" || return
    wrap=$(mktemp /tmp/gp-hostwrap.XXXXXX)
    printf '#!/bin/sh\nGP_HOST_ID=h$((GP_RANK / 2)) exec "$@"\n' >"$wrap"
    chmod +x "$wrap"
    expect_rc "$name" 0 "$job_limit" env -u GP_TRANSPORT GP_LOG_LEVEL=debug "$GP_RUN" -n 4 "$wrap" \
        "$GPTEST_ITEST/ext_core" "$barriers" 64K
    rc=$?
    rm -f "$wrap"
    [ $rc -eq 0 ] || return
    if ! printf '%s\n' "$out" | grep -q "debug hybrid: 2 hosts: shm to this host's peers, ibv to the others"; then
        fail "$name" "the hybrid transport did not choose verbs between the hosts"
    else
        check_line "$name" "ext_core: 4 nodes, every put/get/memset form verified"
    fi
}

# GP_HYBRID_ORDER=tcp: the same hosts, where verbs would be chosen, go by tcp
# (the order's only transport); ibv,tcp chooses verbs again.  What is checked is the choice,
# with am_core's every AM category over it: hybrid_hosts moves ext_core's bytes over verbs.
t_hybrid_order() {
    ibv_only "$name" || return
    wrap=$(mktemp /tmp/gp-hostwrap.XXXXXX)
    printf '#!/bin/sh\nGP_HOST_ID=h$((GP_RANK / 2)) exec "$@"\n' >"$wrap"
    chmod +x "$wrap"
    for order in tcp ibv,tcp; do
        expect_rc "$name" 0 "$job_limit" env -u GP_TRANSPORT GP_HYBRID_ORDER=$order \
            GP_LOG_LEVEL=debug "$GP_RUN" -n 4 "$wrap" "$GPTEST_ITEST/am_core" 1 || break
        taken=${order%%,*}
        if ! printf '%s\n' "$out" | grep -q "debug hybrid: 2 hosts: shm to this host's peers, $taken to the others"; then
            fail "$name" "GP_HYBRID_ORDER=$order did not choose $taken between the hosts"
            break
        fi
        [ "$order" = tcp ] || check_line "$name" "am_core: 4 nodes, 1 rounds, every category"
    done
    rm -f "$wrap"
}

# A failed work completion (a wrong remote key, forced): reported with the
# verbs status, the operation and the peer, then the job ends non-zero and
# nothing hangs.
t_failed_completion() {
    ibv_only "$name" || return
    err=$(mktemp)
    timeout -k 5 "$job_limit" env GP_IBV_FAULT_RKEY=3 GASNET_EXITTIMEOUT=5 \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" 10 64K >/dev/null 2>"$err"
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$name" "the job ran past ${job_limit}s"
    elif [ "$rc" -eq 0 ]; then
        fail "$name" "the job exited 0"
    elif ! grep -q "FATAL ERROR.*aborting on reap of failed RDMA operation to node [01] (host [^)]*): remote access error" "$err"; then
        fail "$name" "exit status $rc, but no fatal line naming the operation, node and status: $(tail -3 "$err")"
    else
        pass "$name"
    fi
    rm -f "$err"
}

# GASNET_RCV_THREAD=1 (PAR build, when it was built beside this one): node 1
# computes without calling the library while node 0's get, put and AM
# requests, which need node 1's matching and handlers, complete (the
# handlers run on the receive thread, one AM event per poll); then am_core
# and am_pollers with the thread's handlers beside the application's polls.
par_dir() { # NAME: the PAR build beside this one in $pdir, else prints skip
    pdir=$(dirname "$vdir")/par
    [ -x "$pdir/tests/integration/rcv_thread" ] && return 0
    skip "$1" "no PAR build beside $vdir (make par)"
    return 1
}
t_rcv_thread() {
    ibv_only "$name" && par_dir "$name" || return
    job "$name" "rcv_thread: node 1 served a get, a put and 28 AM requests (Short, Medium, Long, a burst of Shorts) on its receive thread while it computed" \
        env GASNET_RCV_THREAD=1 GASNET_PORTAL_AM_LIMIT=1 "$pdir/bin/gp-run" -n 2 \
        "$pdir/tests/integration/rcv_thread"
}
t_rcv_thread_am_core() {
    ibv_only "$name" && par_dir "$name" || return
    job "$name" "am_core: 2 nodes, 1 rounds, every category" \
        env GASNET_RCV_THREAD=1 "$pdir/bin/gp-run" -n 2 "$pdir/tests/integration/am_core" 1
}
t_rcv_thread_am_pollers() {
    ibv_only "$name" && par_dir "$name" || return
    job "$name" "each run exactly once with intact data" \
        env GASNET_RCV_THREAD=1 "$pdir/bin/gp-run" -n 2 "$pdir/tests/integration/am_pollers" 2 2 300
}

# Multi-rail: a second Soft-RoCE device on its own interface; two QPs per
# peer, one on each device's port.
t_multirail() {
    ibv_only "$name" || return
    if ! rdma link show rxe1/1 >/dev/null 2>&1; then
        ip link add gpdummy1 type dummy && ip addr add 10.9.1.1/24 dev gpdummy1 &&
            ip link set gpdummy1 up && rdma link add rxe1 type rxe netdev gpdummy1 ||
            { fail "$name" "cannot add a second rxe device"; return; }
    fi
    expect_rc "$name" 0 "$job_limit" env GASNET_IBV_PORTS=rxe0+rxe1 GP_LOG_LEVEL=debug \
        "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" "$barriers" 256K || return
    if ! printf '%s\n' "$out" | grep -q "debug ibv: 2 ports, 2 QPs per peer"; then
        fail "$name" "the job did not open both devices: $(printf '%s\n' "$out" | grep 'debug ibv' | head -4)"
    else
        check_line "$name" "ext_core: 2 nodes, every put/get/memset form verified"
    fi
}

# The shared receive queue: its buffers are GASNET_RBUF_COUNT at most, whatever the job's
# size; 7 peers share 64 (61 posted: 3 credits each for requests, 32 for answers, 8 for
# credit messages), and every request of every pair is answered with its bytes intact.
t_srq_bounded() {
    job_saying "$name" "recv_memory: 8 nodes, 8 requests of 512 bytes to each peer, every reply back" \
        "debug ibv: shared receive queue: 61 buffers, 244 KiB registered, for 7 peers (3 credits granted to each" \
        env GASNET_RBUF_COUNT=64 GP_LOG_LEVEL=debug "$GP_RUN" -n 8 "$GPTEST_ITEST/recv_memory" 8
}
# Past what the SRQ covers: 3 peers granted 2 credits each, 4 buffers for their requests (16
# in all), so senders meet RNR and wait; every area must still be intact.
t_srq_rnr() {
    job_saying "$name" "every area's checksum matched" \
        "debug ibv: shared receive queue: 16 buffers, 64 KiB registered, for 3 peers (2 credits granted to each, 4 buffers for their requests" \
        env GASNET_RBUF_COUNT=16 GP_LOG_LEVEL=debug "$GP_RUN" -n 4 "$GPTEST_ITEST/ext_stress" "$ops" 4
}

# The memory that may be pinned is too small for the region: a clear error
# saying what to raise, for the locked-memory limit (without the privilege
# that bypasses it) and for GASNET_PHYSMEM_MAX.
t_memlock() {
    ibv_only "$name" || return
    err=$(mktemp)
    timeout -k 5 "$job_limit" setpriv --inh-caps=-ipc_lock --ambient-caps=-ipc_lock \
        --bounding-set=-ipc_lock sh -c 'ulimit -l 64 && exec "$@"' sh \
        env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1 >/dev/null 2>"$err"
    rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q "raise ulimit -l" "$err"; then
        fail "$name" "exit status $rc, stderr: $(tail -3 "$err")"
    else
        pass "$name"
    fi
    rm -f "$err"
}
t_physmem_max() { ibv_only "$name" && bad GASNET_PHYSMEM_MAX 1M; }

# ---- the ofi transport over verbs;ofi_rxm -----------------------------------------------------
# The same jobs tests/integration/ofi.sh runs per provider, here over libfabric's verbs
# provider on rxe0 under ofi_rxm: whatever -t says, these jobs choose GP_TRANSPORT=ofi.
OFI_PROVIDER='verbs;ofi_rxm'
# fi_info is slow under emulation (libfabric's verbs provider reads /proc/kallsyms and
# libpsm_infinipath calibrates its clock at every load): asked once per boot, not per case.
ofi_listing=
ofi_list() { # true when libfabric lists the provider with RDM and RMA
    [ -n "$ofi_listing" ] || {
        if fi_info -p "$OFI_PROVIDER" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then ofi_listing=yes
        else ofi_listing=no; fi
    }
    [ "$ofi_listing" = yes ]
}
ofi_listed() { # NAME: true when libfabric lists the provider with RDM and RMA, else prints skip
    ofi_list && return 0
    skip "$1" "libfabric lists no $OFI_PROVIDER with FI_EP_RDM and FI_RMA (ofi_provider says why)"
    return 1
}
# The VM is meant to offer it: libfabric must list it, and a job must really open it.  That job
# is am_core at 2 nodes (every AM category over the provider): a second one would only pay
# libfabric's start-up in the VM again.
t_ofi_provider() {
    if ! ofi_list; then
        fail "$name" "fi_info lists no $OFI_PROVIDER with FI_EP_RDM and FI_RMA: $(fi_info -l 2>&1 |
            grep -v version | tr -d '\n' | cut -c1-200)"
        return
    fi
    expect_rc "$name" 0 "$job_limit" env GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER" \
        GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/am_core" 1 || return
    if ! printf '%s\n' "$out" | grep -q "am_core: 2 nodes, 1 rounds, every category"; then
        fail "$name" "am_core did not report every category: $(printf '%s\n' "$out" | tail -3)"
        return
    fi
    check_line "$name" "debug ofi: provider $OFI_PROVIDER, fabric .*, domain rxe0"
}
t_ofi_am_core_n4() { ofi_listed "$name" && am_core 4 GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER"; }
# Straight into the windows, then through the protocol (messages, rendezvous reads); at 2
# nodes only: 4 take 95 s in the emulated VM, and ext_stress_n4 has 4 ranks meet.
t_ofi_ext_core_n2() { ofi_listed "$name" && ext_core 2 GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER"; }
t_ofi_ext_core_protocol_n2() {
    ofi_listed "$name" && ext_core 2 GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER" GP_DIRECT_RMA=0 \
        GP_OFI_WINDOWS=0
}
t_ofi_ext_stress_n4() { ofi_listed "$name" && ext_stress 4 GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER"; }
# A rank that dies of SIGSEGV: the job ends with the signal's code and leaves no process.
t_ofi_exit_segv() {
    ofi_listed "$name" || return
    log=$(mktemp)
    GASNET_EXITTIMEOUT=3 timeout -k 5 "$job_limit" env GP_TRANSPORT=ofi \
        GP_OFI_PROVIDER="$OFI_PROVIDER" "$GP_RUN" -v -n 4 "$GPTEST_ITEST/exit_cases" segv 7 >"$log" 2>&1
    rc=$?
    left=$(job_alive "$log" exit_cases)
    if [ "$rc" -ne 139 ]; then
        fail "$name" "exit status $rc, expected 139: $(tail -3 "$log" | tr '\n' ' ')"
    elif [ -n "$left" ]; then
        fail "$name" "processes left behind: $left"; kill -9 $left
    else
        pass "$name"
    fi
    rm -f "$log"
}
t_ofi_exit_collective() {
    ofi_listed "$name" || return
    expect_rc "$name" 7 "$job_limit" env GASNET_EXITTIMEOUT=3 GP_TRANSPORT=ofi \
        GP_OFI_PROVIDER="$OFI_PROVIDER" "$GP_RUN" -n 4 "$GPTEST_ITEST/exit_cases" collective 7 &&
        pass "$name"
}
# verbs demands FI_MR_LOCAL: gets into malloc'd memory larger than a tx buffer take a
# registration from the cache (nal/firehose.c, as ibv's do); kept, later ones hit it.
# ext_core's buffers outside the segment are 1 MiB: 64 MiB regions hold them whole.
t_ofi_firehose_keep() {
    ofi_listed "$name" && job_saying "$name" "ext_core: 2 nodes, every put/get/memset form verified" \
        "info firehose: [1-9][0-9]* acquires: [1-9][0-9]* hits" env GP_TRANSPORT=ofi \
        GP_OFI_PROVIDER="$OFI_PROVIDER" GP_FIREHOSE_KEEP=1 GASNET_FIREHOSE_MAXREGION_SIZE=64M \
        GASNET_FIREHOSE_VERBOSE=1 "$GP_RUN" -n 2 "$GPTEST_ITEST/ext_core" "$barriers" 1M
}
# The conduit's credits under a hot spot: every message once.
t_ofi_credits_hotspot() {
    ofi_listed "$name" || return
    job "$name" "every message arrived once" env GP_TRANSPORT=ofi GP_OFI_PROVIDER="$OFI_PROVIDER" \
        GASNET_PORTAL_CRED_PER_NODE=4 "$GP_RUN" -n 4 "$GPTEST_ITEST/credit_dyn" hotspot 1000
}

# ---- the GASNet-EX face over verbs -------------------------------------------------------------
# The EX programs of make check's ex.sh, whose RMA, remote atomics and VIS take the transport's
# paths: every rank must say it verified its part, and the exit must be coordinated.
ex_job() { # PROG N LINE [VAR=VALUE...]
    prog=$1 n=$2 line=$3; shift 3
    expect_rc "$name" 0 "$job_limit" env "$@" "$GP_RUN" -n "$n" "$GPTEST_ITEST/$prog" ||
        { failed=1; return 1; }
    said=$(printf '%s\n' "$out" | grep -c "^$prog: rank [0-9]* of $n: $line")
    if printf '%s\n' "$out" | grep -q "the exit could not be coordinated"; then
        fail "$name" "exit status 0, but the exit was not coordinated"
    elif [ "$said" -ne "$n" ]; then
        fail "$name" "$said of $n ranks said '$line': $(printf '%s\n' "$out" | tail -5 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}
ex_core_line="every AM category and argument count, every RMA form, events, NBI, queries and HSLs verified"
ex_atomic_line="every type and operation, contention and REL/ACQ verified"
ex_vis_line="vector, indexed and strided puts and gets in every form, leaf and peer completion verified"
# Every RMA form (blocking, NB, NBI, Val) and every AM category.
t_ex_core_n2() { ex_job ex_core 2 "$ex_core_line"; }
# Remote atomics between processes that map nothing of each other: each one an AM the target
# runs; every rank contends on one counter at 4.
t_ex_atomic_n2() { ex_job ex_atomic 2 "$ex_atomic_line"; }
t_ex_atomic_n4() { ex_job ex_atomic 4 "$ex_atomic_line"; }
# The hybrid: CPU atomics on the mapped neighbour's counter and AMs over verbs from the other
# pretended host, on one location.
t_ex_atomic_hybrid() {
    ibv_only "$name" || return
    wrap=$(mktemp /tmp/gp-hostwrap.XXXXXX)
    printf '#!/bin/sh\nGP_HOST_ID=h$((GP_RANK / 2)) exec "$@"\n' >"$wrap"
    chmod +x "$wrap"
    expect_rc "$name" 0 "$job_limit" env -u GP_TRANSPORT GP_LOG_LEVEL=debug "$GP_RUN" -n 4 "$wrap" \
        "$GPTEST_ITEST/ex_atomic"
    rc=$?
    rm -f "$wrap"
    [ $rc -eq 0 ] || { failed=1; return; }
    if ! printf '%s\n' "$out" | grep -q "debug hybrid: 2 hosts: shm to this host's peers, ibv to the others"; then
        fail "$name" "no line saying the hybrid ran shm and ibv: $(printf '%s\n' "$out" | grep hybrid | head -2)"
    elif [ "$(printf '%s\n' "$out" | grep -c "^ex_atomic: rank [0-9]* of 4: $ex_atomic_line")" -ne 4 ]; then
        fail "$name" "not every rank verified: $(printf '%s\n' "$out" | grep -v ' debug ' | tail -5 | tr '\n' ' ')"
    else
        pass "$name"
    fi
}
# Every VIS form and sync, leaf and peer completion.
t_ex_vis_n2() { ex_job ex_vis 2 "$ex_vis_line"; }
t_ex_vis_n3() { ex_job ex_vis 3 "$ex_vis_line"; }

# ---- a busy peer is never fatal (doc/wire-ibv.md, "Failures") ---------------------------------
# Node 1 stays out of the library for BUSY_SECONDS (longer than the 60 s after which a tcp dial
# once failed a job) while node 0 makes one blocking put to it, then both meet in a barrier.
# Started before the first case, in the background, and checked after the last, so the suite
# waits for it once; node 0 sleeps too once its put (an RDMA write) has returned ("idle"), so
# that no spinning waiter takes an emulated CPU from the cases beside it.
BUSY_SECONDS=65
busy_pid= busy_log=
busy_peer_start() {
    busy_log=$(mktemp /tmp/gp-ibv-busy.XXXXXX)
    (timeout -k 5 $((BUSY_SECONDS + 120)) env GP_LOG_LEVEL=debug GP_SLOW_WAIT_MS=5000 "$GP_RUN" -n 2 \
        "$GPTEST_ITEST/busy_peer" busy "$BUSY_SECONDS" idle >"$busy_log" 2>&1
     echo "rc $?" >>"$busy_log") &
    busy_pid=$!
}
t_busy_peer() {
    [ -n "$busy_pid" ] || { fail "$name" "the busy job was never started"; return; }
    wait "$busy_pid"
    busy_rc=$(sed -n 's/^rc \([0-9]*\)$/\1/p' "$busy_log")
    if [ "$busy_rc" != 0 ]; then
        fail "$name" "exit status $busy_rc: $(grep -v ' debug ' "$busy_log" | tail -5 | tr '\n' ' ')"
    elif grep -q "the exit could not be coordinated\| error \|FATAL" "$busy_log"; then
        fail "$name" "errors: $(grep "the exit could not\| error \|FATAL" "$busy_log" | head -3 | tr '\n' ' ')"
    elif [ "$transport" = ibv ] && ! grep -q "debug ibv: .*rxe0" "$busy_log"; then
        fail "$name" "the job did not run over verbs: $(head -3 "$busy_log" | tr '\n' ' ')"
    elif ! grep -q "busy_peer: node 1 was busy for $BUSY_SECONDS s; node 0's put landed" "$busy_log"; then
        fail "$name" "no line saying the put landed: $(tail -5 "$busy_log" | tr '\n' ' ')"
    else
        pass "$name"
    fi
    rm -f "$busy_log"
}

# ---- bad values: one per ibv variable ---------------------------------------------------------
t_bad_num_qps() { ibv_only "$name" && bad GASNET_NUM_QPS -1; }
t_bad_qp_timeout() { ibv_only "$name" && bad GASNET_QP_TIMEOUT 99; }
t_bad_qp_retry_count() { ibv_only "$name" && bad GASNET_QP_RETRY_COUNT 8; }
t_bad_ibv_ports() { ibv_only "$name" && bad GASNET_IBV_PORTS nosuchhca; }
t_bad_ibv_port_number() { ibv_only "$name" && bad GASNET_IBV_PORTS rxe0:9; }
t_bad_rbuf_count() { bad GASNET_RBUF_COUNT 8; }
# Rows of the configuration table already, whatever the transport.
t_bad_use_firehose() { bad GASNET_USE_FIREHOSE maybe; }
t_bad_firehose_maxregion() { bad GASNET_FIREHOSE_MAXREGION_SIZE 2048; }

case "$only" in "  "|*" busy_peer "*) busy_peer_start ;; esac
run_case devinfo t_devinfo
run_case verbs_smoke t_verbs_smoke
run_case gp_check_rdma t_gp_check_rdma
run_case transport t_transport
run_case am_core_n2 t_am_core_n2
run_case am_core_n4 t_am_core_n4
run_case ext_core_n2 t_ext_core_n2
run_case ext_core_n4 t_ext_core_n4
run_case ext_stress_n4 t_ext_stress_n4
run_case num_qps_2 t_num_qps_2
run_case firehose_0 t_firehose_0
run_case firehose_1 t_firehose_1
run_case firehose_keep t_firehose_keep
run_case vis_n2 t_vis_n2
run_case vis_n3 t_vis_n3
run_case vis_zeroseg t_vis_zeroseg
run_case ex_core_n2 t_ex_core_n2
run_case ex_atomic_n2 t_ex_atomic_n2
run_case ex_atomic_n4 t_ex_atomic_n4
run_case ex_atomic_hybrid t_ex_atomic_hybrid
run_case ex_vis_n2 t_ex_vis_n2
run_case ex_vis_n3 t_ex_vis_n3
run_case ports_rxe0 t_ports_rxe0
run_case hybrid_hosts t_hybrid_hosts
run_case hybrid_order t_hybrid_order
run_case rcv_thread t_rcv_thread
run_case rcv_thread_am_core t_rcv_thread_am_core
run_case rcv_thread_am_pollers t_rcv_thread_am_pollers
run_case multirail t_multirail
run_case srq_bounded t_srq_bounded
run_case srq_rnr t_srq_rnr
run_case memlock t_memlock
run_case physmem_max t_physmem_max
run_case failed_completion t_failed_completion
run_case ofi_provider t_ofi_provider
run_case ofi_am_core_n4 t_ofi_am_core_n4
run_case ofi_ext_core_n2 t_ofi_ext_core_n2
run_case ofi_ext_core_protocol_n2 t_ofi_ext_core_protocol_n2
run_case ofi_ext_stress_n4 t_ofi_ext_stress_n4
run_case ofi_exit_segv t_ofi_exit_segv
run_case ofi_exit_collective t_ofi_exit_collective
run_case ofi_credits_hotspot t_ofi_credits_hotspot
run_case ofi_firehose_keep t_ofi_firehose_keep
run_case bad_num_qps t_bad_num_qps
run_case bad_qp_timeout t_bad_qp_timeout
run_case bad_qp_retry_count t_bad_qp_retry_count
run_case bad_ibv_ports t_bad_ibv_ports
run_case bad_ibv_port_number t_bad_ibv_port_number
run_case bad_rbuf_count t_bad_rbuf_count
run_case bad_use_firehose t_bad_use_firehose
run_case bad_firehose_maxregion t_bad_firehose_maxregion
run_case busy_peer t_busy_peer
for t in "$@"; do
    case "$known" in *" $t "*) ;; *) fail "$P/$t" "no such case in $0" ;; esac
done
[ -z "$resdir" ] || rm -f "$resdir/running"
exit $failed
