#!/bin/sh
# Item 6: what an idle process holds.  A 2-rank shm job of idle_hold
# (tests/integration/idle_hold.c: init, attach with a 64 MiB segment, then
# asleep with no gasnet call), and for each rank VmRSS from
# /proc/PID/status and the Rss / Pss split (anonymous, file, shmem) from
# /proc/PID/smaps_rollup, after 1 s of idling.  Target: VmRSS <= 2x
# GASNet's smp conduit with the same segment, 2 x 2.1 MB (GASNet's figure,
# doc/scale.md section 06: GASNet is not installed here).  The figure is the larger
# of the two ranks.  FOOT_SEGMENT=BYTES changes the segment.
build=${GP_BUILD:?GP_BUILD=build/VARIANT}
seg=${FOOT_SEGMENT:-67108864}
prog=$build/tests/integration/idle_hold
[ -x "$prog" ] && [ -x "$build/bin/gp-run" ] || { echo "skipped: $prog or gp-run not built"; exit 77; }
dir=$(mktemp -d /tmp/gp-scale-foot.XXXXXX)
trap 'touch "$dir/go"; rm -rf "$dir"' EXIT INT TERM
GP_TRANSPORT=shm "$build/bin/gp-run" -n 2 "$prog" "$dir" "$seg" >"$dir/log" 2>&1 &
job=$!
tries=0
while { [ ! -f "$dir/ready-0" ] || [ ! -f "$dir/ready-1" ]; } && [ $tries -lt 300 ]; do
    kill -0 $job 2>/dev/null || break
    sleep 0.1; tries=$((tries + 1))
done
[ -f "$dir/ready-0" ] && [ -f "$dir/ready-1" ] || { echo "the idle job did not start: $(tail -3 "$dir/log")"; exit 1; }
sleep 1
worst_rss=0
for r in 0 1; do
    pid=$(cat "$dir/ready-$r")
    rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
    roll() { sed -n "s/^$1:[[:space:]]*\\([0-9]*\\) kB/\\1/p" "/proc/$pid/smaps_rollup"; }
    echo "   rank $r: VmRSS $rss kB; Rss $(roll Rss) kB = anonymous $(roll Anonymous) kB + file/shmem;" \
         "Pss $(roll Pss) kB = anon $(roll Pss_Anon) + file $(roll Pss_File) + shmem $(roll Pss_Shmem) kB"
    [ "$rss" -gt "$worst_rss" ] && worst_rss=$rss
    [ "$r" = 0 ] && {
        echo "   rank 0's resident memory by mapping (kB):"
        awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6; if (name == "") name="[anonymous]"}
             /^Rss:/{a[name]+=$2} END{for (k in a) if (a[k] > 0) print a[k], k}' "/proc/$pid/smaps" |
            sort -rn | head -8 | sed 's/^/     /'
        anon0=$(roll Anonymous) pss0=$(roll Pss)
    }
done
touch "$dir/go"
wait $job || { echo "the idle job failed: $(tail -3 "$dir/log")"; exit 1; }
echo "figure: idle_rss_64MiB_segment = $worst_rss kB (target <= 4200 kB: 2x the 2.1 MB of GASNet smp)"
echo "figure: idle_anonymous_rank0 = $anon0 kB"
echo "figure: idle_pss_rank0 = $pss0 kB"
