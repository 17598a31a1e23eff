#!/bin/sh
# doc/scale.md section 02: tcp progress whose cost does not grow with idle connections.
#
#   rtt64_over_rtt2   the AM Short round trip between nodes 0 and 1 of a
#                     64-node tcp job (every connection open: GP_TCP_CONNECT=eager,
#                     all-to-all at attach) over that of a 2-node job; the 62
#                     other nodes sleep, polling every 100 ms, so that on a
#                     machine with fewer cores than processes the figure is
#                     the progress engine's cost, not CPU contention; every
#                     node of both jobs waits in GASNET_WAIT_BLOCK mode (poll,
#                     then sched_yield), as an oversubscribed job does anyway
#                     (tcp_rtt_idle.c says why).  Rounds
#                     alternate the two jobs; the figure is the median of the
#                     per-round ratios.  Target <= 1.2.
#   attach64_ms       node 0's gasnet_attach in the 64-node job (median), with
#                     the default GP_TCP_CONNECT (lazy: no connection made at attach).
#   start64_s         wall time of `gp-run -n 64` of the program attaching
#                     only; start64_mpirun_s: `mpirun --oversubscribe -n 64`
#                     of a program that only calls MPI_Init and MPI_Finalize
#                     (when Open MPI is installed), in the same rounds.
#
# SCALE_ROUNDS (default 3), SCALE_NODES (default 64), SCALE_ITERS (default 4000).
# tests/integration/tcp_rtt_idle.c is the program.  doc/scale.md, "## 02.".
build=${GP_BUILD:-build/seq}
bin=$build/bin
prog=$build/tests/integration/tcp_rtt_idle
rounds=${SCALE_ROUNDS:-3}
nodes=${SCALE_NODES:-64}
iters=${SCALE_ITERS:-4000}
if [ ! -x "$prog" ] || [ ! -x "$bin/gp-run" ]; then
    echo "skipped: $prog or $bin/gp-run is not built (make seq)"
    exit 77
fi
tmp=$(mktemp -d /tmp/gp-scale02.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
# run N ITERS [CONNECT]: the program's output in $tmp/out, the wall seconds in $tmp/wall
run() {
    t0=$(now)
    GP_TCP_CONNECT=${3:-lazy} GP_TRANSPORT=tcp timeout 600 "$bin/gp-run" -n "$1" "$prog" "$2" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >"$tmp/wall"
    if [ $rc -ne 0 ]; then
        echo "scale02: gp-run -n $1 tcp_rtt_idle $2 failed (status $rc):" >&2
        tail -5 "$tmp/err" >&2
        return 1
    fi
}
value() { sed -n "s/^$1 //p" "$tmp/out"; }

mpi_trivial=""
if command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1; then
    printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' \
        >"$tmp/trivial.c"
    mpicc.openmpi -O2 -o "$tmp/trivial" "$tmp/trivial.c" 2>/dev/null && mpi_trivial=$tmp/trivial
fi

: >"$tmp/ratios"
: >"$tmp/attach"
: >"$tmp/start"
: >"$tmp/mpistart"
: >"$tmp/rtt2"
: >"$tmp/rttn"
i=0
while [ $i -lt "$rounds" ]; do
    i=$((i + 1))
    if [ $((i % 2)) -eq 1 ]; then order="2 $nodes"; else order="$nodes 2"; fi
    for n in $order; do
        run "$n" "$iters" eager || exit 1
        if [ "$n" = 2 ]; then r2=$(value rtt_us_median); echo "$r2" >>"$tmp/rtt2"
        else rn=$(value rtt_us_median); echo "$rn" >>"$tmp/rttn"; fi
    done
    echo "$rn $r2" | awk '{ printf "%.4f\n", $1 / $2 }' >>"$tmp/ratios"
    run "$nodes" 0 || exit 1
    value attach_ms >>"$tmp/attach"
    cat "$tmp/wall" >>"$tmp/start"
    if [ -n "$mpi_trivial" ]; then
        t0=$(now)
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 \
            mpirun.openmpi --oversubscribe -n "$nodes" "$mpi_trivial" >/dev/null 2>&1 &&
            echo "$t0 $(now)" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$tmp/mpistart"
    fi
    echo "round $i: rtt2 $r2 us, rtt$nodes $rn us, attach $(tail -1 "$tmp/attach") ms, start $(tail -1 "$tmp/start") s$( [ -n "$mpi_trivial" ] && echo ", mpirun start $(tail -1 "$tmp/mpistart") s")"
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ratio=$(median "$tmp/ratios")
echo "figure: rtt2_us = $(median "$tmp/rtt2") us (median of $rounds rounds)"
echo "figure: rtt${nodes}_us = $(median "$tmp/rttn") us (median of $rounds rounds)"
echo "figure: rtt${nodes}_over_rtt2 = $ratio x (target <= 1.2)"
echo "figure: attach${nodes}_ms = $(median "$tmp/attach") ms (node 0's gasnet_attach)"
echo "figure: start${nodes}_s = $(median "$tmp/start") s (gp-run -n $nodes, attach and exit)"
if [ -s "$tmp/mpistart" ]; then
    echo "figure: start${nodes}_mpirun_s = $(median "$tmp/mpistart") s (mpirun --oversubscribe -n $nodes, MPI_Init + MPI_Finalize)"
fi
exit 0
