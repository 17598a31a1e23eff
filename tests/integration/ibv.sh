#!/bin/sh
# The ibv transport on real verbs: Soft-RoCE (rxe0) in a qemu VM, booted
# once per variant by tests/ibv/check.sh, which runs tests/ibv/suite.sh in
# it (see "Testing the ibv transport" in README.md).  The VM is emulated (no KVM), so only the SEQ
# build runs the whole suite (about 2 minutes on two cores) and the ASan
# build a few cases (about 1 minute); the PAR builds add nothing here that
# their shm and tcp suites don't check faster.  Without qemu (its Debian
# packages are optional in tools/deps.sh) every case is a skip.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
vdir=$(dirname "$GPTEST_BIN")

case "$GPTEST_VARIANT" in
seq) # Then, in the same boot, from a checkout under /tmp, which the guest once
     # hid under a tmpfs of its own: the tree seen through a link there.
     link=$(mktemp -u /tmp/gp-ibv-top.XXXXXX)
     ln -s "$top" "$link"
     GP_IBV_ALSO_FROM=$link sh "$top/tests/ibv/check.sh" "$vdir" | grep -v '^# end of tests$'
     rm -f "$link" ;;
asan) exec sh "$top/tests/ibv/check.sh" "$vdir" devinfo verbs_smoke gp_check_rdma transport \
          am_core_n2 ext_core_n2 ext_stress_n4 bad_num_qps bad_ibv_ports ;;
*) echo "skip ibv/vm: the VM is emulated and slow; it runs the seq and asan builds only" ;;
esac
end_tests
