#!/bin/sh
# Item 5: segment memory committed on touch.  A 4-rank job of
# tests/integration/segment_commit (mode hold) attaches
# gasnet_getMaxLocalSegmentSize() and waits; the script reads the 512-byte
# blocks of each rank's own /dev/shm object through /proc/PID/map_files
# (the objects are unlinked after attach); the ranks write 1 MiB of their
# segment and wait; the script reads again.  The object's size is what
# posix_fallocate held at attach before this change.  Needs root (following
# map_files needs CAP_SYS_ADMIN).
build=${GP_BUILD:?GP_BUILD=build/VARIANT}
prog=$build/tests/integration/segment_commit
[ -x "$prog" ] && [ -x "$build/bin/gp-run" ] || { echo "skipped: $prog or gp-run not built"; exit 77; }
stat -L "/proc/$$/map_files/$(ls /proc/$$/map_files | head -1)" >/dev/null 2>&1 ||
    { echo "skipped: /proc/PID/map_files cannot be followed here (needs CAP_SYS_ADMIN)"; exit 77; }
dir=$(mktemp -d /tmp/gp-scale-commit.XXXXXX)
trap 'touch "$dir/go1" "$dir/go2"; rm -rf "$dir"' EXIT INT TERM
wait_file() {
    tries=0
    while [ ! -f "$1" ] && [ $tries -lt 600 ]; do sleep 0.1; tries=$((tries + 1)); done
    [ -f "$1" ] || { echo "no $1 after 60 s: $(tail -3 "$dir/log")"; exit 1; }
}
# held: "RANK BLOCKS SIZE" of each rank's own object
held() {
    job=$(sed -n 's/^gp-run: job \([0-9a-f]\{16\}\): .*/\1/p' "$dir/log" | head -1)
    sed -n 's/^gp-run: rank \([0-9]*\) started as pid \([0-9]*\)$/\1 \2/p' "$dir/log" | while read -r rank pid; do
        range=$(grep " /dev/shm/gp-$job-$rank (deleted)$" "/proc/$pid/maps" | cut -d' ' -f1 | head -1)
        echo "$rank $(stat -L -c '%b %s' "/proc/$pid/map_files/$range")"
    done
}
mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }
"$build/bin/gp-run" -v -n 4 "$prog" hold "$dir" 1 >"$dir/log" 2>&1 &
job_pid=$!
wait_file "$dir/attached"
held >"$dir/attached.held"
touch "$dir/go1"
wait_file "$dir/touched"
held >"$dir/touched.held"
touch "$dir/go2"
wait $job_pid || { echo "the job failed: $(tail -3 "$dir/log")"; exit 1; }
max_before=0 max_after=0
while read -r rank blocks size; do
    after=$(sed -n "s/^$rank \([0-9]*\) .*/\1/p" "$dir/touched.held")
    echo "   rank $rank: object $size bytes; held after attach $((blocks * 512)), after writing 1 MiB $((after * 512)) bytes"
    [ $((blocks * 512)) -gt $max_before ] && max_before=$((blocks * 512))
    [ $((after * 512)) -gt $max_after ] && max_after=$((after * 512))
    object=$size
done <"$dir/attached.held"
seg=$(sed -n 's/^segment_commit: node 0: segment \([0-9]*\) bytes.*/\1/p' "$dir/log")
echo "figure: segment attached per rank (gasnet_getMaxLocalSegmentSize) = $(mib "$seg") MiB"
echo "figure: /dev/shm held per rank after attach = $(mib $max_before) MiB (target: the buffers touched at attach; posix_fallocate held the whole object, $(mib "$object") MiB)"
echo "figure: /dev/shm held per rank after writing 1 MiB = $(mib $max_after) MiB (target: about 1 MiB more than after attach)"
echo "figure: growth per rank from writing 1 MiB = $(mib $((max_after - max_before))) MiB (target 1.00)"
