#!/bin/sh
# The ibv transport on real verbs: Soft-RoCE (rxe0) in a qemu VM, booted
# once per variant by tests/ibv/check.sh, which runs tests/ibv/suite.sh in
# it (see "Testing the ibv transport" in README.md).  The VM is emulated (no KVM), so only the SEQ
# build runs the whole suite (about 5 minutes on two cores) and the ASan
# build a few cases, in the SEQ variant's boot when make check has built it
# (else a boot of its own); the PAR builds add nothing here that their shm
# and tcp suites don't check faster.  Without qemu (its Debian
# packages are optional in tools/deps.sh) every case is a skip.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
vdir=$(dirname "$GPTEST_BIN")
# What the ASan build runs in the VM: a few cases, the emulated machine being slow.
asan_cases="devinfo verbs_smoke gp_check_rdma transport am_core_n2 ext_core_n2 ext_stress_n4 bad_num_qps bad_ibv_ports"

case "$GPTEST_VARIANT" in
seq) # Then, in the same boot, from a checkout under /tmp, which the guest once
     # hid under a tmpfs of its own: the tree seen through a link there; and the
     # ASan build's cases, when it is built (make check builds every variant
     # first), as ibv/asan/NAME: a boot of its own would cost 20 s more.
     link=$(mktemp -u /tmp/gp-ibv-top.XXXXXX)
     ln -s "$top" "$link"
     asan_dir=$(dirname "$vdir")/asan
     rm -f "$asan_dir/ibv-vm/ran-in-another-boot"
     if [ -x "$asan_dir/bin/gp-run" ]; then also_variant=$asan_dir; else also_variant=; fi
     GP_IBV_ALSO_FROM=$link GP_IBV_ALSO_VARIANT=$also_variant GP_IBV_ALSO_TESTS="$asan_cases" \
         sh "$top/tests/ibv/check.sh" "$vdir" | grep -v '^# end of tests$'
     rm -f "$link" ;;
asan) if [ -f "$vdir/ibv-vm/ran-in-another-boot" ]; then
          rm -f "$vdir/ibv-vm/ran-in-another-boot"   # once: a run of this variant alone boots
          echo "skip ibv/vm: the ASan build's cases ran in the SEQ variant's boot (ibv/asan/...)"
      else
          exec sh "$top/tests/ibv/check.sh" "$vdir" $asan_cases
      fi ;;
*) echo "skip ibv/vm: the VM is emulated and slow; it runs the seq and asan builds only" ;;
esac
end_tests
