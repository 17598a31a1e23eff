#!/bin/sh
# Boots the ibv VM (tests/ibv/vm) once and runs tests/ibv/suite.sh in it
# against one build variant, printing the suite's lines as they come:
# "ok NAME", "FAIL NAME: why", "skip NAME: why".  With GP_IBV_SUMMARY=1 the
# exit status is 1 if a test failed or the VM did not run the suite to its
# end (a FAIL line says which); without it (under tests/run.sh, which counts
# the FAIL lines) the script ends with "# end of tests" and status 0.
#
# usage: tests/ibv/check.sh VARIANT_DIR [TEST...]      (e.g. build/seq; TEST as suite.sh takes them)
# environment:
#   GP_IBV_TRANSPORT   the transport of the jobs (default ibv; tcp checks the harness itself)
#   GP_IBV_REQUIRE=1   a missing prerequisite (qemu, the kernel) is a FAIL, not a skip
#   GP_IBV_VM_TIMEOUT  seconds before the VM is killed (default 900)
#   GP_IBV_VM_DIR      the kernel and initramfs cache (default /var/tmp/gp-ibv-vm)
#   GP_IBV_SUMMARY=1   end with "N passed, N failed[, N skipped]" (make check-ibv)
#   GP_IBV_ALSO_FROM   a link to this checkout (under /tmp, which the guest once hid): after
#                      the suite, the same VM runs devinfo and verbs_smoke again from the tree
#                      seen through it, as ibv/from_tmp_checkout/... (a boot costs 20 s)
#   GP_IBV_ALSO_VARIANT  another build variant's directory, and GP_IBV_ALSO_TESTS its cases:
#                      the same VM runs them too, as ibv/VARIANT/NAME, and leaves
#                      VARIANT_DIR/ibv-vm/ran-in-another-boot for that variant's own run
# The VM's console, the suite's output and the job's files are kept in
# VARIANT_DIR/ibv-vm/ (the only directory the guest may write to).
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { sed -n '/^# usage:/,/^# The VM/p' "$0" >&2; exit 2; }
transport=${GP_IBV_TRANSPORT:-ibv}
tmo=${GP_IBV_VM_TIMEOUT:-900}
passed=0 failed=0 skipped=0

# finish: the summary line when asked for, and the exit status.
finish() {
    if [ "${GP_IBV_SUMMARY:-0}" = 1 ]; then
        echo
        if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
        else echo "$passed passed, $failed failed"; fi
        [ "$failed" -eq 0 ]
        exit
    fi
    # Under tests/run.sh (make check), which counts the FAIL lines itself.
    echo "# end of tests"
    exit 0
}
# verdict LINE: one line of ours, counted like the suite's.
verdict() {
    echo "$1"
    case "$1" in ok\ *) passed=$((passed + 1)) ;; FAIL\ *) failed=$((failed + 1)) ;; skip\ *) skipped=$((skipped + 1)) ;; esac
}
# unavailable WHY: the VM cannot run here; make check goes on without it.
unavailable() {
    if [ "${GP_IBV_REQUIRE:-0}" = 1 ]; then verdict "FAIL ibv/vm: $1"; else verdict "skip ibv/vm: $1"; fi
    finish
}

vdir=$(cd "$1" 2>/dev/null && pwd) || { verdict "FAIL ibv/vm: no build directory $1"; finish; }
shift
res=$vdir/ibv-vm
for tool in qemu-system-x86_64:qemu-system-x86 /bin/busybox:busybox-static depmod:kmod cpio:cpio \
            ibv_devinfo:ibverbs-utils rdma:iproute2; do
    PATH=$PATH:/usr/sbin:/sbin command -v "${tool%%:*}" >/dev/null 2>&1 ||
        unavailable "${tool%%:*} is missing (Debian package ${tool#*:}; tools/deps.sh installs it where it can)"
