#!/bin/sh
# doc/scale.md section 04: receive memory per process over ibv against the job's
# size, with one shared receive queue per process.  Boots the Soft-RoCE VM
# of tests/ibv once and runs recv_memory (every pair exchanges answered
# Medium requests, bytes checked) over GP_TRANSPORT=ibv at N = 2, 4, ...
# (SCALE_IBV_NS), up to the largest the VM holds; for each N it reads the
# SRQ's registered buffers from the ibv debug line and each process's
# VmRSS / VmPin, and prints them beside what the per-peer receive queues
# before it would have registered (rq_depth x (N - 1) x 4 KiB).  With
# SCALE_IBV_BEFORE=BUILD_DIR (a build of a tree from before, with
# recv_memory copied in) the same jobs run there too, in the same boot, and
# their RSS / VmPin are printed beside.
# Exit 77 when the VM cannot start here.  doc/scale.md section 04.
top=$(cd "$(dirname "$0")/../.." && pwd)
vdir=$(cd "${GP_BUILD:-$top/build/seq}" 2>/dev/null && pwd) || { echo "skipped: no build directory ${GP_BUILD:-build/seq}"; exit 77; }
ns=${SCALE_IBV_NS:-2 4 8 16 32 48 64}
limit=${SCALE_IBV_JOB_LIMIT:-300}
for tool in qemu-system-x86_64 /bin/busybox depmod cpio; do
    PATH=$PATH:/usr/sbin:/sbin command -v "$tool" >/dev/null 2>&1 ||
        { echo "skipped: $tool is missing (tools/deps.sh installs the VM's tools)"; exit 77; }
done
ls /usr/lib/*/libibverbs/librxe-* >/dev/null 2>&1 ||
    { echo "skipped: libibverbs has no rxe provider (Debian package ibverbs-providers)"; exit 77; }
[ -x "$vdir/tests/integration/recv_memory" ] || { echo "scale 04: $vdir/tests/integration/recv_memory is not built" >&2; exit 1; }

res=$vdir/ibv-scale
rm -rf "$res"
mkdir -p "$res" || exit 1
# 64 ranks with their own QPs and pinned buffers: more guest memory than the suite's 3 GiB.
nice -n 10 "$top/tests/ibv/vm/run-vm.sh" -c 4 -m "${SCALE_IBV_VM_MB:-6144}" -t 1500 -o "$res" -- \
    "sh '$top/tests/scale/ibv-recv-guest.sh' '$vdir' '$res' $limit '${SCALE_IBV_BEFORE:--}' $ns" >/dev/null 2>"$res/run-vm.err"
rc=$?
if [ ! -f "$res/console.log" ]; then
    echo "skipped: the VM could not be started: $(tail -2 "$res/run-vm.err" | tr '\n' ' ')"
    exit 77
fi
[ -s "$res/summary" ] || { echo "scale 04: the VM ran no job (status $rc); see $res/console.log" >&2; exit 1; }

largest=0 measured=0
while read -r n jrc secs; do
    out=$res/n$n.out
    if [ "$jrc" -ne 0 ]; then
        echo "   N=$n: the job failed (status $jrc after ${secs} s): $(grep -v '^recv_memory: node' "$out" | tail -2 | tr '\n' ' ')"
        continue
    fi
    grep -q "recv_memory: $n nodes, .* every byte checked" "$out" ||
        { echo "scale 04: N=$n exited 0 without its closing line" >&2; exit 1; }
    line=$(grep -m1 "debug ibv: shared receive queue: [0-9]* buffers" "$out")
    bufs=$(printf '%s\n' "$line" | sed -n 's/.*shared receive queue: \([0-9]*\) buffers, \([0-9]*\) KiB registered.*(\([0-9]*\) credits granted.*/\2 \3/p')
    kib=${bufs% *} grant=${bufs#* }
    [ -n "$kib" ] || { echo "scale 04: N=$n: no SRQ line in the debug output" >&2; exit 1; }
    rss=$(sed -n 's/^recv_memory: node [0-9]* of [0-9]*: VmRSS \([0-9]*\) kB.*/\1/p' "$out" | sort -n)
    pin=$(sed -n 's/^recv_memory: node [0-9]* of [0-9]*: .*VmPin \([0-9-]*\) kB.*/\1/p' "$out" | sort -n)
    count=$(printf '%s\n' "$rss" | grep -c .)
    [ "$count" -eq "$n" ] || { echo "scale 04: N=$n: $count memory lines, expected $n" >&2; exit 1; }
    med_rss=$(printf '%s\n' "$rss" | sed -n "$(( (count + 1) / 2 ))p")
    max_rss=$(printf '%s\n' "$rss" | tail -1)
    med_pin=$(printf '%s\n' "$pin" | sed -n "$(( (count + 1) / 2 ))p")
    # The per-peer receive queues of before: AM_CREDITS_PP + the answer share + 4 per peer.
    pp=32 total=$(( 1024 < 32 * (n - 1) ? 1024 : 32 * (n - 1) ))
    ans=$(( total / (n - 1) )); [ "$ans" -ge 1 ] || ans=1; [ "$ans" -le 64 ] || ans=64
    old=$(( (pp + ans + 4) * (n - 1) * 4 ))
    echo "figure: ibv_srq_registered_N$n = $kib KiB (target: independent of N, at most GASNET_RBUF_COUNT x 4 KiB = 4096 KiB; per-peer queues: $old KiB)"
    echo "figure: ibv_rss_median_N$n = $med_rss kB (max $max_rss kB; VmPin median $med_pin kB; $grant credits granted per peer)"
    largest=$n measured=$((measured + 1))
done <"$res/summary"
[ "$measured" -gt 0 ] || { echo "scale 04: no N could be measured" >&2; exit 1; }
# median VALUE_FIELD FILE: the median over the nodes' memory lines
median() {
    sed -n "s/^recv_memory: node [0-9]* of [0-9]*: .*$1 \([0-9-]*\) kB.*/\1/p" "$2" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
if [ -s "$res/before-summary" ]; then
    while read -r n jrc secs; do
        if [ "$jrc" -ne 0 ]; then
            echo "   before, N=$n: the job failed (status $jrc after ${secs} s)"
            continue
        fi
        echo "figure: ibv_before_rss_median_N$n = $(median VmRSS "$res/before-n$n.out") kB (per-peer receive queues; VmPin median $(median VmPin "$res/before-n$n.out") kB)"
    done <"$res/before-summary"
fi
echo "figure: ibv_largest_N = $largest ranks (the VM: 4 vCPUs, ${SCALE_IBV_VM_MB:-6144} MB; every job's bytes checked)"
