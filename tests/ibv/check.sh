#!/bin/sh
# Boots the ibv VM (tests/ibv/vm) once and runs tests/ibv/suite.sh in it
# against one build variant, printing the suite's lines as they come:
# "ok NAME", "FAIL NAME: why", "skip NAME: why".  Exit status 1 if a test
# failed or the VM did not run the suite to its end.
#
# usage: tests/ibv/check.sh VARIANT_DIR [TEST...]      (e.g. build/seq; TEST as suite.sh takes them)
# environment:
#   GP_IBV_TRANSPORT   the transport of the jobs (default ibv; tcp checks the harness itself)
#   GP_IBV_REQUIRE=1   a missing prerequisite (qemu, the kernel) is a FAIL, not a skip
#   GP_IBV_VM_TIMEOUT  seconds before the VM is killed (default 900)
#   GP_IBV_VM_DIR      the kernel and initramfs cache (default /var/tmp/gp-ibv-vm)
# The VM's console, the suite's output and the job's files are kept in
# VARIANT_DIR/ibv-vm/ (the only directory the guest may write to).
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '/^# usage:/,/^# The VM/p' "$0" >&2; exit 2; }
vdir=$(cd "$1" 2>/dev/null && pwd) || { echo "FAIL ibv/vm: no build directory $1"; exit 1; }
shift
transport=${GP_IBV_TRANSPORT:-ibv}
tmo=${GP_IBV_VM_TIMEOUT:-900}
res=$vdir/ibv-vm

# unavailable WHY: the VM cannot run here; make check goes on without it.
unavailable() {
    if [ "${GP_IBV_REQUIRE:-0}" = 1 ]; then
        echo "FAIL ibv/vm: $1"
        exit 1
    fi
    echo "skip ibv/vm: $1"
    exit 0
}
for tool in qemu-system-x86_64:qemu-system-x86 /bin/busybox:busybox-static depmod:kmod cpio:cpio \
            ibv_devinfo:ibverbs-utils rdma:iproute2; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "${tool%%:*}" >/dev/null 2>&1 ||
        unavailable "${tool%%:*} is missing (Debian package ${tool#*:}; tools/deps.sh installs it where it can)"
done
ls /usr/lib/*/libibverbs/librxe-* >/dev/null 2>&1 ||
    unavailable "libibverbs has no rxe provider (Debian package ibverbs-providers)"
for f in bin/gp-run tests/ibv/verbs_smoke tests/integration/am_core; do
    [ -x "$vdir/$f" ] || { echo "FAIL ibv/vm: $vdir/$f is not built"; exit 1; }
done

# Until the tree has an ibv transport, only the VM and plain verbs are checked.
tests="$*"
if [ "$transport" = ibv ] && ! ls "$top"/libcore/nal/ibv*.c >/dev/null 2>&1; then
    echo "skip ibv/jobs: this tree has no ibv transport yet (libcore/nal/ibv*.c);" \
         "GP_IBV_TRANSPORT=tcp runs the gp jobs of the suite over tcp in the VM"
    tests=${tests:-devinfo verbs_smoke}
fi

rm -rf "$res"
mkdir -p "$res" || { echo "FAIL ibv/vm: cannot create $res"; exit 1; }
: >"$res/suite.out"
# The guest appends to suite.out through 9p while tail shows it here; run-vm.sh
# itself keeps the console in console.log.
"$top/tests/ibv/vm/run-vm.sh" -c 4 -t "$tmo" -o "$res" -- \
    "sh '$top/tests/ibv/suite.sh' -t $transport -b '$vdir' -r '$res' $tests >>'$res/suite.out' 2>&1" \
    >/dev/null 2>"$res/run-vm.err" &
vm=$!
tail -n +1 -f --pid=$vm "$res/suite.out" &
follower=$!
wait $vm
rc=$?
wait $follower

up=$(sed -n 's/^GP-VM: rxe0 ready at uptime \([0-9.]*\) s.*/\1/p' "$res/console.log" 2>/dev/null | tr -d '\r')
wall=$(cat "$res/wall" 2>/dev/null)
[ -z "$up" ] || echo "# ibv: the VM was ready after ${up} s of its uptime; boot, suite and power-off took ${wall} s"
if [ ! -f "$res/console.log" ]; then
    # run-vm.sh stopped before booting: qemu or the kernel could not be had.
    unavailable "the VM could not be started: $(tail -3 "$res/run-vm.err" | tr '\n' ' ')"
elif [ "$rc" -eq 124 ]; then
    echo "FAIL ibv/vm: the VM ran past ${tmo} s and was killed" \
         "(running: $(cat "$res/running" 2>/dev/null || echo 'no test')); console in $res/console.log"
    exit 1
elif [ "$rc" -eq 255 ] || [ ! -s "$res/suite.out" ]; then
    echo "FAIL ibv/vm: the VM ended without running the suite:" \
         "$(tr -d '\r' <"$res/console.log" | grep 'GP-VM\|Kernel panic' | tail -3 | tr '\n' ' ')"
    exit 1
fi
if grep -q '^FAIL ' "$res/suite.out" || [ "$rc" -ne 0 ]; then
    grep -q '^FAIL ' "$res/suite.out" || echo "FAIL ibv/vm: the suite exited with status $rc; see $res/suite.out"
    exit 1
fi
exit 0