done
ls /usr/lib/*/libibverbs/librxe-* >/dev/null 2>&1 ||
    unavailable "libibverbs has no rxe provider (Debian package ibverbs-providers)"
for f in bin/gp-run tests/ibv/verbs_smoke tests/integration/am_core; do
    [ -x "$vdir/$f" ] || { verdict "FAIL ibv/vm: $vdir/$f is not built"; finish; }
done

# Until the tree has an ibv transport, only the VM and plain verbs are checked.
tests="$*"
if [ "$transport" = ibv ] && ! ls "$top"/libcore/nal/ibv/ibv*.c >/dev/null 2>&1; then
    verdict "skip ibv/jobs: this tree has no ibv transport yet (libcore/nal/ibv/ibv*.c); GP_IBV_TRANSPORT=tcp runs the suite's jobs over tcp"
    tests="devinfo verbs_smoke"
fi

rm -rf "$res"
mkdir -p "$res" || { verdict "FAIL ibv/vm: cannot create $res"; finish; }
: >"$res/suite.out"
# The guest appends to suite.out through 9p while tail shows it here; run-vm.sh
# itself keeps the console in console.log.
guest="sh '$top/tests/ibv/suite.sh' -t $transport -b '$vdir' -r '$res' $tests >>'$res/suite.out' 2>&1"
if [ -n "${GP_IBV_ALSO_FROM:-}" ]; then
    case "$vdir" in "$top"/*) also_vdir=$GP_IBV_ALSO_FROM${vdir#"$top"} ;; *) also_vdir=$vdir ;; esac
    guest="$guest; sh '$GP_IBV_ALSO_FROM/tests/ibv/suite.sh' -t $transport -b '$also_vdir' -r '$res' devinfo verbs_smoke 2>&1 |"
    guest="$guest sed -E 's#^(ok|FAIL|skip) ibv/#\\1 ibv/from_tmp_checkout/#' >>'$res/suite.out'"
fi
if [ -n "${GP_IBV_ALSO_VARIANT:-}" ]; then
    also_name=$(basename "$GP_IBV_ALSO_VARIANT")
    guest="$guest; sh '$top/tests/ibv/suite.sh' -t $transport -b '$GP_IBV_ALSO_VARIANT' -r '$res' ${GP_IBV_ALSO_TESTS:-} 2>&1 |"
    guest="$guest sed -E 's#^(ok|FAIL|skip) ibv/#\\1 ibv/$also_name/#' >>'$res/suite.out'"
fi
"$top/tests/ibv/vm/run-vm.sh" -c 4 -t "$tmo" -o "$res" -- "$guest" >/dev/null 2>"$res/run-vm.err" &
vm=$!
tail -n +1 -f --pid=$vm "$res/suite.out" &
follower=$!
wait $vm
rc=$?
wait $follower
if [ -n "${GP_IBV_ALSO_VARIANT:-}" ] && grep -q "^\(ok\|FAIL\|skip\) ibv/$also_name/" "$res/suite.out"; then
    mkdir -p "$GP_IBV_ALSO_VARIANT/ibv-vm" && : >"$GP_IBV_ALSO_VARIANT/ibv-vm/ran-in-another-boot"
fi
passed=$((passed + $(grep -c '^ok ' "$res/suite.out")))
failed=$((failed + $(grep -c '^FAIL ' "$res/suite.out")))
skipped=$((skipped + $(grep -c '^skip ' "$res/suite.out")))

up=$(tr -d '\r' <"$res/console.log" 2>/dev/null | sed -n 's/^GP-VM: rxe0 ready at uptime \([0-9.]*\) s.*/\1/p')
[ -z "$up" ] || echo "# ibv: the VM was ready after ${up} s of its uptime; boot, suite and power-off took $(cat "$res/wall") s"
if [ ! -f "$res/console.log" ]; then
    # run-vm.sh stopped before booting: qemu or the kernel could not be had.
    unavailable "the VM could not be started: $(tail -3 "$res/run-vm.err" | tr '\n' ' ')"
elif [ "$rc" -eq 124 ]; then
    verdict "FAIL ibv/vm: the VM ran past ${tmo} s and was killed (running: $(cat "$res/running" 2>/dev/null ||
        echo 'no test')); its console is in $res/console.log"
elif [ "$rc" -eq 255 ] || [ ! -s "$res/suite.out" ]; then
    verdict "FAIL ibv/vm: the VM ended without running the suite: $(tr -d '\r' <"$res/console.log" |
        grep 'GP-VM\|Kernel panic' | tail -3 | tr '\n' ' ')"
elif [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    verdict "FAIL ibv/vm: the suite exited with status $rc; see $res/suite.out"
fi
finish
