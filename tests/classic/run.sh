#!/bin/sh
# GASNet 1.29.3's classic test programs (its tests/ directory), built unchanged against an
# installed gp and run with the node counts and arguments GASNet's own `make run-tests` uses
# (tests/Makefile.in TEST_PARAMS; where it gives none, the AppArgs of its nightly harness,
# upcr-harness/gasnet-tests/harness.conf, so that no run takes minutes).  Opt-in
# (`make check-classic`), not part of `make check`: GASNet's sources are not in this
# repository, only in the mirror named below.
#
#   tests/classic/run.sh [seq|par]...        (default: seq par)
# Environment: GP_PREFIX (an installed gp; default: install this tree into a scratch prefix),
# GASNET_SRC (an exported GASNet tree; default: export b990bfef from GASNET_MIRROR),
# GASNET_MIRROR (default /work/.mirror/evidence+axiom-evi-gasnet/repo), CLASSIC_TIMEOUT
# (seconds per run, default 60), CLASSIC_ONLY (program names to run, default all),
# CLASSIC_FULL (set: the programs whose rounds are reduced below run GASNet's defaults).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
modes=${*:-seq par}
mirror=${GASNET_MIRROR:-/work/.mirror/evidence+axiom-evi-gasnet/repo}
limit=${CLASSIC_TIMEOUT:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/gp-classic.XXXXXX")

if [ -z "${GASNET_SRC:-}" ]; then
    if ! git --git-dir="$mirror" cat-file -e b990bfef 2>/dev/null; then
        echo "SKIP check-classic: no GASNet 1.29.3 tree (set GASNET_SRC, or GASNET_MIRROR to a git directory holding commit b990bfef)"
        rmdir "$work"; exit 0
    fi
    mkdir "$work/gasnet"
    git --git-dir="$mirror" archive b990bfef | tar -x -C "$work/gasnet" || exit 1
    GASNET_SRC=$work/gasnet
fi
src=$GASNET_SRC/tests
if [ -z "${GP_PREFIX:-}" ]; then
    GP_PREFIX=$work/prefix
    make -C "$top" -s install PREFIX="$GP_PREFIX" >"$work/install.log" 2>&1 \
        || { cat "$work/install.log"; exit 1; }
fi
# gp warns of GASNET_* and GP_* variables it does not know; these are the script's, not the
# programs', so the jobs do not inherit them (GASNET_DUMMY, which GASNet's harness sets too,
# still draws that warning: it is no failure).
unset GASNET_MIRROR
gasnet_src=$GASNET_SRC; gp_prefix=$GP_PREFIX
unset GASNET_SRC GP_PREFIX
GASNET_SRC=$gasnet_src; GP_PREFIX=$gp_prefix

# Every test*.c/.cc of the directory but two that GASNet's harness does not build either:
# testmpi (GASNet+MPI, built only with an MPI compiler) and testcolltuner (needs GASNet's
# internal myxml library).  The last three are PAR-only: they #error in SEQ, and GASNet's
# `tests-seq` leaves them out.
progs="testgasnet testtools testinternal testenv testhsl testsmall testlarge testval testam
 testmisc testcore1 testcore2 testcore3 testcore4 testcore5 testslice testbarrier testbarrierconf
 testbarrierlate testmemset testlogGP testalign testrand testexit testvis testcoll testcollperf
 testteambarrier testteam testnbr testvisperf testqueue testcxx testtoolscxx testhello
 testbcastperf testexchangeperf testgallperf testreduceperf testteambcast
 testthreads testcontend testlockcontend"
paronly=" testthreads testcontend testlockcontend "
# testtools and testtoolscxx link only the tools library and run without a launcher.
nongasnet=" testtools testtoolscxx "

args_of() {
    case $1 in
    testcore1) echo 1000 ;;
    testhsl) echo 0 ;;
    testrand) echo 1024 ;;
    testlogGP) echo 1000 0 8 65536 ;;
    testthreads) echo 2 ;;
    testqueue) echo 1 256 262144 ;;
    testvisperf) echo -maxdata 131072 -maxcontig 512 10 ;;
    testslice) echo 1024000 10 10 ;;
    # GASNet's 32768 2 50 0 runs 100 verified rounds of every collective, size and sync
    # mode: about 50 s per sync mode here, so 7 minutes; 1 x 5 rounds check the same cases.
    testcollperf) if [ -n "${CLASSIC_FULL:-}" ]; then echo 32768 2 50 0; else echo 32768 1 5 0; fi ;;
    testlarge|testmemset) echo 100 2097152 ;;
    testalign) echo 100 ;;
    # Neither list gives these arguments, and their defaults (1000 round trips of every AM
    # size, where a round trip costs 40 ms when the two processes wait for the
    # scheduler in turn; 10 rounds of every AM arity, each between two barriers) take well over a minute
    # on a loaded 2-core machine, where each spinning process gets a tenth of a CPU.  Fewer
    # rounds cover the same sizes, categories and arities.
    testam|testcore4|testcore5|testbarrierlate|testvis|testnbr|testcoll)
        [ -n "${CLASSIC_FULL:-}" ] || reduced_args_of "$1" ;;
    esac
}
# The reduced rounds above; CLASSIC_FULL=1 runs these programs with their own defaults.
reduced_args_of() {
    case $1 in
    testam) echo 20 ;;
    testcore4|testcore5) echo 3 ;;
    testbarrierlate) echo 100 ;;    # 10000 barriers, then per node a delay calibrated to twice their time
    testvis) echo 50 ;;
    testnbr) echo 10 ;;    # its default 150 exchanges per size and axis take minutes here
    testcoll) echo 50 ;;    # harness.conf: 200 in PAR; its default 1000 rounds of every sync mode
    esac
}
nodes_of() {
    case $1 in testmisc) echo 1 ;; testbarrierconf) echo 3 ;; *) echo 2 ;; esac
}

