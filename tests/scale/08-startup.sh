#!/bin/sh
# Item 8: start-up of a job on one host, gp-run against Open MPI's mpirun.
# The same trivial program on each side -- gasnet_init, gasnet_attach (a
# 64 KiB segment), gasnet_exit; MPI_Init, MPI_Finalize -- launched as
# "gp-run -n N" and "mpirun --oversubscribe -n N", the wall time of the
# whole launch, in interleaved rounds (gp, mpi, gp, mpi, ...) so that a
# busy machine weighs on both alike; the figures are the medians and their
# ratio.  Target at 64 ranks: gp <= 0.5x mpirun.  Needs mpicc and mpirun
# (Open MPI's, as bench/compare looks for them: mpicc.openmpi, else mpicc);
# without them it cannot run here (77).  STARTUP_RANKS="8 64" and
# STARTUP_ROUNDS=5 change what runs.
build=${GP_BUILD:?GP_BUILD=build/VARIANT}
top=$(cd "$(dirname "$0")/../.." && pwd)
ranks=${STARTUP_RANKS:-8 64}
rounds=${STARTUP_ROUNDS:-5}
pick() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }; done; return 1; }
mpicc=$(pick mpicc.openmpi mpicc) || { echo "skipped: no mpicc"; exit 77; }
mpirun=$(pick mpirun.openmpi mpirun) || { echo "skipped: no mpirun"; exit 77; }
[ -f "$build/lib/libgp.a" ] && [ -x "$build/bin/gp-run" ] || { echo "skipped: $build not built"; exit 77; }
dir=$(mktemp -d /tmp/gp-scale-startup.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cat >"$dir/hello_gp.c" <<'C'
#include <gasnet.h>
int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(NULL, 0, 65536, 0) != GASNET_OK)
        return 1;
    gasnet_exit(0);
    return 0;
}
C
cat >"$dir/hello_mpi.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
C
cc -O2 -DGASNET_SEQ -I"$top/libcore/include" -I"$top/libcore/include/portals-conduit" \
    -o "$dir/hello_gp" "$dir/hello_gp.c" "$build/lib/libgp.a" -lpthread -lrt -lm -ldl ||
    { echo "cannot build the gp program"; exit 1; }
"$mpicc" -O2 -o "$dir/hello_mpi" "$dir/hello_mpi.c" || { echo "skipped: mpicc cannot build an MPI program"; exit 77; }
"$mpirun" --oversubscribe -n 2 "$dir/hello_mpi" >/dev/null 2>&1 || { echo "skipped: mpirun cannot run 2 ranks here"; exit 77; }

# seconds CMD...: wall time of CMD (fails the script if CMD fails).
seconds() {
    t0=$(date +%s%N)
    "$@" >"$dir/out" 2>&1 || { echo "failed: $* : $(tail -3 "$dir/out")" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{v[NR]=$1} END{print (NR % 2) ? v[(NR+1)/2] : int((v[NR/2] + v[NR/2+1]) / 2)}'; }
for n in $ranks; do
    : >"$dir/gp.$n"; : >"$dir/mpi.$n"
    for r in $(seq 1 "$rounds"); do
        seconds "$build/bin/gp-run" -n "$n" "$dir/hello_gp" >>"$dir/gp.$n" || exit 1
        seconds "$mpirun" --oversubscribe -n "$n" "$dir/hello_mpi" >>"$dir/mpi.$n" || exit 1
    done
    gp=$(median <"$dir/gp.$n") mpi=$(median <"$dir/mpi.$n")
    echo "   $n ranks, $rounds rounds: gp-run $(tr '\n' ' ' <"$dir/gp.$n")ms; mpirun $(tr '\n' ' ' <"$dir/mpi.$n")ms"
    echo "figure: startup_gp_run_n$n = $gp ms"
    echo "figure: startup_mpirun_n$n = $mpi ms"
    target=; [ "$n" = 64 ] && target=" (target <= 0.5)"
    echo "figure: startup_ratio_n$n = $(awk -v a="$gp" -v b="$mpi" 'BEGIN{printf "%.2f", a / b}') x$target"
done
