#!/bin/sh
# Runs INSIDE the Soft-RoCE VM for tests/scale/04-ibv-recv.sh: recv_memory
# over ibv at each N given, with the ibv debug lines, until one fails or
# runs past LIMIT seconds; then the same with the build BEFORE_DIR when it
# is not "-" (a tree from before the shared receive queue, for comparison).
# Writes RESULT_DIR/nN.out (the job's output) and RESULT_DIR/summary
# ("N rc SECONDS" per job); RESULT_DIR/before-* the same for BEFORE_DIR.
# usage: ibv-recv-guest.sh VARIANT_DIR RESULT_DIR LIMIT BEFORE_DIR N...
vdir=$1 res=$2 limit=$3 before=$4
shift 4
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export GP_TRANSPORT=ibv GP_LOG_LEVEL=debug GASNET_EXITTIMEOUT=20
ulimit -l unlimited 2>/dev/null
free -m >"$res/free-before"
# series BUILD PREFIX N...: one job per N, until one fails
series() {
    build=$1 prefix=$2
    shift 2
    : >"$res/${prefix}summary"
    for n in "$@"; do
        echo "$prefix$n" >"$res/running"
        start=$(date +%s)
        timeout -k 5 "$limit" "$build/bin/gp-run" -n "$n" "$build/tests/integration/recv_memory" 4 \
            >"$res/${prefix}n$n.out" 2>&1
        rc=$?
        # Emulated, 64 processes starting at once may miss gp-run's 10 s key-proof deadline:
        # that start-up (nothing of the transport yet) is tried once more.
        if [ "$rc" -ne 0 ] && grep -q "refused a control connection" "$res/${prefix}n$n.out"; then
            mv "$res/${prefix}n$n.out" "$res/${prefix}n$n.first-start.out"
            timeout -k 5 "$limit" "$build/bin/gp-run" -n "$n" "$build/tests/integration/recv_memory" 4 \
                >"$res/${prefix}n$n.out" 2>&1
            rc=$?
        fi
        echo "$n $rc $(($(date +%s) - start))" >>"$res/${prefix}summary"
        [ "$rc" -eq 0 ] || break
    done
}
series "$vdir" "" "$@"
[ "$before" = - ] || series "$before" before- "$@"
rm -f "$res/running"