# GASNet's harness fails a run whose output has a line with ERROR or "fatal signal"
# (other than its allocation-retry and freeze notes); gp adds the exit status and a time limit.
judged() {    # log status -> 0 when passed
    [ "$2" -eq 0 ] || return 1
    ! grep -E 'ERROR|fatal signal' "$1" | grep -v -E 'Retrying allocation|GASNET_FREEZE_ON_ERROR' | grep -q .
}

total=0; failed=0; summary=""
for mode in $modes; do
    out=$work/$mode; mkdir -p "$out"
    mak=$GP_PREFIX/include/portals-conduit/portals-$mode.mak
    tmak=$GP_PREFIX/include/gasnet_tools-$mode.mak
    n=0; ok=0
    for p in $progs; do
        [ -n "${CLASSIC_ONLY:-}" ] && case " $CLASSIC_ONLY " in *" $p "*) ;; *) continue ;; esac
        [ "$mode" = seq ] && case $paronly in *" $p "*) continue ;; esac
        n=$((n + 1)); log=$out/$p.log
        if ! make -s -f "$here/Makefile" GASNET_MAK="$mak" TOOLS_MAK="$tmak" SRC="$src" \
                OUT="$out" "$out/$p" >"$log" 2>&1; then
            echo "FAIL $mode $p (build)"; sed -n 1,20p "$log"; failed=$((failed + 1)); continue
        fi
        if [ "$p" = testexit ]; then
            # GASNet's run-testexit: each way of exiting must end the whole job, promptly,
            # with that case's exit code (2 and 4 by design; the rest the case number).
            last=13; [ "$mode" = par ] && last=18
            i=1; bad=""
            while [ $i -le $last ]; do
                want=$i
                (cd "$out" && GASNET_DUMMY="GASNet dummy value" timeout -k 5 "$limit" \
                    "$GP_PREFIX/bin/gp-run" -n 2 ./testexit $i) >>"$log" 2>&1
                st=$?
                [ "$st" -eq "$want" ] || bad="$bad $i:$st"
                i=$((i + 1))
            done
            if [ -z "$bad" ]; then ok=$((ok + 1)); echo "PASS $mode testexit 1..$last"
            else failed=$((failed + 1)); echo "FAIL $mode testexit (case:status$bad)"; fi
            continue
        fi
        a=$(args_of $p); nn=$(nodes_of $p)
        # testbarrierlate sleeps, on each node in turn, twice as long as its barrier loop took
        # (a calibration that overshoots on a loaded machine): its time grows with the
        # barrier's latency whatever the round count, so it gets three limits.
        lim=$limit; [ "$p" = testbarrierlate ] && lim=$((limit * 3))
        case $nongasnet in
        *" $p "*) set -- ./$p ;;
        *) set -- "$GP_PREFIX/bin/gp-run" -n "$nn" ./$p ;;
        esac
        if [ "$p" = testenv ]; then
            (cd "$out" && GASNET_DUMMY="GASNet dummy value" timeout -k 5 "$lim" "$@" \
                GASNet is 'Global Address Space Networking') >>"$log" 2>&1
        else
            # shellcheck disable=SC2086
            (cd "$out" && GASNET_DUMMY="GASNet dummy value" timeout -k 5 "$lim" "$@" $a) \
                >>"$log" 2>&1
        fi
        st=$?
        if judged "$log" $st; then ok=$((ok + 1)); echo "PASS $mode $p"
        else
            failed=$((failed + 1)); echo "FAIL $mode $p (status $st; $log)"
            grep -E 'ERROR|fatal signal|error' "$log" | head -5
        fi
    done
    total=$((total + n))
    summary="$summary $mode $ok/$n"
done
echo "classic:$summary ($failed failed; logs in $work)"
[ "$failed" -eq 0 ]
